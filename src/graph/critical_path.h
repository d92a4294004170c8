// The critical (active) path of a thread over a time range (seed 004 Alg. 2, bounded).
//
// The thread's own edges are walked forward. A BLOCKED or NETWORK edge that ends at a
// vertex with an in-link is replaced by the path of the thread that ended the wait: that
// thread is walked backward from the signal down to the start of the wait, and its own
// linked waits are resolved the same way, to any depth (an explicit stack, no recursion).
// A wait still running at the end of the range is resolved by the signal that ends it
// later, clipped to the range.
// A wait without a link keeps its label (TIMER, BLOCK_DEVICE, an unresolved BLOCKED,
// UNKNOWN). Reaching the start of a thread's life follows its fork link to the parent.
//
// Invariant: the segments tile [begin, end] exactly (no gap, no overlap, in order), and
// every link joins two workers of the graph. Termination: a resolution never resolves the
// edge it starts on, and in-links point to vertices created before their target, so every
// nested resolution starts strictly earlier in creation order.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/execution_graph.h"

namespace causeway::graph {

struct PathSegment {
  WorkerId worker = kNoWorker;
  State state = State::kUnknown;
  StringId qualifier = 0;
  int64_t start = 0;
  int64_t end = 0;
};

struct PathLink {
  WorkerId from = kNoWorker;
  WorkerId to = kNoWorker;
  int64_t from_ts = 0;  // signal sent (wake-up, packet send, fork)
  int64_t to_ts = 0;    // signal received (end of the wait)
  LinkKind kind = LinkKind::kWakeup;
};

struct CriticalPath {
  WorkerId worker = kNoWorker;
  int64_t begin = 0;
  int64_t end = 0;
  std::vector<PathSegment> segments;  // in time order, tiling [begin, end]
  std::vector<PathLink> links;        // in order of to_ts
};

// Time by state and by worker along a path.
struct PathSummary {
  int64_t total = 0;
  int64_t by_state[kNumStates] = {};
  struct Thread {
    WorkerId worker = kNoWorker;
    int64_t total = 0;
    int64_t by_state[kNumStates] = {};
  };
  std::vector<Thread> by_thread;  // largest total first
};

class CriticalPathFinder {
 public:
  // `links` false: CriticalPath::links stays empty (the caller needs the segments only, and
  // saves gathering and sorting the links of every path).
  explicit CriticalPathFinder(const ExecutionGraph& g, bool links = true) : g_(g), links_(links) {}

  // The path of `w` over [begin, end] clipped to its life; begin/end of the result say
  // the range actually covered.
  CriticalPath Compute(WorkerId w, int64_t begin, int64_t end);
  // Same, into `out` (reuses its buffers).
  void Compute(WorkerId w, int64_t begin, int64_t end, CriticalPath* out);

 private:
  struct Frame {
    WorkerId worker;
    int64_t vertex;  // edge being walked backward; -1 = before the worker's first vertex
    int64_t cur_end;
    int64_t start;  // walk down to this time
    bool first;     // the edge the frame starts on: never resolved
    size_t hint;
  };
  // Replaces the wait [start, wake_ts] of `target` by the path of the link's source,
  // clipped at clip_end (the end of the range).
  void Resolve(const InLink& link, WorkerId target, StringId target_qual, int64_t wake_ts,
               int64_t start, int64_t clip_end, CriticalPath* out);
  // Pushes the frame that walks `link`'s source backward over [start, end], after
  // emitting the NETWORK transit time of a packet; false when the link cannot be followed.
  void Follow(const InLink& link, WorkerId target, StringId target_qual, int64_t wake_ts,
              int64_t start, CriticalPath* out);
  void EmitReverse(WorkerId w, State s, StringId q, int64_t start, int64_t end);
  static void Emit(CriticalPath* out, WorkerId w, State s, StringId q, int64_t start, int64_t end);

  const ExecutionGraph& g_;
  const bool links_;
  std::vector<Frame> stack_;
  std::vector<PathSegment> reverse_;  // a resolution's segments, latest first
};

PathSummary Summarize(const CriticalPath& path);

// The segments of `path` over [begin, end] (clipped to the path's range), into `out`: the
// critical path of the thread over that sub-range, as SlicePath (merged_paths.h) gives it
// from the merged nodes.
void SliceCriticalPath(const CriticalPath& path, int64_t begin, int64_t end,
                       std::vector<PathSegment>* out);

}  // namespace causeway::graph
