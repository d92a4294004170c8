// sched_switch events for hand-written kernel traces: the lttng-modules names and layout
// the kernel model reads, with the comms as strings (as `causeway record` writes them).
#pragma once

#include <cstdint>
#include <string_view>

#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {

class SchedSwitchWriter {
 public:
  // Declares the event class on `w`; the writer must outlive this object.
  explicit SchedSwitchWriter(ctf::CtfWriter& w) : w_(w) {
    using ctf::FieldKind;
    id_ = *w.AddEventClass("sched_switch", {{"prev_comm", FieldKind::kString},
                                            {"prev_tid", FieldKind::kS32},
                                            {"prev_state", FieldKind::kS64},
                                            {"next_comm", FieldKind::kString},
                                            {"next_tid", FieldKind::kS32}});
  }
  // prev_state: 0 runnable (preempted), 1 interruptible sleep, 2 uninterruptible.
  void Write(uint32_t cpu, uint64_t ts, std::string_view prev_comm, int32_t prev_tid,
             int64_t prev_state, std::string_view next_comm, int32_t next_tid) {
    w_.Begin(cpu, id_, ts)
        .String(prev_comm)
        .S32(prev_tid)
        .S64(prev_state)
        .String(next_comm)
        .S32(next_tid);
  }

 private:
  ctf::CtfWriter& w_;
  uint32_t id_ = 0;
};

}  // namespace causeway::testing
