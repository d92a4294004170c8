#include "support/lttng_kernel_trace.h"

namespace causeway::testing {

namespace {

using kernel::LttngEvent;

constexpr int32_t kPrio = 20;

}  // namespace

LttngKernelWriter::LttngKernelWriter(ctf::CtfWriter& w, bool syscalls) : w_(w) {
  StatusOr<kernel::LttngEventIds> ids = kernel::DeclareLttngKernelEvents(w, syscalls);
  if (ids.ok())
    ids_ = *ids;
  else
    status_ = ids.status();
}

void LttngKernelWriter::SchedSwitch(uint32_t cpu, uint64_t ts, std::string_view prev_comm,
                                    int32_t prev_tid, int64_t prev_state,
                                    std::string_view next_comm, int32_t next_tid) {
  Begin(cpu, LttngEvent::kSchedSwitch, ts)
      .Chars16(prev_comm)
      .S32(prev_tid)
      .S32(kPrio)
      .S64(prev_state)
      .Chars16(next_comm)
      .S32(next_tid)
      .S32(kPrio);
}

void LttngKernelWriter::SchedWaking(uint32_t cpu, uint64_t ts, std::string_view comm, int32_t tid,
                                    int32_t target_cpu) {
  Begin(cpu, LttngEvent::kSchedWaking, ts).Chars16(comm).S32(tid).S32(kPrio).S32(target_cpu);
}

void LttngKernelWriter::Softirq(uint32_t cpu, uint64_t ts, bool entry, uint32_t vec) {
  Begin(cpu, entry ? LttngEvent::kSoftirqEntry : LttngEvent::kSoftirqExit, ts).U32(vec);
}

void LttngKernelWriter::Tcp(uint32_t cpu, uint64_t ts, bool sent, const TcpSegment& s) {
  constexpr uint8_t kIpv4 = 4;
  constexpr uint32_t kHeaders = 52;  // IPv4 and TCP headers with timestamps
  Begin(cpu, sent ? LttngEvent::kNetDevQueue : LttngEvent::kNetifReceiveSkb, ts)
      .Hex64(0xffff888000000000)
      .U32(kHeaders + s.payload_len)
      .String(s.device)
      .U8(kIpv4)
      .String(s.saddr)
      .String(s.daddr)
      .U16(s.sport)
      .U16(s.dport)
      .U32(s.seq)
      .U32(s.ack_seq)
      .U8(s.flags)
      .U16(64240)
      .U32(s.payload_len);
}

}  // namespace causeway::testing
