#include "graph/critical_path.h"

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <unordered_map>

namespace causeway::graph {

namespace {
bool IsWait(State s) { return s == State::kBlocked || s == State::kNetwork; }
}  // namespace

CriticalPath CriticalPathFinder::Compute(WorkerId w, int64_t begin, int64_t end) {
  CriticalPath path;
  Compute(w, begin, end, &path);
  return path;
}

void CriticalPathFinder::Emit(CriticalPath* out, WorkerId w, State s, StringId q, int64_t start,
                              int64_t end) {
  if (end <= start) return;
  if (!out->segments.empty()) {
    PathSegment& last = out->segments.back();
    if (last.worker == w && last.state == s && last.qualifier == q && last.end == start) {
      last.end = end;
      return;
    }
  }
  out->segments.push_back(PathSegment{w, s, q, start, end});
}

void CriticalPathFinder::EmitReverse(WorkerId w, State s, StringId q, int64_t start, int64_t end) {
  if (end <= start) return;
  if (!reverse_.empty()) {
    PathSegment& last = reverse_.back();
    if (last.worker == w && last.state == s && last.qualifier == q && last.start == end) {
      last.start = start;
      return;
    }
  }
  reverse_.push_back(PathSegment{w, s, q, start, end});
}

void CriticalPathFinder::Compute(WorkerId w, int64_t begin, int64_t end, CriticalPath* out) {
  out->segments.clear();
  out->links.clear();
  out->worker = w;
  const Worker& k = g_.worker(w);
  begin = std::max(begin, k.start());
  end = std::min(end, g_.WorkerEnd(w));
  if (end < begin) end = begin;
  out->begin = begin;
  out->end = end;

  size_t i = std::upper_bound(k.ts.begin(), k.ts.end(), begin) - k.ts.begin();
  i = i > 0 ? i - 1 : 0;
  size_t hint = 0;
  for (; i < k.size() && k.ts[i] < end; ++i) {
    const int64_t s = std::max(k.ts[i], begin);
    const int64_t t = std::min(g_.EdgeEnd(w, i), end);
    if (t <= s) continue;
    const State st = k.state(i);
    const StringId q = k.qualifier(i);
    // A wait's cause is the signal that ended it, even when that comes after the range:
    // what the signaller did until then is what held the thread back (clipped to the range).
    if (IsWait(st) && i + 1 < k.size()) {
      const InLink* l = g_.FindInLink(w, static_cast<uint32_t>(i + 1), &hint);
      if (l && l->kind() != LinkKind::kFork) {
        Resolve(*l, w, q, k.ts[i + 1], s, end, out);
        continue;
      }
    }
    Emit(out, w, st, q, s, t);
  }
  // Ties broken on every field: the same path gives the same list, however it was found.
  std::sort(out->links.begin(), out->links.end(), [](const PathLink& a, const PathLink& b) {
    return std::tie(a.to_ts, a.from_ts, a.from, a.to, a.kind) <
           std::tie(b.to_ts, b.from_ts, b.from, b.to, b.kind);
  });
}

void CriticalPathFinder::Follow(const InLink& link, WorkerId target, StringId target_qual,
                                int64_t wake_ts, int64_t start, CriticalPath* out) {
  const WorkerId src = link.from_worker;
  const uint32_t fv = link.from_vertex();
  if (src == kNoWorker || src >= g_.num_workers() || fv >= g_.worker(src).size()) {
    EmitReverse(target, State::kUnknown, target_qual, start, wake_ts);
    return;
  }
  int64_t from_ts = wake_ts;
  if (link.kind() == LinkKind::kNetwork) {
    // The segment left the sender at its send vertex; the time in flight is the network's.
    from_ts = g_.worker(src).ts[fv];
    if (links_) out->links.push_back(PathLink{src, target, from_ts, wake_ts, LinkKind::kNetwork});
    if (from_ts < start || from_ts > wake_ts) {
      // Sent before the wait began (or, clocks unsynchronized, after it ended): the wait
      // was on the network alone.
      EmitReverse(target, State::kNetwork, target_qual, start, wake_ts);
      return;
    }
    EmitReverse(target, State::kNetwork, target_qual, from_ts, wake_ts);
  } else if (links_) {
    out->links.push_back(PathLink{src, target, from_ts, wake_ts, link.kind()});
  }
  stack_.push_back(
      Frame{src, static_cast<int64_t>(fv), from_ts, start, true, g_.worker(src).in.size()});
}

void CriticalPathFinder::Resolve(const InLink& link, WorkerId target, StringId target_qual,
                                 int64_t wake_ts, int64_t start, int64_t clip_end,
                                 CriticalPath* out) {
  reverse_.clear();
  stack_.clear();
  const size_t links_before = out->links.size();
  Follow(link, target, target_qual, wake_ts, start, out);
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.cur_end <= f.start) {
      stack_.pop_back();
      continue;
    }
    const Worker& k = g_.worker(f.worker);
    if (f.vertex < 0) {
      // Walked back past the worker's first vertex: continue in the parent that forked
      // it, else the time before is unknown.
      const Frame done = f;
      stack_.pop_back();
      if (!k.in.empty() && k.in[0].vertex == 0 && k.in[0].kind() == LinkKind::kFork) {
        Follow(k.in[0], done.worker, 0, done.cur_end, done.start, out);
      } else {
        EmitReverse(done.worker, State::kUnknown, 0, done.start, done.cur_end);
      }
      continue;
    }
    const size_t v = static_cast<size_t>(f.vertex);
    const int64_t seg_end = f.cur_end;
    const int64_t seg_start = std::min(std::max(k.ts[v], f.start), seg_end);
    const State st = k.state(v);
    const StringId q = k.qualifier(v);
    const InLink* l = nullptr;
    if (!f.first && IsWait(st) && v + 1 < k.size())
      l = g_.FindInLink(f.worker, static_cast<uint32_t>(v + 1), &f.hint);
    const WorkerId w = f.worker;
    f.cur_end = seg_start;
    f.vertex = static_cast<int64_t>(v) - 1;
    f.first = false;
    if (l && l->kind() != LinkKind::kFork) {
      Follow(*l, w, q, seg_end, seg_start, out);  // may reallocate the stack: f is stale
    } else {
      EmitReverse(w, st, q, seg_start, seg_end);
    }
  }
  for (auto it = reverse_.rbegin(); it != reverse_.rend() && it->start < clip_end; ++it)
    Emit(out, it->worker, it->state, it->qualifier, it->start, std::min(it->end, clip_end));
  // Links whose signal came after the range stay out of it.
  out->links.erase(std::remove_if(out->links.begin() + static_cast<std::ptrdiff_t>(links_before),
                                  out->links.end(),
                                  [clip_end](const PathLink& l) { return l.to_ts > clip_end; }),
                   out->links.end());
}

