// Who held the CPU while a thread waited for one, on a kernel trace written with our CTF
// writer in the recorder's layout: run-queue competition names the threads that ran on
// that CPU meanwhile; a switch-out by CFS bandwidth control (the recorder's
// sched_cfs_throttle event) names the cgroup whose quota ran out.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/kernel_analysis.h"
#include "ctf/writer/ctf_writer.h"
#include "graph/cpu_holders.h"
#include "graph/critical_path.h"
#include "report/critpath_format.h"
#include "support/lttng_kernel_trace.h"
#include "support/test_util.h"

namespace causeway {
namespace {

constexpr int64_t kBase = 1'000'000'000'000;  // trace times are kBase + scenario time
constexpr int32_t kApp = 10, kHog = 20, kOther = 30, kWaker = 40;

// app (tid 10) on CPU 0:
//   0-100 running; 100-700 preempted, while hog ran 500 ns and other 100 ns;
//   700-1000 running, then blocked; woken at 1100 by waker on CPU 1; waits while other
//   runs on CPU 0 until 1300; runs to 2000;
//   2000-2500 switched out runnable by its cgroup's quota (/demo), CPU 0 idle; runs on.
void WriteTrace(const std::string& dir) {
  ctf::TraceOptions opts;
  opts.hostname = "h";
  auto w = ctf::CtfWriter::Create(dir, opts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  testing::LttngKernelWriter k(**w);
  ASSERT_TRUE(k.status().ok()) << k.status().ToString();
  k.SchedSwitch(1, kBase, "swapper/1", 0, 0, "waker", kWaker);
  k.SchedSwitch(0, kBase, "swapper/0", 0, 0, "app", kApp);
  k.SchedSwitch(0, kBase + 100, "app", kApp, 0, "hog", kHog);
  k.SchedSwitch(0, kBase + 600, "hog", kHog, 1, "other", kOther);
  k.SchedSwitch(0, kBase + 700, "other", kOther, 0, "app", kApp);
  k.SchedSwitch(0, kBase + 1000, "app", kApp, 1, "other", kOther);
  k.SchedWaking(1, kBase + 1100, "app", kApp, 0);
  k.SchedSwitch(0, kBase + 1300, "other", kOther, 1, "app", kApp);
  k.SchedSwitch(0, kBase + 2000, "app", kApp, 0, "swapper/0", 0);
  k.Begin(0, kernel::LttngEvent::kSchedCfsThrottle, kBase + 2000).S32(kApp).U64(77).String("/demo");
  k.SchedSwitch(0, kBase + 2500, "swapper/0", 0, 0, "app", kApp);
  k.SchedSwitch(0, kBase + 3000, "app", kApp, 1, "swapper/0", 0);
  k.SchedSwitch(1, kBase + 3000, "waker", kWaker, 1, "swapper/1", 0);
  const Status closed = (*w)->Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
}

graph::WorkerId Tid(const graph::ExecutionGraph& g, int32_t tid) {
  for (graph::WorkerId x = 0; x < g.num_workers(); ++x)
    if (g.worker(x).tid == tid) return x;
  return graph::kNoWorker;
}

TEST(CpuHoldersTraceTest, PreemptedWaitsNameWhoRanOnTheCpu) {
  testing::TempDir tmp;
  WriteTrace(tmp.path() + "/kernel");
  auto a = analysis::AnalyzeKernel({tmp.path()});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const graph::ExecutionGraph& g = (*a)->graph;
  const graph::WorkerId app = Tid(g, kApp), hog = Tid(g, kHog), other = Tid(g, kOther);
  ASSERT_NE(app, graph::kNoWorker);

  // Preempted: hog then other had CPU 0.
  graph::CpuWait wait = graph::WhoHeldTheCpu(g, app, kBase + 100, kBase + 700);
  EXPECT_EQ(wait.cpu, 0);
  ASSERT_EQ(wait.holders.size(), 2u);
  EXPECT_EQ(wait.holders[0].task, hog);
  EXPECT_EQ(wait.holders[0].ns, 500);
  EXPECT_EQ(wait.holders[1].task, other);
  EXPECT_EQ(wait.holders[1].ns, 100);
  EXPECT_EQ(wait.throttled, 0u);
  // Part of the wait only.
  wait = graph::WhoHeldTheCpu(g, app, kBase + 550, kBase + 650);
  ASSERT_EQ(wait.holders.size(), 2u);
  EXPECT_EQ(wait.holders[0].ns, 50);
  // Woken, then waiting for CPU 0 while other runs.
  wait = graph::WhoHeldTheCpu(g, app, kBase + 1100, kBase + 1300);
  EXPECT_EQ(wait.cpu, 0);
  ASSERT_EQ(wait.holders.size(), 1u);
  EXPECT_EQ(wait.holders[0].task, other);
  EXPECT_EQ(wait.holders[0].ns, 200);
  // Throttled: the CPU idle meanwhile, the cgroup named.
  wait = graph::WhoHeldTheCpu(g, app, kBase + 2000, kBase + 2500);
  ASSERT_EQ(wait.holders.size(), 1u);
  EXPECT_EQ(wait.holders[0].task, graph::kIdleTask);
  ASSERT_NE(wait.throttled, 0u);
  EXPECT_EQ(g.str(wait.throttled), "throttled by cgroup quota (/demo)");
  EXPECT_EQ((*a)->counters.cpu_throttles, 1u);

  graph::CriticalPathFinder finder(g);
  const graph::CriticalPath path = finder.Compute(app, kBase, kBase + 3000);
  const std::string text = report::CriticalPathText(g, path, graph::Summarize(path));
  EXPECT_NE(text.find("CPU 0 held by tid 20 (hog) 500 ns, tid 30 (other) 100 ns"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throttled by cgroup quota (/demo); CPU 0 held by idle 500 ns"),
            std::string::npos)
      << text;
  // Over the path: 1300 ns of waits, 500 of them throttled: the run queue leads.
  EXPECT_NE(text.find("PREEMPTED: waiting for a CPU held by tid 20 (hog) 500 ns, idle 500 ns, "
                      "tid 30 (other) 300 ns; throttled by cgroup quota (/demo) 500 ns"),
            std::string::npos)
      << text;
}

TEST(CpuHoldersTraceTest, CritpathAndThreadsJsonNameTheHolders) {
  testing::TempDir tmp;
  WriteTrace(tmp.path() + "/kernel");
  std::string err;
  auto res = testing::RunCli("critpath " + tmp.path() + " --tid 10 --format json", &err);
  ASSERT_EQ(res.exit_code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(res.out);
  int preempted = 0;
  for (const auto& s : j["segments"]) {
    if (s["state"] != "PREEMPTED") continue;
    ++preempted;
    EXPECT_EQ(s["cpu"], 0) << s.dump();
    ASSERT_FALSE(s["held_by"].empty()) << s.dump();
    if (s["start_ns"] == kBase + 100) {
      EXPECT_EQ(s["held_by"][0]["tid"], kHog);
      EXPECT_EQ(s["held_by"][0]["ns"], 500);
    }
    if (s["start_ns"] == kBase + 2000) {
      EXPECT_EQ(s["qualifier"], "throttled by cgroup quota (/demo)");
      EXPECT_EQ(s["held_by"][0]["idle"], true);
    }
  }
  EXPECT_EQ(preempted, 3) << j.dump(1);
  EXPECT_EQ(j["summary"]["cpu_wait"]["throttled_ns"], 500);
  EXPECT_EQ(j["summary"]["cpu_wait"]["throttled_by"], "throttled by cgroup quota (/demo)");

  res = testing::RunCli("threads " + tmp.path() + " --format json", &err);
  ASSERT_EQ(res.exit_code, 0) << err;
  const nlohmann::json t = nlohmann::json::parse(res.out);
  bool found = false;
  for (const auto& x : t["threads"])
    if (x["tid"] == kApp) {
      found = true;
      EXPECT_EQ(x["cpu_wait"]["ns"], 1300) << x.dump();
      EXPECT_EQ(x["cpu_wait"]["throttled_ns"], 500) << x.dump();
      EXPECT_EQ(x["cpu_wait"]["held_by"][0]["tid"], kHog) << x.dump();
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(t["counters"]["cpu_throttles"], 1);
  res = testing::RunCli("threads " + tmp.path(), &err);
  ASSERT_EQ(res.exit_code, 0) << err;
  EXPECT_NE(res.out.find("waiting for a CPU held by tid 20 (hog) 500 ns, idle 500 ns"),
            std::string::npos)
      << res.out;
}

}  // namespace
}  // namespace causeway
