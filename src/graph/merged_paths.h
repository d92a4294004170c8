// Critical paths of several threads merged into one graph whose shared states are stored
// once (seed 000 Alg. 2).
//
// Threads contending for the same resource share states on their critical paths: when A
// and B both wait for a mutex C holds, C's running time is on both paths (seed 000
// Figure 6). Here every path is computed once per (thread, range) with seed 004's Alg. 2
// (CriticalPathFinder), cut where another path's state on the same thread begins or ends,
// and each piece becomes a *node* stored once: two paths through the same state of the
// same thread over the same time point to the same node. A path is then the sequence of
// its node ids, in time order: the edges of the merged graph labelled by that path.
//
// Invariants: the nodes of a path tile its range exactly, in order; two nodes of one
// (thread, state, qualifier) never overlap in time (they are equal or disjoint); a node's
// `paths` counts the paths that go through it. Slicing a path to a sub-range gives the
// critical path of that thread over the sub-range (what a request needs: §3.4), because
// the bounded walk resolves each wait by the same signal whatever the range around it.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/critical_path.h"
#include "graph/execution_graph.h"

namespace causeway::graph {

// Fields ordered for size: 32 bytes, not 40 (643,000 nodes on a 10,000-request recording).
struct MergedNode {
  WorkerId worker = kNoWorker;
  StringId qualifier = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint32_t paths = 0;  // how many paths go through this node
  State state = State::kUnknown;
};
static_assert(sizeof(MergedNode) == 32);

// A thread and the range of its path.
struct PathRange {
  WorkerId worker = kNoWorker;
  int64_t begin = 0;
  int64_t end = 0;
};

struct MergedPath {
  PathRange range;              // as covered (clipped to the thread's life)
  std::vector<uint32_t> nodes;  // ids into MergedPaths::nodes, tiling range in order
  std::vector<PathLink> links;  // as CriticalPath::links (with MergeOptions::links)
};

struct MergedPaths {
  std::vector<MergedNode> nodes;
  std::vector<MergedPath> paths;  // one per PathRange given, same order
  uint64_t segments = 0;          // segments of the individual paths, before merging
  uint64_t pieces = 0;            // after cutting at the other paths' boundaries
  uint64_t shared_nodes = 0;      // nodes on more than one path
  uint64_t shared_ns = 0;         // time stored once instead of several times
};

struct MergeOptions {
  bool links = true;  // keep each path's links (MergedPath::links stays empty otherwise)
};

// Computes the critical path of every range and merges them. Ranges of one thread that
// overlap or touch should be given as one (MergeRanges) so their common part is walked once.
MergedPaths MergeCriticalPaths(const ExecutionGraph& g, const std::vector<PathRange>& ranges,
                               const MergeOptions& options = {});

// Sorts ranges and joins those of one worker that overlap or touch.
std::vector<PathRange> MergeRanges(std::vector<PathRange> ranges);

// The segments of `path` over [begin, end] (clipped to the path's range), adjacent equal
// nodes' pieces joined: the critical path of the thread over that sub-range.
std::vector<PathSegment> SlicePath(const MergedPaths& m, const MergedPath& path, int64_t begin,
                                   int64_t end);

}  // namespace causeway::graph
