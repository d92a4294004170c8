// Merged critical paths (seed 000 Alg. 2): shared states stored once, and every path (and
// every sub-range of it) recovered exactly as the single-thread algorithm gives it.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/kernel_analysis.h"
#include "graph/merged_paths.h"
#include "support/kernel_scenario.h"

namespace causeway {
namespace {

using graph::MergedPaths;
using graph::PathRange;
using graph::PathSegment;
using graph::State;
using graph::WorkerId;
using testing::KernelScenario;

std::string Segments(const graph::ExecutionGraph& g, const std::vector<PathSegment>& v) {
  std::string out;
  for (const PathSegment& s : v) {
    if (!out.empty()) out += " | ";
    out += std::to_string(g.worker(s.worker).tid) + "@" + std::to_string(s.start) + "-" +
           std::to_string(s.end) + " " + std::string(graph::StateName(s.state));
    if (s.qualifier) out += "(" + std::string(g.str(s.qualifier)) + ")";
  }
  return out;
}

// The nodes of a path, "tid@start-end xPATHS".
std::string Nodes(const graph::ExecutionGraph& g, const MergedPaths& m, size_t path) {
  std::string out;
  for (uint32_t n : m.paths[path].nodes) {
    const graph::MergedNode& node = m.nodes[n];
    if (!out.empty()) out += " | ";
    out += std::to_string(g.worker(node.worker).tid) + "@" + std::to_string(node.start) + "-" +
           std::to_string(node.end) + " x" + std::to_string(node.paths);
  }
  return out;
}

std::vector<graph::PathLink> LinksIn(const graph::MergedPath& p, int64_t begin, int64_t end) {
  std::vector<graph::PathLink> out;
  for (const auto& l : p.links)
    if (l.to_ts > begin && l.to_ts <= end) out.push_back(l);
  return out;
}

bool SameLinks(const std::vector<graph::PathLink>& a, const std::vector<graph::PathLink>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].from != b[i].from || a[i].to != b[i].to || a[i].from_ts != b[i].from_ts ||
        a[i].to_ts != b[i].to_ts || a[i].kind != b[i].kind)
      return false;
  return true;
}

// Seed 000 Figure 6: C holds mutex M; A asks for it, then B; C releases it to A, A to B.
constexpr const char* kFigure6 = R"(
  0 cpu0 switch 0 -> 1:a
  0 cpu1 switch 0 -> 2:b
  0 cpu2 switch 0 -> 3:c
  10 cpu0 switch 1 S -> 0      # (1) A requests M
  20 cpu1 switch 2 S -> 0      # (2) B requests M
  30 cpu2 waking 1             # (3) C releases M, A locks it
  30 cpu0 switch 0 -> 1
  50 cpu0 waking 2             # (4) A releases M, B locks it
  50 cpu1 switch 0 -> 2
  end 80                       # (5)
)";

TEST(MergedPaths, Figure6ThreeThreadsShareTheLockHoldersStatesOnce) {
  KernelScenario k(kFigure6);
  const graph::ExecutionGraph& g = k.graph();
  const WorkerId a = k.Worker(1), b = k.Worker(2), c = k.Worker(3);
  const MergedPaths m = graph::MergeCriticalPaths(g, {{a, 0, 80}, {b, 0, 80}, {c, 0, 80}});
  ASSERT_EQ(m.paths.size(), 3u);
  // Each thread's path, as the single-thread algorithm computes it.
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[0], 0, 80)),
            "1@0-10 RUNNING | 3@10-30 RUNNING | 1@30-80 RUNNING");
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[1], 0, 80)),
            "2@0-20 RUNNING | 3@20-30 RUNNING | 1@30-50 RUNNING | 2@50-80 RUNNING");
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[2], 0, 80)), "3@0-80 RUNNING");
  // C's running time from 20 to 30 is on all three paths and stored once; from 10 to 20 on
  // A's and C's; A's from 30 to 50 on A's and B's (B waits for A to release M).
  EXPECT_EQ(Nodes(g, m, 0), "1@0-10 x1 | 3@10-20 x2 | 3@20-30 x3 | 1@30-50 x2 | 1@50-80 x1");
  EXPECT_EQ(Nodes(g, m, 1), "2@0-20 x1 | 3@20-30 x3 | 1@30-50 x2 | 2@50-80 x1");
  EXPECT_EQ(Nodes(g, m, 2), "3@0-10 x1 | 3@10-20 x2 | 3@20-30 x3 | 3@30-80 x1");
  EXPECT_EQ(m.paths[0].nodes[2], m.paths[1].nodes[1]);
  EXPECT_EQ(m.paths[1].nodes[1], m.paths[2].nodes[2]);
  EXPECT_EQ(m.segments, 8u);
  EXPECT_EQ(m.pieces, 13u);
  EXPECT_EQ(m.nodes.size(), 9u);
  EXPECT_EQ(m.shared_nodes, 3u);
  EXPECT_EQ(m.shared_ns, 10u + 2 * 10u + 20u);
  // B's path over a sub-range is the slice of its merged path.
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[1], 25, 60)),
            "3@25-30 RUNNING | 1@30-50 RUNNING | 2@50-60 RUNNING");
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[1], 25, 60)),
            Segments(g, graph::CriticalPathFinder(g).Compute(b, 25, 60).segments));
  EXPECT_TRUE(SameLinks(LinksIn(m.paths[1], 25, 60),
                        graph::CriticalPathFinder(g).Compute(b, 25, 60).links));
}

