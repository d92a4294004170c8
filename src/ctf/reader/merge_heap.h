// The merge's fallback: a binary min-heap of stream heads, for the runs whose keys the
// trees cannot hold (merge_tree.h, loser_tree.h): times too far apart (a corrupt stream, or
// a clock of another origin), events at UINT64_MAX, more streams than LoserTree's leaves.
//
// Each head is a stream's next event as a merge key (timestamp, stream index): equal
// timestamps come out in stream order, so the merged order is deterministic and the same
// as the trees'.
#pragma once

#include <cstddef>
#include <cstdint>

namespace causeway::ctf {

struct MergeHead {
  uint64_t ts;
  uint32_t stream;
  bool operator<(const MergeHead& o) const { return ts != o.ts ? ts < o.ts : stream < o.stream; }
};

// Restores the min-heap h[0..n) below entry i after that entry changed.
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

}  // namespace causeway::ctf
