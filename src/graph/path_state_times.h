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
  // pool_chunk_bits: log2 of the words in each chunk of stored sums (see pool_ below); the
  // default suits any graph, tests pass small ones to exercise chunk boundaries. At least 4
  // (an entry takes up to 12 words).
  explicit PathStateTimes(const ExecutionGraph& g, uint32_t pool_chunk_bits = 18);

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
  static constexpr uint32_t kCheckpoint = 64;
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
  // Per in-link: the sums of the wait it ended, stored sparsely (most resolutions touch two
  // or three states): at pool word slot_at_[slot], a header word holding the mask of the
  // states with a non-zero part, then one 32-bit part per set bit, in state order. A wait
  // shorter than 2^32 - 1 ns (4.3 s) has parts that fit 32 bits each; a longer one has
  // kLongWait in its header and, in the next word, its index in long_sums_ (kept whole).
  // The pool is chunked so that it grows without copying (no transient double size).
  static constexpr uint32_t kLongWait = 1u << 31;
  void StoreSlot(uint32_t slot, const StateTimesArray& sums, int64_t length);
  void AddSlot(uint32_t slot, int64_t sign, StateTimesArray* acc) const;
  const uint32_t* PoolAt(uint64_t word) const {
    return pool_[word >> chunk_bits_].get() + (word & (chunk_words_ - 1));
  }
  std::unique_ptr<uint32_t[]> slot_at_;  // written before read
  uint64_t num_slots_ = 0;
  uint32_t chunk_bits_;   // 18 by default: 1 MiB chunks
  uint32_t chunk_words_;  // 1 << chunk_bits_
  std::vector<std::unique_ptr<uint32_t[]>> pool_;
  uint64_t pool_words_ = 0;  // next free word (chunk index << chunk_bits_ | offset)
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
