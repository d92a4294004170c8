// Time by state along critical paths without walking them (graph::PathStateTimes), checked
// against the walked paths (CriticalPathFinder + Summarize) on real traces: every thread's
// whole life, then random ranges that reuse the sums stored for the other threads.
#include <algorithm>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "analysis/kernel_analysis.h"
#include "graph/critical_path.h"
#include "graph/path_state_times.h"

namespace causeway {
namespace {

using graph::WorkerId;

void ExpectSame(const graph::StateTimesArray& got, const graph::CriticalPath& path,
                const std::string& what) {
  const graph::PathSummary summary = graph::Summarize(path);
  int64_t total = 0;
  for (int s = 0; s < graph::kNumStates; ++s) {
    EXPECT_EQ(got[s], summary.by_state[s])
        << what << ": time in " << graph::StateName(static_cast<graph::State>(s));
    total += got[s];
  }
  EXPECT_EQ(total, path.end - path.begin) << what;
}

// Returns the number of path segments the walks produced. pool_chunk_bits: see
// PathStateTimes (small chunks fill up, often exactly, many times over).
uint64_t CheckEveryThread(const std::string& trace, uint32_t pool_chunk_bits = 18) {
  auto an = analysis::AnalyzeKernel({std::string(CAUSEWAY_TEST_DATA) + "/traces/" + trace});
  EXPECT_TRUE(an.ok()) << an.status().ToString();
  if (!an.ok()) return 0;
  const graph::ExecutionGraph& g = (*an)->graph;
  EXPECT_GT(g.num_workers(), 1u);
  graph::PathStateTimes times(g, pool_chunk_bits);
  graph::CriticalPathFinder finder(g);
  graph::CriticalPath path;
  uint64_t segments = 0;
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    finder.Compute(w, INT64_MIN, INT64_MAX, &path);
    ExpectSame(times.Of(w, INT64_MIN, INT64_MAX), path,
               trace + " whole life of tid " + std::to_string(g.worker(w).tid));
    segments += path.segments.size();
  }
  std::mt19937_64 rng(11);
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    const int64_t lo = g.worker(w).start(), hi = g.WorkerEnd(w);
    if (hi <= lo) continue;
    for (int k = 0; k < 3; ++k) {
      const int64_t x = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
      const int64_t y = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
      finder.Compute(w, std::min(x, y), std::max(x, y), &path);
      ExpectSame(times.Of(w, std::min(x, y), std::max(x, y)), path,
                 trace + " tid " + std::to_string(g.worker(w).tid) + " over [" +
                     std::to_string(std::min(x, y)) + ", " + std::to_string(std::max(x, y)) + "]");
    }
  }
  EXPECT_GT(times.memory_bytes(), 0u);
  return segments;
}

TEST(PathStateTimes, EveryThreadOfManyThreadsMatchesItsWalkedPath) {
  EXPECT_GT(CheckEveryThread("lttng/many-threads"), 10000u);
}

// The stored sums in chunks of 16 and 32 words: thousands of chunk changes, many of them at a
// chunk filled to its last word (a boundary case that once pointed past the last chunk).
TEST(PathStateTimes, TinySumChunksGiveTheSameTimes) {
  EXPECT_GT(CheckEveryThread("lttng/many-threads", 4), 10000u);
  EXPECT_GT(CheckEveryThread("lttng/many-threads", 5), 10000u);
}

TEST(PathStateTimes, EveryThreadOfAPerfRecordingMatchesItsWalkedPath) {
  EXPECT_GT(CheckEveryThread("perf-sched"), 0u);
}

TEST(PathStateTimes, EveryThreadOfBug446190MatchesItsWalkedPath) {
  EXPECT_GT(CheckEveryThread("lttng/bug446190"), 0u);
}

}  // namespace
}  // namespace causeway
