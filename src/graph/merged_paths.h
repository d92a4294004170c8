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
#include <functional>
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

// The nodes, by id, in chunks of 1 MiB rather than one array: they are made while the
// merge frees the memory of the segments it has grouped, and chunks of that size fit in
// what the heap got back, where one large array would not (it would be mapped apart and add
// to the peak). Ids are dense from 0; a node
// stays where it is (no reallocation moves it).
class NodeStore {
 public:
  static constexpr uint32_t kChunkShift = 15;  // 32,768 nodes of 32 bytes
  static constexpr uint32_t kChunkSize = 1u << kChunkShift;

  const MergedNode& operator[](size_t i) const {
    return chunks_[i >> kChunkShift][i & (kChunkSize - 1)];
  }
  MergedNode& operator[](size_t i) { return chunks_[i >> kChunkShift][i & (kChunkSize - 1)]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void push_back(const MergedNode& n) {
    if ((size_ & (kChunkSize - 1)) == 0) chunks_.emplace_back().reserve(kChunkSize);
    chunks_.back().push_back(n);
    ++size_;
  }

  // Every node in id order (range-for).
  class const_iterator {
   public:
    const_iterator(const NodeStore* s, size_t i) : s_(s), i_(i) {}
    const MergedNode& operator*() const { return (*s_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const NodeStore* s_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<std::vector<MergedNode>> chunks_;
  size_t size_ = 0;
};

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
  NodeStore nodes;
  std::vector<MergedPath> paths;  // one per PathRange given, same order
  uint64_t num_nodes = 0;         // nodes made (nodes.size() when they are kept)
  uint64_t segments = 0;          // segments of the individual paths, before merging
  uint64_t pieces = 0;            // after cutting at the other paths' boundaries
  uint64_t shared_nodes = 0;      // nodes on more than one path
  uint64_t shared_ns = 0;         // time stored once instead of several times
};

struct MergeOptions {
  bool links = true;  // keep each path's links (MergedPath::links stays empty otherwise)
  // Keep the nodes (MergedPaths::nodes) and each path's node ids (MergedPath::nodes).
  // Without them the nodes are only counted (num_nodes, shared_nodes, shared_ns, pieces) and
  // each path's range is set: what a caller that reads each path through on_path needs,
  // without the memory of the nodes and node lists.
  bool keep_nodes = true;
  // Called with each range's index and its critical path as soon as it is computed (the
  // path is valid during the call only).
  std::function<void(size_t, const CriticalPath&)> on_path;
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
