#include "make_kernel_trace/state_dump.h"

namespace make_kernel_trace {

void WriteStateDump(Emitter& out, const EventIds& ids, Cpu& c, const std::vector<Thread>& threads) {
  out.Soon(c);
  out.Event(c, ids.statedump_start);
  for (const Thread& t : threads) {
    if (t.prof == Prof::kIdle && t.cpu != c.id) continue;
    out.Soon(c);
    bool kthread = t.prof == Prof::kKworker || t.prof == Prof::kIdle;
    out.Event(c, ids.statedump_process_state)
        .S32(t.tid)
        .S32(t.tid)
        .S32(t.pid)
        .S32(t.pid)
        .S32(t.ppid)
        .S32(t.ppid)
        .Chars16(t.Comm())
        .S32(kthread ? 1 : 0)
        .S32(5)
        .S32(0)
        .S32(5)
        .S32(0)
        .U32(4026531836u);
  }
  out.Soon(c);
  out.Event(c, ids.statedump_end);
}

}  // namespace make_kernel_trace
