#include "graph/merged_paths.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <tuple>
#include <unordered_map>

namespace causeway::graph {

namespace {

// (worker, state, qualifier) in one word: 32 + 8 + 24 bits (qualifiers are 24-bit ids).
uint64_t KeyOf(const PathSegment& s) {
  return (uint64_t{s.worker} << 32) | (uint64_t{static_cast<uint8_t>(s.state)} << 24) |
         (s.qualifier & 0xffffff);
}

// Sorts `v` by `less`, given that it is made of ascending runs: merging neighbouring runs,
// pass after pass, costs n log(runs) comparisons against std::sort's n log n. A merged
// group's segments are one run per path through it, and few paths go through each: on a
// 10,000-request recording, 1.1 million segments in 6,196 runs (at most 16 in a group).
// Stable: of equal elements, the first run's comes first.
template <typename T, typename Less>
void SortRuns(std::span<T> v, Less less, std::vector<T>* buffer, std::vector<size_t>* bounds) {
  bounds->assign(1, 0);
  for (size_t i = 1; i < v.size(); ++i)
    if (less(v[i], v[i - 1])) bounds->push_back(i);
  bounds->push_back(v.size());
  if (bounds->size() <= 2) return;
  buffer->resize(v.size());
  T* src = v.data();
  T* dst = buffer->data();
  while (bounds->size() > 2) {
    size_t out = 1;  // bounds of the merged runs, written over the old ones
    for (size_t r = 0; r + 1 < bounds->size(); r += 2) {
      const size_t a = (*bounds)[r], b = (*bounds)[r + 1];
      const size_t c = r + 2 < bounds->size() ? (*bounds)[r + 2] : b;
      std::merge(src + a, src + b, src + b, src + c, dst + a, less);
      (*bounds)[out++] = c;
    }
    bounds->resize(out);
    std::swap(src, dst);
  }
  if (src != v.data()) std::copy(src, src + v.size(), v.data());
}

}  // namespace

std::vector<PathRange> MergeRanges(std::vector<PathRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const PathRange& a, const PathRange& b) {
    return std::tie(a.worker, a.begin, a.end) < std::tie(b.worker, b.begin, b.end);
  });
  std::vector<PathRange> out;
  for (const PathRange& r : ranges) {
    if (!out.empty() && out.back().worker == r.worker && r.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, r.end);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

MergedPaths MergeCriticalPaths(const ExecutionGraph& g, const std::vector<PathRange>& ranges,
                               const MergeOptions& options) {
  MergedPaths out;
  out.paths.resize(ranges.size());
  CriticalPathFinder finder(g, options.links);
  CriticalPath cp;
  // Every path's segments go to their group, (thread, state, qualifier), as the paths are
  // computed: a group's segments are then path after path, each path's in time order (runs
  // to merge), and a segment is numbered in the order of all paths' (a path's are
  // [first[p], first[p + 1])). Keys are few (hundreds) against ~10^6 segments: a small hash
  // table gives each segment its group (consecutive segments often share one). Bucketing
  // here, rather than keeping every segment's times and group in arrays and copying them
  // group by group afterwards, holds each segment once instead of twice and lets each
  // group's memory go as soon as its nodes are made (arrays and a copy would mostly be
  // fresh pages for the kernel to zero).
  // 16 bytes, not 24: a segment's length fits 32 bits (4.29 s) but for a few long waits,
  // whose ends are kept apart (kLong).
  struct Entry {
    int64_t start;
    uint32_t length;  // kLong: the end is long_end[segment]
    uint32_t segment;
  };
  static_assert(sizeof(Entry) == 16);
  constexpr uint32_t kLong = UINT32_MAX;
  std::unordered_map<uint32_t, int64_t> long_end;
  auto end_of = [&long_end](const Entry& e) {
    return e.length != kLong ? e.start + e.length : long_end.find(e.segment)->second;
  };
  std::vector<std::vector<Entry>> entries_of;  // per group
  std::unordered_map<uint64_t, uint32_t> group_of;
  std::vector<uint64_t> keys;
  std::vector<PathSegment> protos;  // per group: its first segment (thread, state, qualifier)
  std::vector<size_t> first(ranges.size() + 1, 0);
  uint64_t last_key = 0;
  uint32_t last_group = UINT32_MAX;
  uint32_t num_segments = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const PathRange& r = ranges[i];
    finder.Compute(r.worker, r.begin, r.end, &cp);
    if (options.on_path) options.on_path(i, cp);
    MergedPath& p = out.paths[i];
    p.range = PathRange{r.worker, cp.begin, cp.end};
    if (options.links) p.links = cp.links;
    first[i] = num_segments;
    for (const PathSegment& seg : cp.segments) {
      const uint64_t key = KeyOf(seg);
      if (last_group == UINT32_MAX || key != last_key) {
        auto [it, added] = group_of.try_emplace(key, static_cast<uint32_t>(keys.size()));
        if (added) {
          keys.push_back(key);
          protos.push_back(seg);
          entries_of.emplace_back();
        }
        last_key = key;
        last_group = it->second;
      }
      const uint64_t length = static_cast<uint64_t>(seg.end - seg.start);
      if (length >= kLong) long_end.emplace(num_segments, seg.end);
      entries_of[last_group].push_back(
          Entry{seg.start, static_cast<uint32_t>(std::min<uint64_t>(length, kLong)), num_segments});
      ++num_segments;
    }
  }
  first[ranges.size()] = num_segments;
  out.segments = num_segments;

  // Groups in key order; within a group, segments by start (merging its runs: a group that
  // only one path, or paths of one thread given in time order, goes through is sorted
  // already).
  std::vector<uint32_t> by_key(keys.size());
  std::iota(by_key.begin(), by_key.end(), 0u);
  std::sort(by_key.begin(), by_key.end(),
            [&](uint32_t x, uint32_t y) { return keys[x] < keys[y]; });
  auto by_start = [](const Entry& x, const Entry& y) { return x.start < y.start; };
  std::vector<Entry> buffer;
  std::vector<size_t> bounds;
  // Per group, its boundaries (every start and end of its segments, from every path): a
  // piece of one path is cut wherever a piece of another path on the same state begins or
  // ends, so common parts become equal pieces, each one node. A segment's pieces are the
  // boundary intervals [bound[j], bound[j + 1]) it covers (the bounds of one group at a
  // time: a node keeps its own start and end); node_at[j] is that piece's node.
  // Segment k's pieces are the intervals first_bound[k] .. end_bound[k] - 1 (global indexes).
  // Without options.keep_nodes the nodes are counted only: no node, bound or node list is
  // stored.
  const bool keep_nodes = options.keep_nodes;
  std::vector<uint32_t> first_bound(keep_nodes ? num_segments : 0);
  std::vector<uint32_t> end_bound(keep_nodes ? num_segments : 0);
  std::vector<uint32_t> node_at, covered;
  std::vector<int64_t> starts, ends, group;
  for (size_t r = 0; r < keys.size(); ++r) {
    std::vector<Entry>& entries = entries_of[by_key[r]];
    SortRuns(std::span<Entry>(entries), by_start, &buffer, &bounds);
    // The boundaries: the starts (in order already) merged with the ends (sorted: they are
    // too when the group's segments do not overlap), duplicates dropped.
    starts.clear();
    ends.clear();
    for (const Entry& e : entries) {
      starts.push_back(e.start);
      ends.push_back(end_of(e));
    }
    if (!std::is_sorted(ends.begin(), ends.end())) std::sort(ends.begin(), ends.end());
    group.resize(starts.size() + ends.size());
    std::merge(starts.begin(), starts.end(), ends.begin(), ends.end(), group.begin());
    group.erase(std::unique(group.begin(), group.end()), group.end());
    // covered[j]: the paths through the group's interval j (a path passes through it once:
    // its segments tile). The group's intervals have global indexes base.. in node_at.
    covered.assign(group.size(), 0);
    const size_t base = node_at.size();
    if (keep_nodes) node_at.resize(base + group.size(), UINT32_MAX);
    const PathSegment& proto = protos[by_key[r]];
    size_t j0 = 0;  // the segments come by start: their first boundary only moves forward
    for (const Entry& sg : entries) {
      while (group[j0] < sg.start) ++j0;  // sg.start is in the group
      const int64_t sg_end = end_of(sg);
      size_t j = j0;
      for (; group[j] < sg_end; ++j) {  // sg_end is in the group
        ++covered[j];
        if (!keep_nodes) continue;
        uint32_t& n = node_at[base + j];
        if (n == UINT32_MAX) {
          n = static_cast<uint32_t>(out.nodes.size());
          out.nodes.push_back(MergedNode{.worker = proto.worker,
                                         .qualifier = proto.qualifier,
                                         .start = group[j],
                                         .end = group[j + 1],
                                         .paths = 0,
                                         .state = proto.state});
        }
      }
      if (keep_nodes) {
        first_bound[sg.segment] = static_cast<uint32_t>(base + j0);
        end_bound[sg.segment] = static_cast<uint32_t>(base + j);
      }
      out.pieces += j - j0;
    }
    // Each interval some path covers is one node.
    for (size_t j = 0; j + 1 < group.size(); ++j) {
      if (covered[j] == 0) continue;
      ++out.num_nodes;
      if (keep_nodes) out.nodes[node_at[base + j]].paths = covered[j];
      if (covered[j] > 1) {
        ++out.shared_nodes;
        out.shared_ns += static_cast<uint64_t>(group[j + 1] - group[j]) * (covered[j] - 1);
      }
    }
    std::vector<Entry>().swap(entries);  // its memory serves the groups and nodes to come
  }
  if (!keep_nodes) return out;
  for (size_t i = 0; i < ranges.size(); ++i) {
    MergedPath& p = out.paths[i];
    size_t pieces = 0;
    for (size_t k = first[i]; k < first[i + 1]; ++k) pieces += end_bound[k] - first_bound[k];
    p.nodes.reserve(pieces);
    for (size_t k = first[i]; k < first[i + 1]; ++k)
      for (size_t j = first_bound[k]; j < end_bound[k]; ++j) p.nodes.push_back(node_at[j]);
  }
  return out;
}

std::vector<PathSegment> SlicePath(const MergedPaths& m, const MergedPath& path, int64_t begin,
                                   int64_t end) {
  std::vector<PathSegment> out;
  begin = std::max(begin, path.range.begin);
  end = std::min(end, path.range.end);
  if (end <= begin) return out;
  // Nodes tile the range in order: the first one ending after `begin`.
  auto it = std::partition_point(path.nodes.begin(), path.nodes.end(),
                                 [&](uint32_t n) { return m.nodes[n].end <= begin; });
  for (; it != path.nodes.end(); ++it) {
    const MergedNode& n = m.nodes[*it];
    if (n.start >= end) break;
    const int64_t s = std::max(n.start, begin), e = std::min(n.end, end);
    if (!out.empty()) {
      PathSegment& last = out.back();
      if (last.worker == n.worker && last.state == n.state && last.qualifier == n.qualifier &&
          last.end == s) {
        last.end = e;
        continue;
      }
    }
    out.push_back(PathSegment{n.worker, n.state, n.qualifier, s, e});
  }
  return out;
}

}  // namespace causeway::graph
