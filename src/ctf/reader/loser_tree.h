// Merges a known number of records from many sorted runs, one record per step, with a
// tree of losers (a tournament tree) whose nodes are single keys.
//
// Each internal node keeps the key that lost the match played there; the root's winner is
// the next record. A step replays only the matches on the winner's path: its leaf's new
// key climbs log2(P) nodes, at each one keeping the smaller of itself and the node's loser
// and leaving the larger there. A key is the record's timestamp relative to the run's
// base, shifted up past the leaf index, which fills the low bits: one comparison orders
// two heads by (timestamp, leaf), so equal timestamps come out in leaf order (runs given
// in stream order merge by (timestamp, stream), as MergeHead orders them), and a match is
// a compare and two conditional moves. The nodes a step visits depend only on the leaf, so
// their loads start at once; the step's chain is the winner's next timestamp and one
// compare-and-move per level.
//
// Why not MergeTreeSteps past 4 runs: it recomputes every node each step, from heads that
// no longer fit in registers beyond 4. Why not the sorted heads' pass (MoveTopToRank): it
// rewrites every head each step, 16 selects for 16 streams, where this touches 4 nodes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace causeway::ctf {

namespace merge_internal {

// (*lo, *hi) = (min(a, b), max(a, b)), with conditional moves: which is smaller is close
// to random, and GCC compiles the plain std::min/std::max pair into a branch here.
inline void MinMax(uint64_t a, uint64_t b, uint64_t* lo, uint64_t* hi) {
#if defined(__x86_64__)
  uint64_t l = a, h = b;
  asm("cmp %[b], %[a]\n\t"
      "cmova %[b], %[l]\n\t"
      "cmova %[a], %[h]"
      : [l] "+&r"(l), [h] "+&r"(h)
      : [a] "r"(a), [b] "r"(b)
      : "cc");
  *lo = l;
  *hi = h;
#else
  *lo = a < b ? a : b;
  *hi = a < b ? b : a;
#endif
}

}  // namespace merge_internal

template <typename Record>
class LoserTree {
 public:
  // Leaves a tree may have: the leaf index takes up to 8 bits of a key.
  static constexpr size_t kMaxLeaves = 256;

  // The leaves for `runs` runs: the power of two at or above it (at least 2).
  static size_t LeavesFor(size_t runs) { return std::bit_ceil(std::max<size_t>(runs, 2)); }
  // Whether records with timestamps from `base` to `latest` can be merged on `leaves`
  // leaves: keys hold times relative to the base below 2^(64 - log2(leaves)).
  static bool Fits(size_t leaves, uint64_t base, uint64_t latest) {
    return latest >= base && latest - base < MaxRelative(std::countr_zero(leaves));
  }

  // Starts a merge of the runs at next[0..n), n a power of two up to kMaxLeaves (a leaf
  // without a run points at a sentinel at UINT64_MAX). base: at most the earliest record
  // of any run. Every record to take must be at most base + the relative times Fits
  // allows, and each run must hold, after its part of the merge, a record that comes after
  // every record taken, by (timestamp, leaf): a later one, or a sentinel.
  void Start(const Record* const* next, size_t n, uint64_t base) {
    leaf_bits_ = static_cast<unsigned>(std::countr_zero(n));
    leaves_ = n;
    base_ = base;
    max_relative_ = MaxRelative(leaf_bits_);
    next_.assign(next, next + n);
    nodes_.assign(n, 0);
    // Play every match bottom-up: winners in scratch positions n..2n-1 first, then their
    // parents; each node keeps the loser.
    std::vector<uint64_t>& winner = scratch_;
    winner.resize(2 * n);
    for (size_t l = 0; l < n; ++l) winner[n + l] = Key(next[l]->timestamp, l);
    for (size_t j = n - 1; j >= 1; --j)
      merge_internal::MinMax(winner[2 * j], winner[2 * j + 1], &winner[j], &nodes_[j]);
    winner_ = winner[1];
  }

  // The earliest record by (timestamp, leaf), and its leaf in *leaf.
  const Record* Take(size_t* leaf) {
    const size_t l = static_cast<size_t>(winner_ & LeafMask());
    const Record* r = next_[l];
    const Record* following = r + 1;
    next_[l] = following;
    uint64_t k = Key(following->timestamp, l);
    uint64_t* nodes = nodes_.data();
    for (size_t j = (leaves_ + l) >> 1; j > 0; j >>= 1)
      merge_internal::MinMax(k, nodes[j], &k, &nodes[j]);
    winner_ = k;
    *leaf = l;
    return r;
  }

  // Takes `count` records, calling take(leaf, record) for each until it returns false;
  // returns how many were taken. Take() and TakeRest() go on from where it stopped.
  template <typename TakeFn>
  size_t TakeRest(size_t count, TakeFn&& take) {
    for (size_t taken = 0; taken < count;) {
      size_t leaf;
      const Record* r = Take(&leaf);
      ++taken;
      if (!take(leaf, r)) [[unlikely]]
        return taken;
    }
    return count;
  }

 private:
  static uint64_t MaxRelative(unsigned leaf_bits) { return (uint64_t{1} << (64 - leaf_bits)) - 1; }
  uint64_t LeafMask() const { return leaves_ - 1; }
  // Saturates: a record past the run (a sentinel) keys after every record taken.
  uint64_t Key(uint64_t ts, size_t leaf) const {
    return std::min(ts - base_, max_relative_) << leaf_bits_ | leaf;
  }

  uint64_t winner_ = 0;     // the root's key: the next record's
  size_t leaves_ = 0;       // a power of two
  unsigned leaf_bits_ = 0;  // log2(leaves_)
  uint64_t base_ = 0;
  uint64_t max_relative_ = 0;
  std::vector<uint64_t> nodes_;  // [1, leaves_): each match's loser; [0] unused
  std::vector<const Record*> next_;
  std::vector<uint64_t> scratch_;  // Start's winners, kept so that a run allocates nothing
};

}  // namespace causeway::ctf