// Figure 6 in seconds: segments longer than 2^32 ns (4.29 s) are merged as the short ones.
TEST(MergedPaths, SegmentsLongerThanFourSecondsMergeAsTheShortOnes) {
  constexpr int64_t kS = 1'000'000'000;
  KernelScenario k(R"(
    0 cpu0 switch 0 -> 1:a
    0 cpu1 switch 0 -> 2:b
    0 cpu2 switch 0 -> 3:c
    10000000000 cpu0 switch 1 S -> 0
    20000000000 cpu1 switch 2 S -> 0
    30000000000 cpu2 waking 1
    30000000000 cpu0 switch 0 -> 1
    50000000000 cpu0 waking 2
    50000000000 cpu1 switch 0 -> 2
    end 80000000000
  )");
  const graph::ExecutionGraph& g = k.graph();
  const WorkerId a = k.Worker(1), b = k.Worker(2), c = k.Worker(3);
  const MergedPaths m =
      graph::MergeCriticalPaths(g, {{a, 0, 80 * kS}, {b, 0, 80 * kS}, {c, 0, 80 * kS}});
  auto at = [](int64_t s) { return std::to_string(s * kS); };
  EXPECT_EQ(Nodes(g, m, 0), "1@0-" + at(10) + " x1 | 3@" + at(10) + "-" + at(20) + " x2 | 3@" +
                                at(20) + "-" + at(30) + " x3 | 1@" + at(30) + "-" + at(50) +
                                " x2 | 1@" + at(50) + "-" + at(80) + " x1");
  EXPECT_EQ(Nodes(g, m, 1), "2@0-" + at(20) + " x1 | 3@" + at(20) + "-" + at(30) + " x3 | 1@" +
                                at(30) + "-" + at(50) + " x2 | 2@" + at(50) + "-" + at(80) + " x1");
  EXPECT_EQ(Nodes(g, m, 2), "3@0-" + at(10) + " x1 | 3@" + at(10) + "-" + at(20) + " x2 | 3@" +
                                at(20) + "-" + at(30) + " x3 | 3@" + at(30) + "-" + at(80) + " x1");
  EXPECT_EQ(m.nodes.size(), 9u);
  EXPECT_EQ(m.shared_ns, static_cast<uint64_t>((10 + 2 * 10 + 20) * kS));
  EXPECT_EQ(Segments(g, graph::SlicePath(m, m.paths[1], 25 * kS, 60 * kS)),
            Segments(g, graph::CriticalPathFinder(g).Compute(b, 25 * kS, 60 * kS).segments));
}

TEST(MergedPaths, WithoutLinksThePathsAreTheSameAndHoldNoLinks) {
  KernelScenario k(kFigure6);
  const graph::ExecutionGraph& g = k.graph();
  const std::vector<PathRange> ranges = {{k.Worker(1), 0, 80}, {k.Worker(2), 0, 80}};
  const MergedPaths with = graph::MergeCriticalPaths(g, ranges);
  const MergedPaths without = graph::MergeCriticalPaths(g, ranges, {.links = false});
  ASSERT_EQ(without.paths.size(), 2u);
  EXPECT_FALSE(with.paths[1].links.empty());  // B is woken by A
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_TRUE(without.paths[p].links.empty());
    EXPECT_EQ(Nodes(g, without, p), Nodes(g, with, p));
  }
  EXPECT_EQ(without.nodes.size(), with.nodes.size());
}

