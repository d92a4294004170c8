// System calls in the kernel event stream (kernel::Kind::kSyscallEntry / kSyscallExit): read
// from the recorder's layout (id with the syscall enum), LTTng's (the call in the class
// name) and perf's (raw_syscalls:sys_enter / sys_exit), handed to an observer of the
// analysis, and ignored by the model: the graph is the same with or without them.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/kernel_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "kernel/syscall_names.h"
#include "support/kernel_scenario.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using ctf::FieldKind;
using kernel::Kind;
using kernel::LttngEvent;

constexpr int64_t kBase = 1'000'000'000'000;

// "+10 entry openat(257) tid 1" per system call event, ts relative to kBase; the tid is the
// event's own (perf) or the CPU's current task as the model holds it.
class SyscallLog : public kernel::KernelEventObserver {
 public:
  void Start(const kernel::KernelModel& model, const graph::ExecutionGraph&) override {
    model_ = &model;
  }
  void OnEvent(const kernel::KernelEvent& e) override {
    ++events;
    if (e.kind != Kind::kSyscallEntry && e.kind != Kind::kSyscallExit) return;
    const int tid = e.current_tid >= 0 ? e.current_tid : model_->CurrentTask(e.host, e.cpu);
    std::string line = fmt::format("+{} {} {}({}) tid {}", e.ts - kBase,
                                   e.kind == Kind::kSyscallEntry ? "entry" : "exit", e.Name(),
                                   e.syscall_id(), tid);
    if (e.kind == Kind::kSyscallExit) line += fmt::format(" = {}", e.syscall_ret);
    lines.push_back(line);
  }
  void Finish(int64_t end) override { finished_at = end; }

  std::vector<std::string> lines;
  uint64_t events = 0;
  int64_t finished_at = 0;

 private:
  const kernel::KernelModel* model_ = nullptr;
};

// Analyzes `dir` with and without the observer; the graphs must be the same.
std::vector<std::string> SyscallsOf(const std::string& dir) {
  SyscallLog log;
  analysis::KernelAnalysisOptions with;
  with.observer = &log;
  auto a = analysis::AnalyzeKernel({dir}, with);
  auto b = analysis::AnalyzeKernel({dir});
  EXPECT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
  if (!a.ok() || !b.ok()) return {};
  const graph::ExecutionGraph& ga = (*a)->graph;
  const graph::ExecutionGraph& gb = (*b)->graph;
  EXPECT_EQ(ga.num_workers(), gb.num_workers());
  EXPECT_EQ(ga.num_vertices(), gb.num_vertices());
  EXPECT_EQ((*a)->end, (*b)->end) << "system calls do not extend the analysis";
  EXPECT_EQ((*a)->counters.events, (*b)->counters.events) << "the model never sees them";
  for (graph::WorkerId w = 0; w < ga.num_workers() && w < gb.num_workers(); ++w)
    EXPECT_EQ(testing::PathString(ga, w, INT64_MIN, INT64_MAX, kBase),
              testing::PathString(gb, w, INT64_MIN, INT64_MAX, kBase));
  EXPECT_EQ(log.finished_at, (*a)->end);
  EXPECT_GT(log.events, log.lines.size()) << "the model's events go to the observer too";
  return log.lines;
}

TEST(KernelSyscallsTest, RecorderLayoutNamesTheCallByItsId) {
  if (kernel::SyscallNames().empty()) GTEST_SKIP() << "no syscall names on this architecture";
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    auto w = ctf::CtfWriter::Create(tmp.path() + "/kernel", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    testing::LttngKernelWriter k(**w, /*syscalls=*/true);
    ASSERT_TRUE(k.status().ok()) << k.status().ToString();
    k.SchedSwitch(0, kBase, "swapper", 0, 0, "app", 7);
    k.Begin(0, LttngEvent::kSyscallEntry, kBase + 10).S64(257);  // openat
    k.Begin(0, LttngEvent::kSyscallExit, kBase + 20).S64(257).S64(3);
    k.Begin(0, LttngEvent::kSyscallEntry, kBase + 30).S64(100000);  // no such call
    k.SchedSwitch(0, kBase + 40, "app", 7, 1, "swapper", 0);
    k.Begin(0, LttngEvent::kSyscallExit, kBase + 50).S64(100000).S64(-11);
    ASSERT_TRUE((*w)->Close().ok());
  }
  EXPECT_EQ(
      SyscallsOf(tmp.path()),
      (std::vector<std::string>{"+10 entry openat(257) tid 7", "+20 exit openat(257) tid 7 = 3",
                                "+30 entry (100000) tid 7", "+50 exit (100000) tid 0 = -11"}));
}

