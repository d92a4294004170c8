#include "analysis/critpath_analysis.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "graph/thread_lookup.h"
#include "support/kernel_scenario.h"

namespace causeway::analysis {
namespace {

using testing::KernelScenario;

// Tid 7 is three threads: on host A one that exits at 12 and, from 20, the one the kernel
// gave its tid to next; on host B a server that runs throughout.
const char* const kTidSeveralTimes = R"(
    host A
    0 cpu0 switch 0 -> 1:main
    10 cpu0 fork 1 -> 7:first
    11 cpu0 switch 1 R -> 7
    12 cpu0 exit 7
    13 cpu0 switch 7 X -> 1
    20 cpu0 fork 1 -> 7:second
    24 cpu0 switch 1 R -> 7
    host B
    0 cpu0 switch 0 -> 7:server
    end 40
  )";

TEST(ThreadLookupTest, ATidNamesTheThreadAliveAtThatTimeOnItsHost) {
  KernelScenario s(kTidSeveralTimes);
  const auto& hosts = s.graph().hosts();
  const graph::ThreadLookup a(
      s.graph(), static_cast<uint32_t>(std::find(hosts.begin(), hosts.end(), "A") - hosts.begin()));
  const std::vector<graph::WorkerId> on_a = a.Find(7, INT64_MIN, INT64_MAX);
  ASSERT_EQ(on_a.size(), 2u);
  EXPECT_EQ(a.At(7, 11), on_a[0]);
  EXPECT_EQ(a.At(7, 30), on_a[1]);
  EXPECT_EQ(on_a[1], s.Worker(7, "A"));
  EXPECT_EQ(a.At(7, 15), graph::kNoWorker);
  EXPECT_EQ(a.At(42, 11), graph::kNoWorker);
  EXPECT_TRUE(a.Find(7, 14, 18).empty());
  EXPECT_EQ(a.Find(7, 15, 20), std::vector<graph::WorkerId>{on_a[1]});
  const graph::ThreadLookup all(s.graph(), graph::ThreadLookup::kAllHosts);
  EXPECT_EQ(all.Find(7, INT64_MIN, INT64_MAX).size(), 3u);
  EXPECT_EQ(all.Find(7, 14, 18), std::vector<graph::WorkerId>{s.Worker(7, "B")});
}

TEST(CritpathAnalysisTest, AnAmbiguousTidListsItsThreadsUntilHostAndRangeNarrowIt) {
  KernelScenario s(kTidSeveralTimes);
  ThreadPathQuery q;
  q.tid = 7;
  auto three = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.status().code(), StatusCode::kInvalidArgument);
  const std::string msg = three.status().ToString();
  EXPECT_EQ(
      msg.rfind("tid 7 is 3 different threads; choose one with --host or --begin/--end:\n", 0), 0u)
      << msg;
  for (const char* line : {"\n  host A: A/7 (first) from 0.000000010 to 0.000000013",
                           "\n  host A: A/7 (second) from 0.000000020 to 0.000000040",
                           "\n  host B: B/7 (server) from 0.000000000 to 0.000000040"})
    EXPECT_NE(msg.find(line), std::string::npos) << msg;

  q.host = "B";
  auto server = AnalyzeThreadPath(s.graph(), q);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(server->worker, s.Worker(7, "B"));
  EXPECT_FALSE(server->path.segments.empty());

  q.host = "A";
  q.begin = 18;
  auto second = AnalyzeThreadPath(s.graph(), q);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->worker, s.Worker(7, "A"));
  EXPECT_EQ(second->path.worker, second->worker);
}

TEST(CritpathAnalysisTest, UnknownThreadsAndHostsSayWhatThereIs) {
  KernelScenario s(kTidSeveralTimes);
  ThreadPathQuery q;
  q.tid = 42;
  auto none = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().ToString(),
            "tid 42 does not run in the traces (see `causeway threads` for the threads there are)");
  q = {.tid = 7, .host = "A", .begin = 14, .end = 18};
  auto gap = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.status().code(), StatusCode::kNotFound);
  EXPECT_NE(gap.status().ToString().find("tid 7 does not run in the traces in that time range"),
            std::string::npos);
  q = {.tid = 1, .host = "C"};
  auto host = AnalyzeThreadPath(s.graph(), q);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().ToString(), "no host 'C' in the traces (hosts: A, B)");
}

}  // namespace
}  // namespace causeway::analysis