TEST(MergedPaths, MergeRangesJoinsOverlappingRangesOfOneThread) {
  const auto r = graph::MergeRanges(
      {{2, 50, 60}, {1, 10, 20}, {1, 15, 30}, {1, 30, 40}, {1, 45, 50}, {2, 0, 5}});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ((std::tuple{r[0].worker, r[0].begin, r[0].end}),
            (std::tuple{1u, int64_t{10}, int64_t{40}}));
  EXPECT_EQ((std::tuple{r[1].worker, r[1].begin, r[1].end}),
            (std::tuple{1u, int64_t{45}, int64_t{50}}));
  EXPECT_EQ((std::tuple{r[2].worker, r[2].begin, r[2].end}),
            (std::tuple{2u, int64_t{0}, int64_t{5}}));
  EXPECT_EQ((std::tuple{r[3].worker, r[3].begin, r[3].end}),
            (std::tuple{2u, int64_t{50}, int64_t{60}}));
}

// `per_thread` random ranges (possibly overlapping) within the life of every thread that
// lived some time.
std::vector<PathRange> RandomRangesOnEveryThread(const graph::ExecutionGraph& g, int per_thread,
                                                 std::mt19937_64* rng) {
  std::vector<PathRange> out;
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    const int64_t lo = g.worker(w).start(), hi = g.WorkerEnd(w);
    if (hi <= lo) continue;
    for (int i = 0; i < per_thread; ++i) {
      const int64_t x = lo + static_cast<int64_t>((*rng)() % static_cast<uint64_t>(hi - lo + 1));
      const int64_t y = lo + static_cast<int64_t>((*rng)() % static_cast<uint64_t>(hi - lo + 1));
      out.push_back({w, std::min(x, y), std::max(x, y)});
    }
  }
  return out;
}