TEST(KernelSyscallsTest, LttngLayoutNamesTheCallInTheClassName) {
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    auto w = ctf::CtfWriter::Create(tmp.path() + "/kernel", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ctf::CtfWriter& cw = **w;
    testing::LttngKernelWriter k(cw);
    ASSERT_TRUE(k.status().ok()) << k.status().ToString();
    const uint32_t entry = *cw.AddEventClass("syscall_entry_fsync", {{"fd", FieldKind::kU32}});
    const uint32_t exit = *cw.AddEventClass("syscall_exit_fsync", {{"ret", FieldKind::kS64}});
    const uint32_t compat =
        *cw.AddEventClass("compat_syscall_entry_read", {{"fd", FieldKind::kU32}});
    const uint32_t unknown = *cw.AddEventClass(
        "syscall_entry_unknown", {{"id", FieldKind::kS32}, {"args", FieldKind::kU64}});
    k.SchedSwitch(1, kBase, "swapper", 0, 0, "db", 9);
    cw.Begin(1, entry, kBase + 5).U32(4);
    cw.Begin(1, exit, kBase + 8).S64(0);
    cw.Begin(1, compat, kBase + 9).U32(4);
    cw.Begin(1, unknown, kBase + 12).S32(1).U64(0);
    k.SchedSwitch(1, kBase + 20, "db", 9, 0, "swapper", 0);
    ASSERT_TRUE(cw.Close().ok());
  }
  const std::string write_name(kernel::SyscallNames().empty() ? "" : "write");
  EXPECT_EQ(SyscallsOf(tmp.path()),
            (std::vector<std::string>{"+5 entry fsync(-1) tid 9", "+8 exit fsync(-1) tid 9 = 0",
                                      "+9 entry read(-1) tid 9",
                                      fmt::format("+12 entry {}(1) tid 9", write_name)}));
}

TEST(KernelSyscallsTest, PerfLayoutGivesTheIdAndTheCurrentTask) {
  if (kernel::SyscallNames().empty()) GTEST_SKIP() << "no syscall names on this architecture";
  testing::TempDir tmp;
  {
    ctf::TraceOptions opts;
    opts.tracer_name = "perf";
    auto w = ctf::CtfWriter::Create(tmp.path() + "/ctf", opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ctf::CtfWriter& cw = **w;
    const std::vector<ctf::FieldSpec> common = {{"perf_tid", FieldKind::kS32},
                                                {"common_flags", FieldKind::kU32},
                                                {"common_pid", FieldKind::kS32}};
    auto with = [&](std::vector<ctf::FieldSpec> more) {
      std::vector<ctf::FieldSpec> f = common;
      f.insert(f.end(), more.begin(), more.end());
      return f;
    };
    const uint32_t sw =
        *cw.AddEventClass("sched:sched_switch", with({{"prev_comm", FieldKind::kString},
                                                      {"prev_pid", FieldKind::kS32},
                                                      {"prev_state", FieldKind::kS64},
                                                      {"next_comm", FieldKind::kString},
                                                      {"next_pid", FieldKind::kS32}}));
    const uint32_t enter =
        *cw.AddEventClass("raw_syscalls:sys_enter", with({{"id", FieldKind::kS64}}));
    const uint32_t leave = *cw.AddEventClass(
        "raw_syscalls:sys_exit", with({{"id", FieldKind::kS64}, {"ret", FieldKind::kS64}}));
    cw.Begin(0, sw, kBase).S32(0).U32(0).S32(0).String("swapper").S32(0).S64(0).String("w").S32(12);
    cw.Begin(0, enter, kBase + 3).S32(12).U32(0).S32(12).S64(0);  // read
    cw.Begin(0, leave, kBase + 4).S32(12).U32(0).S32(12).S64(0).S64(512);
    cw.Begin(0, sw, kBase + 10)
        .S32(12)
        .U32(0)
        .S32(12)
        .String("w")
        .S32(12)
        .S64(1)
        .String("swapper")
        .S32(0);
    ASSERT_TRUE(cw.Close().ok());
  }
  EXPECT_EQ(SyscallsOf(tmp.path()),
            (std::vector<std::string>{"+3 entry read(0) tid 12", "+4 exit read(0) tid 12 = 512"}));
}

}  // namespace
}  // namespace causeway