void SliceCriticalPath(const CriticalPath& path, int64_t begin, int64_t end,
                       std::vector<PathSegment>* out) {
  out->clear();
  begin = std::max(begin, path.begin);
  end = std::min(end, path.end);
  if (end <= begin) return;
  // The segments tile the range in order: the first one ending after `begin`.
  auto it = std::partition_point(path.segments.begin(), path.segments.end(),
                                 [&](const PathSegment& s) { return s.end <= begin; });
  // Compute has joined equal neighbours already: clipping the two ends is all a slice needs.
  for (; it != path.segments.end() && it->start < end; ++it)
    out->push_back(PathSegment{it->worker, it->state, it->qualifier, std::max(it->start, begin),
                               std::min(it->end, end)});
}

PathSummary Summarize(const CriticalPath& path) {
  PathSummary s;
  std::unordered_map<WorkerId, size_t> index;
  for (const PathSegment& seg : path.segments) {
    const int64_t d = seg.end - seg.start;
    const int st = static_cast<int>(seg.state);
    s.total += d;
    s.by_state[st] += d;
    auto [it, added] = index.emplace(seg.worker, s.by_thread.size());
    if (added) s.by_thread.push_back(PathSummary::Thread{seg.worker, 0, {}});
    PathSummary::Thread& t = s.by_thread[it->second];
    t.total += d;
    t.by_state[st] += d;
  }
  std::stable_sort(
      s.by_thread.begin(), s.by_thread.end(),
      [](const PathSummary::Thread& a, const PathSummary::Thread& b) { return a.total > b.total; });
  return s;
}

}  // namespace causeway::graph
