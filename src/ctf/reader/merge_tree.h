// Merges records from up to kMaxTreeLeaves sorted runs a record at a time, without
// branches: the merge of runs of up to 4 streams (DecodePipeline's TreeRun).
//
// Each step finds the smallest of the P runs' next keys with a tree of selects recomputed
// whole (P - 1 nodes, log2(P) deep), which carries each key's record pointer along: the
// winner's next record is loaded straight from the pointer the tree returns, and the heads
// and pointers stay in registers (every index is a constant once the loops are unrolled).
// A consumer that handles each record as it is taken (EventReader) overlaps the step's
// chain (the winner's next timestamp loaded, then the selects) with its own work.
//
// Each head is one key: its timestamp shifted up past the leaf, which fills the low bits.
// One comparison then orders two heads by (timestamp, leaf), so equal timestamps come out
// in leaf order (runs given in stream order merge by (timestamp, stream)), and the
// winner's leaf comes with its key. A key holds a timestamp below kMaxTime (2^62 ns for 4
// leaves, the year 2116 for LTTng's times since the Epoch): every record to take must be
// earlier (Fits); later ones, such as the sentinels at UINT64_MAX, saturate and come after
// every record taken.
//
// The selects are written so that they stay selects: written as ternaries, GCC compiles
// them into branches that mispredict about one time in two (which stream comes next is
// close to a coin toss). Past 4 leaves the heads and pointers no longer fit in registers
// and the tree of losers (loser_tree.h), which replays only the winner's path, is cheaper.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace causeway::ctf {

inline constexpr size_t kMaxTreeLeaves = 16;

namespace merge_internal {

// (*ts, *at) = (new_ts, new_at) when leaf == i.
template <typename Record>
inline void ReplaceIfLeaf(uint64_t leaf, uint64_t i, uint64_t* ts, const Record** at,
                          uint64_t new_ts, const Record* new_at) {
#if defined(__x86_64__)
  asm("cmp %[i], %[l]\n\t"
      "cmove %[nt], %[t]\n\t"
      "cmove %[na], %[a]"
      : [t] "+r"(*ts), [a] "+r"(*at)
      : [l] "r"(leaf), [i] "er"(i), [nt] "r"(new_ts), [na] "r"(new_at)
      : "cc");
#else
  *ts = leaf == i ? new_ts : *ts;
  *at = leaf == i ? new_at : *at;
#endif
}

// (*key, *at) = (b_key, b_at) when b_key < *key.
template <typename Record>
inline void TakeSmaller(uint64_t* key, const Record** at, uint64_t b_key, const Record* b_at) {
#if defined(__x86_64__)
  asm("cmp %[k], %[bk]\n\t"
      "cmovb %[bk], %[k]\n\t"
      "cmovb %[ba], %[a]"
      : [k] "+r"(*key), [a] "+r"(*at)
      : [bk] "r"(b_key), [ba] "r"(b_at)
      : "cc");
#else
  const bool b = b_key < *key;
  *key = b ? b_key : *key;
  *at = b ? b_at : *at;
#endif
}

// The tree's one pass over keys that carry their leaf: the smallest out in key[0], at[0].
template <size_t P, typename Record>
inline void SelectSmallestKey(std::array<uint64_t, P>& key, std::array<const Record*, P>& at) {
#pragma GCC unroll 8
  for (size_t width = P / 2; width >= 1; width /= 2) {
#pragma GCC unroll 8
    for (size_t i = 0; i < width; ++i) {
      uint64_t k = key[2 * i];
      const Record* a = at[2 * i];
      TakeSmaller(&k, &a, key[2 * i + 1], at[2 * i + 1]);
      key[i] = k;
      at[i] = a;
    }
  }
}

}  // namespace merge_internal