// On a real trace: random overlapping ranges on every thread that ran, merged per thread;
// every range's slice equals the path computed over that range alone (segments and links),
// and the merged nodes of one (thread, state) never overlap.
TEST(MergedPaths, EverySliceOfARealTraceEqualsThePathOfItsRange) {
  auto an =
      analysis::AnalyzeKernel({std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/many-threads"});
  ASSERT_TRUE(an.ok()) << an.status().ToString();
  const graph::ExecutionGraph& g = (*an)->graph;
  std::mt19937_64 rng(7);
  const std::vector<PathRange> wanted = RandomRangesOnEveryThread(g, 4, &rng);
  ASSERT_GT(wanted.size(), 100u);
  const std::vector<PathRange> ranges = graph::MergeRanges(wanted);
  const MergedPaths m = graph::MergeCriticalPaths(g, ranges);
  ASSERT_EQ(m.paths.size(), ranges.size());
  EXPECT_GT(m.shared_nodes, 0u);
  EXPECT_LT(m.nodes.size(), m.pieces);

  graph::CriticalPathFinder finder(g);
  graph::CriticalPath direct;
  size_t checked = 0;
  for (const PathRange& r : wanted) {
    auto it = std::find_if(ranges.begin(), ranges.end(), [&](const PathRange& x) {
      return x.worker == r.worker && x.begin <= r.begin && r.end <= x.end;
    });
    ASSERT_NE(it, ranges.end());
    const graph::MergedPath& p = m.paths[static_cast<size_t>(it - ranges.begin())];
    finder.Compute(r.worker, r.begin, r.end, &direct);
    ASSERT_EQ(Segments(g, graph::SlicePath(m, p, r.begin, r.end)), Segments(g, direct.segments))
        << "thread " << g.worker(r.worker).tid << " over [" << r.begin << ", " << r.end << "]";
    ASSERT_TRUE(SameLinks(LinksIn(p, direct.begin, direct.end), direct.links))
        << "thread " << g.worker(r.worker).tid << " over [" << r.begin << ", " << r.end << "]";
    ++checked;
  }
  EXPECT_EQ(checked, wanted.size());

  // Nodes of one (thread, state, qualifier) are equal or disjoint; every path tiles.
  std::vector<const graph::MergedNode*> by_key;
  for (const auto& n : m.nodes) by_key.push_back(&n);
  std::sort(by_key.begin(), by_key.end(), [](const auto* x, const auto* y) {
    return std::tie(x->worker, x->state, x->qualifier, x->start) <
           std::tie(y->worker, y->state, y->qualifier, y->start);
  });
  for (size_t i = 1; i < by_key.size(); ++i) {
    const auto* x = by_key[i - 1];
    const auto* y = by_key[i];
    if (x->worker == y->worker && x->state == y->state && x->qualifier == y->qualifier) {
      ASSERT_LE(x->end, y->start);
    }
  }
  for (const auto& p : m.paths) {
    int64_t at = p.range.begin;
    for (uint32_t n : p.nodes) {
      ASSERT_EQ(m.nodes[n].start, at);
      at = m.nodes[n].end;
    }
    if (!p.nodes.empty()) {
      EXPECT_EQ(at, p.range.end);
    }
  }
}

// The listings' way (requests/README.md): each path taken as it is computed, without node
// lists. The counts are those of the full merge, and slicing a computed path gives what
// slicing its merged nodes gives, for random sub-ranges of every range.
TEST(MergedPaths, PathsTakenAsComputedSliceAsTheMergedNodes) {
  auto an =
      analysis::AnalyzeKernel({std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/many-threads"});
  ASSERT_TRUE(an.ok()) << an.status().ToString();
  const graph::ExecutionGraph& g = (*an)->graph;
  std::mt19937_64 rng(11);
  const std::vector<PathRange> wanted = RandomRangesOnEveryThread(g, 3, &rng);
  const std::vector<PathRange> ranges = graph::MergeRanges(wanted);
  const MergedPaths full = graph::MergeCriticalPaths(g, ranges);
  std::vector<graph::CriticalPath> computed;
  graph::MergeOptions options{.links = false, .keep_nodes = false};
  options.on_path = [&](size_t i, const graph::CriticalPath& cp) {
    EXPECT_EQ(i, computed.size());  // each range once, in order
    computed.push_back(cp);
  };
  const MergedPaths lean = graph::MergeCriticalPaths(g, ranges, options);
  ASSERT_EQ(computed.size(), ranges.size());
  ASSERT_EQ(lean.paths.size(), full.paths.size());
  EXPECT_TRUE(lean.nodes.empty());
  EXPECT_EQ(lean.num_nodes, full.nodes.size());
  EXPECT_EQ(full.num_nodes, full.nodes.size());
  EXPECT_EQ(lean.segments, full.segments);
  EXPECT_EQ(lean.pieces, full.pieces);
  EXPECT_EQ(lean.shared_nodes, full.shared_nodes);
  EXPECT_EQ(lean.shared_ns, full.shared_ns);
  EXPECT_GT(lean.shared_nodes, 0u);
  std::vector<graph::PathSegment> slice;
  size_t checked = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_TRUE(lean.paths[i].nodes.empty());
    EXPECT_EQ(lean.paths[i].range.begin, full.paths[i].range.begin);
    EXPECT_EQ(lean.paths[i].range.end, full.paths[i].range.end);
    const int64_t lo = ranges[i].begin, hi = ranges[i].end;
    for (int k = 0; k < 4; ++k) {
      // Sub-ranges inside the range, and ones reaching past either end (clipped).
      const int64_t span = hi - lo + 1;
      const int64_t x =
          lo - span / 4 + static_cast<int64_t>(rng() % static_cast<uint64_t>(span + span / 2));
      const int64_t y =
          lo - span / 4 + static_cast<int64_t>(rng() % static_cast<uint64_t>(span + span / 2));
      const int64_t b = std::min(x, y), e = std::max(x, y);
      graph::SliceCriticalPath(computed[i], b, e, &slice);
      ASSERT_EQ(Segments(g, slice), Segments(g, graph::SlicePath(full, full.paths[i], b, e)))
          << "range " << i << " sliced over [" << b << ", " << e << "]";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 * ranges.size());
}

}  // namespace
}  // namespace causeway
