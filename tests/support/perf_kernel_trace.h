// Writing perf's `perf data convert --to-ctf` layout by hand, for the tests that read it:
// "subsystem:" class names, perf's and the tracepoint's common fields before the payload
// (the current task in perf_tid and common_pid, the interrupt context in common_flags),
// pid-named scheduler fields, strings for comms.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {

class PerfKernelWriter {
 public:
  // Declares sched:sched_switch and sched:sched_waking on `w`, which must outlive this.
  explicit PerfKernelWriter(ctf::CtfWriter& w) : w_(w) {
    using ctf::FieldKind;
    switch_ = AddClass("sched:sched_switch", {{"prev_comm", FieldKind::kString},
                                              {"prev_pid", FieldKind::kS32},
                                              {"prev_prio", FieldKind::kS32},
                                              {"prev_state", FieldKind::kS64},
                                              {"next_comm", FieldKind::kString},
                                              {"next_pid", FieldKind::kS32},
                                              {"next_prio", FieldKind::kS32}});
    waking_ = AddClass("sched:sched_waking", {{"comm", FieldKind::kString},
                                              {"pid", FieldKind::kS32},
                                              {"prio", FieldKind::kS32},
                                              {"target_cpu", FieldKind::kS32}});
  }

  // Declares a class whose payload is `payload`, after the common fields.
  uint32_t AddClass(const std::string& name, std::vector<ctf::FieldSpec> payload) {
    using ctf::FieldKind;
    std::vector<ctf::FieldSpec> f = {
        {"perf_ip", FieldKind::kHex64},    {"perf_tid", FieldKind::kS32},
        {"perf_pid", FieldKind::kS32},     {"common_type", FieldKind::kU32},
        {"common_flags", FieldKind::kU32}, {"common_preempt_count", FieldKind::kU32},
        {"common_pid", FieldKind::kS32}};
    f.insert(f.end(), payload.begin(), payload.end());
    return *w_.AddEventClass(name, f);
  }
  // An event of `cls` with its common fields written: `current` runs, `flags` is
  // common_flags (0x08 hard IRQ, 0x10 softirq); the payload follows.
  ctf::CtfWriter::EventBuilder Begin(uint32_t cpu, uint32_t cls, uint64_t ts, int32_t current,
                                     uint32_t flags) {
    ctf::CtfWriter::EventBuilder b = w_.Begin(cpu, cls, ts);
    b.Hex64(0).S32(current).S32(current).U32(0).U32(flags).U32(0).S32(current);
    return b;
  }
  void SchedSwitch(uint32_t cpu, uint64_t ts, int32_t prev, int64_t prev_state, int32_t next) {
    Begin(cpu, switch_, ts, prev, 0)
        .String("p")
        .S32(prev)
        .S32(120)
        .S64(prev_state)
        .String("n")
        .S32(next)
        .S32(120);
  }
  void SchedWaking(uint32_t cpu, uint64_t ts, int32_t current, uint32_t flags, int32_t tid) {
    Begin(cpu, waking_, ts, current, flags).String("t").S32(tid).S32(120).S32(cpu);
  }

 private:
  ctf::CtfWriter& w_;
  uint32_t switch_ = 0, waking_ = 0;
};

}  // namespace causeway::testing
