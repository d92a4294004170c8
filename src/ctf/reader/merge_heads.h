// The heads of the streams being merged, kept as a sorted array when there are few.
//
// Each head is a stream's next event as a merge key (timestamp, stream index): equal
// timestamps come out in stream order, so the merged order is deterministic. With at most
// kMaxSortedHeads streams the heads are kept fully sorted, and the head that advanced
// moves down to its rank in a fixed pass of selects (MoveTopToRank) rather than a loop
// that stops at the rank: where it lands is close to random, and the loop mispredicted
// its exit about one time in three (docs/performance.md). EventReader uses it event by event,
// DecodePipeline's horizon merge over whole runs of decoded events.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace causeway::ctf {

struct MergeHead {
  uint64_t ts;
  uint32_t stream;
  bool operator<(const MergeHead& o) const { return ts != o.ts ? ts < o.ts : stream < o.stream; }
};

inline constexpr size_t kMaxSortedHeads = 16;

namespace merge_internal {

// One entry of MoveTopToRank's pass. In: the entry's old value `prev` and whether it comes
// before v (`prev_before`, all ones or zero), and the next entry. Out: the entry's new
// value (the next entry when that comes before v, else v when `prev` did, else `prev`),
// and in `prev`/`prev_before` the next entry and whether it comes before v.
inline void PassStep(uint64_t v_ts, uint64_t v_stream, uint64_t next_ts, uint64_t next_stream,
                     uint64_t* prev_ts, uint64_t* prev_stream, uint64_t* prev_before,
                     uint64_t* out_ts, uint64_t* out_stream) {
  uint64_t ts = *prev_ts, stream = *prev_stream, before;
#if defined(__x86_64__)
  // GCC turns the selects below into branches, which mispredict here; cmov does not.
  // (next.ts, next.stream) < (v.ts, v.stream) is the borrow of a 96-bit subtraction.
  asm("test %[pb], %[pb]\n\t"
      "cmovnz %[vts], %[ts]\n\t"
      "cmovnz %[vst], %[st]\n\t"
      "cmp %k[vst], %k[nst]\n\t"
      "mov %[nts], %[b]\n\t"
      "sbb %[vts], %[b]\n\t"
      "cmovb %[nts], %[ts]\n\t"
      "cmovb %[nst], %[st]\n\t"
      "sbb %[b], %[b]"
      : [ts] "+&r"(ts), [st] "+&r"(stream), [b] "=&r"(before)
      : [pb] "r"(*prev_before), [vts] "r"(v_ts), [vst] "r"(v_stream), [nts] "r"(next_ts),
        [nst] "r"(next_stream)
      : "cc");
#else
  ts = (ts & ~*prev_before) | (v_ts & *prev_before);
  stream = (stream & ~*prev_before) | (v_stream & *prev_before);
  before =
      -static_cast<uint64_t>((next_ts < v_ts) | ((next_ts == v_ts) & (next_stream < v_stream)));
  ts = (ts & ~before) | (next_ts & before);
  stream = (stream & ~before) | (next_stream & before);
#endif
  *out_ts = ts;
  *out_stream = stream;
  *prev_ts = next_ts;
  *prev_stream = next_stream;
  *prev_before = before;
}

}  // namespace merge_internal

// Moves h[0] (v) down the sorted h[1..N) to its rank: a fixed pass of selects over every
// entry, each entry's new value chosen from its old one, v and the next entry.
template <size_t N>
inline void MoveTopToRank(MergeHead* h) {
  if constexpr (N >= 2) {  // with one stream or none, nothing moves
    const uint64_t v_ts = h[0].ts;
    const uint64_t v_stream = h[0].stream;
    uint64_t prev_ts = v_ts, prev_stream = v_stream;  // entry 0 holds v: its place is free
    uint64_t prev_before = ~uint64_t{0};
#pragma GCC unroll 16
    for (size_t i = 0; i + 1 < N; ++i) {
      uint64_t ts, stream;
      merge_internal::PassStep(v_ts, v_stream, h[i + 1].ts, h[i + 1].stream, &prev_ts, &prev_stream,
                               &prev_before, &ts, &stream);
      h[i].ts = ts;
      h[i].stream = static_cast<uint32_t>(stream);
    }
    // The last entry: v when every other head comes first.
    h[N - 1].ts = (prev_ts & ~prev_before) | (v_ts & prev_before);
    h[N - 1].stream =
        static_cast<uint32_t>((prev_stream & ~prev_before) | (v_stream & prev_before));
  }
}

// Restores the binary min-heap h[0..n) below entry i after that entry changed (the heap
// used past kMaxSortedHeads streams).
inline void SiftDown(MergeHead* h, size_t n, size_t i) {
  const MergeHead v = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && h[c + 1] < h[c]) ++c;
    if (!(h[c] < v)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

namespace merge_internal {
template <size_t... N>
constexpr std::array<void (*)(MergeHead*), sizeof...(N)> MoveTable(std::index_sequence<N...>) {
  return {&MoveTopToRank<N>...};
}
}  // namespace merge_internal

// kMoveTopToRank[n] is MoveTopToRank<n>, for n heads up to kMaxSortedHeads: the pass is
// unrolled for each count, and the call through the table always goes to the same one
// while the streams last.
inline constexpr std::array<void (*)(MergeHead*), kMaxSortedHeads + 1> kMoveTopToRank =
    merge_internal::MoveTable(std::make_index_sequence<kMaxSortedHeads + 1>());

}  // namespace causeway::ctf
