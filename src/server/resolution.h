// States at a view's resolution. A timeline (sorted change times, each state lasting until
// the next change or the timeline's end) is walked from the view's start to its end by
// binary search, not edge by edge: an edge at least one step long is given whole; a run of
// shorter edges is given as one merged state (MULTIPLE) that ends where the next long edge
// starts. A row thus has at most about two states per step, whatever the number of edges,
// and costs O(steps · log edges).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace causeway::server {

inline constexpr int64_t kMerged = -1;  // the `edge` of a merged state

// Calls emit(start, end, edge) for each state over [from, to], in time order; `edge` is
// the index into `ts` of a whole edge, or kMerged. `ts` non-decreasing; edge i lasts until
// ts[i + 1], the last one until `timeline_end`.
template <typename Emit>
void ForEachStateAtResolution(const std::vector<int64_t>& ts, int64_t timeline_end, int64_t from,
                              int64_t to, int64_t step, Emit&& emit) {
  const size_t n = ts.size();
  if (n == 0 || from > to || timeline_end < from) return;
  auto edge_end = [&](size_t i) { return i + 1 < n ? ts[i + 1] : timeline_end; };
  // The edge holding `from` (or the first one, when the timeline starts later).
  size_t i = static_cast<size_t>(std::upper_bound(ts.begin(), ts.end(), from) - ts.begin());
  i = i == 0 ? 0 : i - 1;
  while (i < n && ts[i] <= to) {
    const int64_t start = ts[i];
    if (edge_end(i) - start >= step || i + 1 == n) {
      if (edge_end(i) > start || n == 1) emit(start, edge_end(i), static_cast<int64_t>(i));
      ++i;
      continue;
    }
    // Short edges from here: every edge starting before start + step joins the merge, but
    // for a last one long enough to be drawn by itself.
    size_t j = static_cast<size_t>(
        std::lower_bound(ts.begin() + static_cast<ptrdiff_t>(i) + 1, ts.end(), start + step) -
        ts.begin());
    if (j - 1 > i && edge_end(j - 1) - ts[j - 1] >= step) --j;
    if (j == i + 1) {
      if (edge_end(i) > start) emit(start, edge_end(i), static_cast<int64_t>(i));
    } else {
      emit(start, edge_end(j - 1), kMerged);
    }
    i = j;
  }
}

}  // namespace causeway::server
