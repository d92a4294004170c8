// The LTTng kernel events the kernel model reads (lttng-modules' names, fields and field
// order), declared once for the tests and benchmarks that write kernel traces by hand. The
// layout is the one `causeway record` writes (record/kernel_ctf_writer.cc): comms as 16-byte
// character arrays, the TCP header's fields lifted into the net events. A record test
// checks that the recorder's metadata declares the same events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {

// In the recorder's order of declaration, which gives the event class ids.
enum class LttngEvent : uint8_t {
  kSchedSwitch,
  kSchedWaking,
  kSchedWakeupNew,
  kSchedProcessFork,
  kSchedProcessExec,
  kSchedProcessExit,
  kStatedumpProcessState,
  kIrqHandlerEntry,
  kIrqHandlerExit,
  kSoftirqEntry,
  kSoftirqExit,
  kHrtimerExpireEntry,
  kHrtimerExpireExit,
  kBlockRqIssue,
  kBlockRqComplete,
  kNetDevQueue,
  kNetifReceiveSkb,
  kSyscallEntry,  // declared only when asked for (`causeway record --syscalls`)
  kSyscallExit,
};
inline constexpr int kLttngEventCount = static_cast<int>(LttngEvent::kSyscallExit) + 1;

struct LttngEventClass {
  std::string name;
  std::vector<ctf::FieldSpec> fields;
};

// The name and fields of `e`.
const LttngEventClass& LttngDeclaration(LttngEvent e);
// Declares `e` alone on `w`, for a trace that mixes it with events of another layout.
StatusOr<uint32_t> DeclareLttngEvent(ctf::CtfWriter& w, LttngEvent e);

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
  uint32_t id(LttngEvent e) const { return ids_[static_cast<int>(e)]; }
  // Any event, its fields to be given in LttngDeclaration(e)'s order.
  ctf::CtfWriter::EventBuilder Begin(uint32_t cpu, LttngEvent e, uint64_t ts) {
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
  uint32_t ids_[kLttngEventCount] = {};
  Status status_;
};

}  // namespace causeway::testing
