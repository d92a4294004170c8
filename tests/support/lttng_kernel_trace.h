// Writing the LTTng kernel events that `causeway record` writes (kernel/lttng_kernel_layout.h)
// by hand, for the tests and benchmarks that build kernel traces: the usual events with
// their fields filled in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "ctf/writer/ctf_writer.h"
#include "kernel/lttng_kernel_layout.h"

namespace causeway::testing {

// What net_dev_queue (sent) and netif_receive_skb (received) carry of a TCP segment.
struct TcpSegment {
  uint32_t seq = 0;
  uint32_t ack_seq = 0;
  uint8_t flags = 0;  // TCP flags: 0x02 SYN, 0x10 ACK, 0x18 PSH|ACK, ...
  std::string device = "eth0";
  std::string saddr = "10.0.0.1";
  std::string daddr = "10.0.0.2";
  uint16_t sport = 40000;
  uint16_t dport = 80;
  uint32_t payload_len = 0;
};

// Declares the events on a trace writer and writes them.
class LttngKernelWriter {
 public:
  // Declares every event class on `w` (syscall_entry and syscall_exit with `syscalls`);
  // `w` must outlive this object.
  explicit LttngKernelWriter(ctf::CtfWriter& w, bool syscalls = false);

  const Status& status() const { return status_; }  // why a declaration failed
  uint32_t id(kernel::LttngEvent e) const { return ids_[e]; }
  // Any event, its fields to be given in kernel::LttngDeclaration(e)'s order.
  ctf::CtfWriter::EventBuilder Begin(uint32_t cpu, kernel::LttngEvent e, uint64_t ts) {
    return w_.Begin(cpu, id(e), ts);
  }

  // prev_state: 0 runnable (preempted), 1 interruptible sleep, 2 uninterruptible, as the
  // kernel's TASK_* bits. Priorities are 20.
  void SchedSwitch(uint32_t cpu, uint64_t ts, std::string_view prev_comm, int32_t prev_tid,
                   int64_t prev_state, std::string_view next_comm, int32_t next_tid);
  // `tid` (named `comm`) made runnable, to run on `target_cpu`.
  void SchedWaking(uint32_t cpu, uint64_t ts, std::string_view comm, int32_t tid,
                   int32_t target_cpu);
  void Softirq(uint32_t cpu, uint64_t ts, bool entry, uint32_t vec);
  // net_dev_queue when `sent`, else netif_receive_skb.
  void Tcp(uint32_t cpu, uint64_t ts, bool sent, const TcpSegment& segment);

 private:
  ctf::CtfWriter& w_;
  kernel::LttngEventIds ids_;
  Status status_;
};

}  // namespace causeway::testing