template <size_t P, typename Record>
class MergeTreeSteps {
 public:
  static_assert(P >= 2 && P <= kMaxTreeLeaves && (P & (P - 1)) == 0);
  static constexpr unsigned kLeafBits = std::bit_width(P - 1);
  static constexpr uint64_t kLeafMask = P - 1;
  static constexpr uint64_t kMaxTime = (uint64_t{1} << (64 - kLeafBits)) - 1;
  // Whether records to take whose latest timestamp is `latest` can be merged here.
  static bool Fits(uint64_t latest) { return latest < kMaxTime; }

  void Start(const std::array<const Record*, P>& next) {
    next_ = next;
    for (size_t i = 0; i < P; ++i) key_[i] = Key(next[i]->timestamp, i);
  }
  // The earliest record by (timestamp, leaf), and its leaf in *leaf.
  const Record* Take(size_t* leaf) { return Step(key_, next_, leaf); }
  // Takes the rest of the run, `count` records, calling take(leaf, record) for each until
  // it returns false; returns how many were taken. When it stops early, Take() and
  // TakeRest() go on from there; once all are taken the heads are spent (Start again).
  // With 4 leaves the heads stay in registers through the loop instead of being stored
  // and loaded back on every step, and are stored only when take() stops it: stored on
  // the way out in every case, GCC keeps them on the stack all along.
  template <typename TakeFn>
  size_t TakeRest(size_t count, TakeFn&& take) {
    if constexpr (P == 4) {
      // Spelled out: GCC keeps arrays of heads on the stack, even indexed by constants.
      using merge_internal::ReplaceIfLeaf;
      using merge_internal::TakeSmaller;
      uint64_t k0 = key_[0], k1 = key_[1], k2 = key_[2], k3 = key_[3];
      const Record *n0 = next_[0], *n1 = next_[1], *n2 = next_[2], *n3 = next_[3];
      for (size_t left = count; left > 0;) {
        uint64_t a = k0, b = k2;
        const Record *at_a = n0, *at_b = n2;
        TakeSmaller(&a, &at_a, k1, n1);
        TakeSmaller(&b, &at_b, k3, n3);
        TakeSmaller(&a, &at_a, b, at_b);
        const uint64_t l = a & kLeafMask;
        const Record* following = at_a + 1;
        const uint64_t following_key = Key(following->timestamp, l);
        ReplaceIfLeaf(l, 0, &k0, &n0, following_key, following);
        ReplaceIfLeaf(l, 1, &k1, &n1, following_key, following);
        ReplaceIfLeaf(l, 2, &k2, &n2, following_key, following);
        ReplaceIfLeaf(l, 3, &k3, &n3, following_key, following);
        --left;
        if (!take(static_cast<size_t>(l), at_a)) [[unlikely]] {
          key_ = {k0, k1, k2, k3};
          next_ = {n0, n1, n2, n3};
          return count - left;
        }
      }
      return count;
    } else {
      for (size_t taken = 0; taken < count;) {
        size_t leaf;
        const Record* r = Step(key_, next_, &leaf);
        ++taken;
        if (!take(leaf, r)) return taken;
      }
      return count;
    }
  }

 private:
  static uint64_t Key(uint64_t ts, uint64_t leaf) {
    return std::min(ts, kMaxTime) << kLeafBits | leaf;
  }
  const Record* Step(std::array<uint64_t, P>& key, std::array<const Record*, P>& next,
                     size_t* leaf) const {
    std::array<uint64_t, P> k = key;
    std::array<const Record*, P> at = next;
    merge_internal::SelectSmallestKey<P>(k, at);
    const uint64_t l = k[0] & kLeafMask;
    const Record* following = at[0] + 1;
    const uint64_t following_key = Key(following->timestamp, l);
    // Every head rewritten with selects rather than the winner's stored at its index: the
    // next step's loads then do not wait on a store whose address the selects compute.
#pragma GCC unroll 16
    for (size_t i = 0; i < P; ++i)
      merge_internal::ReplaceIfLeaf(l, i, &key[i], &next[i], following_key, following);
    *leaf = static_cast<size_t>(l);
    return at[0];
  }

  std::array<uint64_t, P> key_{};
  std::array<const Record*, P> next_{};
};

}  // namespace causeway::ctf
