// The critical path on a live recording by perf (`perf record` + `perf data convert
// --to-ctf`): a shell that runs two 50 ms sleeps spends its time waiting for them.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "analysis/kernel_analysis.h"
#include "graph/critical_path.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

bool RecordAndCheck() {
  TempDir tmp;
  const std::string data = tmp.path() + "/perf.data", ctf = tmp.path() + "/ctf";
  // perf restores the machine's tracing state when it exits, but for the tracefs mount (the
  // guard's).
  PerfTracefsGuard tracefs;
  CommandResult rec = RunCommand(
      "perf record -q -a -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new "
      "-e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit "
      "-e irq:irq_handler_entry -e irq:irq_handler_exit -e irq:softirq_entry "
      "-e irq:softirq_exit -e timer:hrtimer_expire_entry -e timer:hrtimer_expire_exit -o '" +
      data + "' -- sh -c 'sleep 0.05; sleep 0.05'");
  EXPECT_EQ(rec.exit_code, 0) << "perf record failed";
  if (rec.exit_code != 0) return false;
  CommandResult conv = RunCommand("perf data convert -i '" + data + "' --to-ctf '" + ctf + "'");
  EXPECT_EQ(conv.exit_code, 0) << "perf data convert --to-ctf failed";
  if (conv.exit_code != 0) return false;

  auto a = analysis::AnalyzeKernel({ctf});
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return false;
  const graph::ExecutionGraph& g = (*a)->graph;
  graph::CriticalPathFinder finder(g);
  bool found = false;
  for (graph::WorkerId w = 0; w < g.num_workers(); ++w) {
    const graph::CriticalPath p = finder.Compute(w, INT64_MIN, INT64_MAX);
    // Every path tiles its thread's life.
    int64_t at = p.begin;
    for (const auto& s : p.segments) {
      EXPECT_EQ(s.start, at) << "thread " << g.worker(w).tid;
      if (s.start != at) return false;
      at = s.end;
    }
    EXPECT_EQ(at, p.end) << "thread " << g.worker(w).tid;
    if (g.worker(w).name != "sh") continue;
    std::set<graph::WorkerId> sleeps;
    int64_t on_sleeps = 0;
    for (const auto& s : p.segments)
      if (g.worker(s.worker).name == "sleep") {
        sleeps.insert(s.worker);
        on_sleeps += s.end - s.start;
      }
    // What the sleeps' own time is labelled depends on perf recording their timer wake-ups:
    // on this VM perf sometimes drops events of an idle CPU (then they are UNKNOWN). That
    // the shell waited on its two children holds either way.
    if (sleeps.size() == 2 && on_sleeps >= 80'000'000) found = true;
  }
  return found;
}

TEST(KernelPerfCritpathTest, ShellWaitingForTwoSleepsWaitsThroughTheChildren) {
  if (geteuid() != 0)
    GTEST_SKIP() << "system-wide perf recording needs root; skipped (not counted as passed)";
  ASSERT_TRUE(HaveProgram("perf")) << "perf is missing: run scripts/setup.sh";
  // perf on this VM sometimes drops a CPU's events around idle (then the shell's wake-up
  // by its child is missing and its wait is honestly UNKNOWN). Such a recording says
  // nothing about the analysis, so up to three recordings are made; each attempt's trace
  // must still tile, and one must show the shell waiting on both children.
  bool found = false;
  for (int attempt = 1; attempt <= 3 && !found; ++attempt) {
    SCOPED_TRACE("recording " + std::to_string(attempt));
    found = RecordAndCheck();
    if (!found) std::printf("recording %d: the shell's path does not reach both sleeps\n", attempt);
  }
  EXPECT_TRUE(found) << "no `sh` whose critical path runs >= 80 ms through its two `sleep` "
                        "children";
}

}  // namespace
}  // namespace causeway::testing
