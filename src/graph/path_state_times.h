// Time by state along the critical path of any thread over any range, for every thread at
// once, without walking the paths.
//
// CriticalPathFinder walks a path segment by segment, and on a request-serving workload a
// thread's whole-life path is long: the same waits are resolved inside the path of every
// thread they held back (on the demo's 10,000-request recording the 207 threads that ran
// have 17.9 M path segments for 1.5 M graph vertices). What a per-thread summary needs is
// only the sums, and those compose:
//
//   * c(X, e), the path time of edge e of thread X: the edge's own state and duration, or,
//     for a wait ended by a link (what the walk resolves), the sums of its resolution;
//   * P(X, i), the prefix sums of c over X's first i edges (the "resolved timeline");
//   * the resolution of a wait [start, wake] through the thread W that ended it, walked
//     backward from W's vertex fv, is W's first edge (never resolved) plus W's edges
//     between fv and the one holding `start` — P(W, fv) - P(W, u + 1) — plus edge u cut at
//     `start`, which is again a resolution (or a fork link, or an unknown start) cut at the
//     same time: one chain, no branching.
//
// The sums of a path over [begin, end] are Prefix(end) - Prefix(begin), exact because a
// walk down to a later start is the cut of a walk down to an earlier one (the same property
// MergedPaths relies on). P is computed lazily in the links' order (a link's source vertex
// was created before its target, so the dependencies never cycle) and stored every
// kCheckpoint vertices; the sums of each resolved wait are stored once (per in-link).
//
// In: an ExecutionGraph (not modified; it must outlive this). Out: state times equal to
// Summarize(CriticalPathFinder::Compute(w, begin, end)).by_state (tested on every thread
// of the real traces and on every scenario).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/execution_graph.h"

namespace causeway::graph {

using StateTimesArray = std::array<int64_t, kNumStates>;

class PathStateTimes {
 public:
  explicit PathStateTimes(const ExecutionGraph& g);

  // Time by state along the critical path of `w` over [begin, end] clipped to its life;
  // the sum is the path's length.
  StateTimesArray Of(WorkerId w, int64_t begin, int64_t end);

  // Computes every thread's resolved timeline, sweeping all threads forward together in
  // windows of trace time, so that what a wait's resolution reads (the signaller's recent
  // edges) is still in cache. Optional: Of computes what it needs on demand, thread by
  // thread, which is ~2-3x slower on large graphs when every thread is asked for.
  void ComputeAll();

  uint64_t memory_bytes() const;

 private:
  static constexpr uint32_t kCheckpoint = 32;
  static constexpr uint32_t kNoSlot = UINT32_MAX;

  struct Need {
    WorkerId worker;
    uint32_t vertex;  // P(worker, vertex) must be known
  };

  // The in-link slot ending the wait on edge e of w (its sums resolve that edge), or
  // kNoSlot when the edge is not a resolved wait.
  uint32_t ResolvedSlot(WorkerId w, uint32_t e) const;
  // Adds the sums of the resolution of the wait of `link` (ended at `wake`) cut at
  // `start`. False, with `need` set, when a prefix it uses is not known yet.
  bool AddResolution(const InLink& link, int64_t wake, int64_t start, StateTimesArray* acc,
                     Need* need) const;
  // Computes P(w, ·) up to vertex `upto` (and everything it depends on).
  void EnsurePrefix(WorkerId w, uint32_t upto);
  // Adds sign * (P(w, to) - P(w, from)): the path times of edges [from, to), to <= computed_[w].
  void AddEdges(WorkerId w, uint32_t from, uint32_t to, int64_t sign, StateTimesArray* acc) const;
  // Edges AddPrefix(w, v) walks, plus one for the stored prefix it reads.
  uint32_t PrefixCost(WorkerId w, uint32_t v) const;
  // P(w, v) for v <= computed_[w].
  void AddPrefix(WorkerId w, uint32_t v, int64_t sign, StateTimesArray* acc) const;
  // Sums of w's path from the start of its life to time t (within its life).
  StateTimesArray PrefixAt(WorkerId w, int64_t t);

  const ExecutionGraph& g_;
  std::vector<uint32_t> link_base_;  // per worker: slot of its first in-link
  // Per in-link: the sums of the wait it ended. A wait shorter than 2^32 - 1 ns (4.3 s)
  // has parts that fit 32 bits each; a longer one is marked (ns[0] == kLongWait) and kept
  // whole in long_sums_ at index ns[1].
  struct SlotSums {
    uint32_t ns[kNumStates];
  };
  static constexpr uint32_t kLongWait = UINT32_MAX;
  void StoreSlot(uint32_t slot, const StateTimesArray& sums, int64_t length);
  void AddSlot(uint32_t slot, int64_t sign, StateTimesArray* acc) const;
  std::unique_ptr<SlotSums[]> slot_sums_;
  uint64_t num_slots_ = 0;
  std::vector<StateTimesArray> long_sums_;
  std::vector<uint32_t> computed_;        // per worker: P known up to this vertex
  std::vector<StateTimesArray> running_;  // per worker: P(w, computed_[w])
  // P(w, c * kCheckpoint) at checkpoints_[checkpoint_base_[w] + c], and beside it the
  // index of w's first in-link whose vertex is above c * kCheckpoint.
  std::vector<uint64_t> checkpoint_base_;
  std::unique_ptr<StateTimesArray[]> checkpoints_;
  std::unique_ptr<uint32_t[]> link_at_checkpoint_;
  uint64_t num_checkpoints_ = 0;
  std::vector<size_t> hints_;  // per worker: its first in-link not yet passed by EnsurePrefix
  std::vector<Need> stack_;
  std::vector<uint8_t> on_stack_;
};

}  // namespace causeway::graph
