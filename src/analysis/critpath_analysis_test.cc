#include "analysis/critpath_analysis.h"

#include <gtest/gtest.h>

#include "graph/thread_lookup.h"
#include "support/kernel_scenario.h"

namespace causeway::analysis {
namespace {

using testing::KernelScenario;

// Thread 9 exits at 7; the kernel gives its tid to a new thread at 20.
const char* const kTidReused = R"(
    0 cpu0 switch 0 -> 1
    5 cpu0 fork 1 -> 9
    6 cpu0 switch 1 R -> 9
    7 cpu0 exit 9
    8 cpu0 switch 9 X -> 1
    20 cpu0 fork 1 -> 9
    21 cpu0 switch 1 R -> 9
    end 30
  )";

TEST(ThreadLookupTest, ATidNamesTheThreadAliveAtThatTime) {
  KernelScenario s(kTidReused);
  const graph::ThreadLookup threads(s.graph(), graph::ThreadLookup::kAllHosts);
  const std::vector<graph::WorkerId> both = threads.Find(9, INT64_MIN, INT64_MAX);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(threads.At(9, 6), both[0]);
  EXPECT_EQ(threads.At(9, 25), both[1]);
  EXPECT_EQ(both[1], s.Worker(9));
  EXPECT_EQ(threads.At(9, 12), graph::kNoWorker);
  EXPECT_EQ(threads.At(42, 6), graph::kNoWorker);
  EXPECT_EQ(threads.Find(9, 10, 15).size(), 0u);
  EXPECT_EQ(threads.Find(9, 15, 20), std::vector<graph::WorkerId>{both[1]});
}

TEST(CritpathAnalysisTest, AReusedTidIsAskedToBeNarrowed) {
  KernelScenario s(kTidReused);
  ThreadPathQuery q;
  q.tid = 9;
  auto both = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), StatusCode::kInvalidArgument);
  const std::string msg = both.status().ToString();
  EXPECT_NE(msg.find("tid 9 is 2 different threads; choose one with --host or --begin/--end:\n"
                     "  host A: tid 9 from "),
            std::string::npos)
      << msg;

  q.begin = 15;
  auto second = AnalyzeThreadPath(s.graph(), q);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->worker, s.Worker(9));
  EXPECT_EQ(second->path.worker, s.Worker(9));
  EXPECT_FALSE(second->path.segments.empty());
}

TEST(CritpathAnalysisTest, UnknownThreadsAndHostsSayWhatThereIs) {
  KernelScenario s(kTidReused);
  ThreadPathQuery q;
  q.tid = 42;
  auto none = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().ToString(),
            "tid 42 does not run in the traces (see `causeway threads` for the threads there are)");
  q.tid = 9;
  q.begin = 10;
  q.end = 15;
  auto gap = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.status().ToString().find("tid 9 does not run in the traces in that time range"),
            std::string::npos);
  q = {};
  q.tid = 1;
  q.host = "nowhere";
  auto host = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().ToString(), "no host 'nowhere' in the traces (hosts: A)");
  q.host = "A";
  EXPECT_TRUE(AnalyzeThreadPath(s.graph(), q).ok());
}

}  // namespace
}  // namespace causeway::analysis
