#include "graph/cpu_holders.h"

#include <algorithm>

namespace causeway::graph {

namespace {

// The CPU of `host` whose timeline hands it to `w` at `ts` (a switch-in), or whose task
// before `ts` was `w` and changed at `ts` (a switch-out); -1 when none does.
int32_t CpuSwitching(const CpuTimelines& t, uint32_t host, WorkerId w, int64_t ts, bool in) {
  for (size_t c = 0; c < t.num_cpus(host); ++c) {
    const CpuTimeline& cpu = t.cpu(host, static_cast<int32_t>(c));
    auto it = std::lower_bound(cpu.ts.begin(), cpu.ts.end(), ts);
    // Several switches may share a timestamp; look at each.
    for (; it != cpu.ts.end() && *it == ts; ++it) {
      const size_t i = static_cast<size_t>(it - cpu.ts.begin());
      if (in ? cpu.task[i] == w : (i > 0 && cpu.task[i - 1] == w)) return static_cast<int32_t>(c);
    }
  }
  return -1;
}

void AddTo(std::vector<CpuHolder>* sums, WorkerId task, int64_t ns) {
  if (ns <= 0) return;
  for (CpuHolder& h : *sums)
    if (h.task == task) {
      h.ns += ns;
      return;
    }
  sums->push_back({task, ns});
}

void SortLargestFirst(std::vector<CpuHolder>* v) {
  std::sort(v->begin(), v->end(), [](const CpuHolder& a, const CpuHolder& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.task < b.task;
  });
}

}  // namespace

bool IsThrottled(const ExecutionGraph& g, StringId qualifier) {
  return qualifier != 0 && g.str(qualifier).starts_with(kThrottledPrefix);
}

CpuWait WhoHeldTheCpu(const ExecutionGraph& g, WorkerId w, int64_t start, int64_t end, size_t top) {
  CpuWait out;
  if (w >= g.num_workers() || end <= start) return out;
  const Worker& k = g.worker(w);
  // The edge holding `start`: the last vertex at or before it.
  auto v = std::upper_bound(k.ts.begin(), k.ts.end(), start);
  if (v == k.ts.begin()) return out;
  const size_t vertex = static_cast<size_t>(v - k.ts.begin()) - 1;
  if (IsThrottled(g, k.qualifier(vertex))) out.throttled = k.qualifier(vertex);
  const CpuTimelines& t = g.cpu_timelines();
  int32_t cpu = -1;
  if (vertex + 1 < k.size()) cpu = CpuSwitching(t, k.host, w, k.ts[vertex + 1], /*in=*/true);
  if (cpu < 0) cpu = CpuSwitching(t, k.host, w, k.ts[vertex], /*in=*/false);
  if (cpu < 0) return out;
  out.cpu = cpu;
  const CpuTimeline& line = t.cpu(k.host, cpu);
  // The switch in force at `start`, then each one inside the range.
  size_t i = static_cast<size_t>(std::upper_bound(line.ts.begin(), line.ts.end(), start) -
                                 line.ts.begin());
  int64_t at = start;
  WorkerId holder = i > 0 ? line.task[i - 1] : kUnknownTask;
  for (; i < line.ts.size() && line.ts[i] < end; ++i) {
    AddTo(&out.holders, holder, line.ts[i] - at);
    at = line.ts[i];
    holder = line.task[i];
  }
  AddTo(&out.holders, holder, end - at);
  SortLargestFirst(&out.holders);
  if (out.holders.size() > top) out.holders.resize(top);
  return out;
}

void CpuWaitSum::Add(WorkerId w, int64_t start, int64_t end) {
  if (end <= start) return;
  const CpuWait wait = WhoHeldTheCpu(g_, w, start, end, SIZE_MAX);
  sum_.ns += end - start;
  for (const CpuHolder& h : wait.holders) AddTo(&sum_.held_by, h.task, h.ns);
  if (wait.throttled != 0) {
    sum_.throttled_ns += end - start;
    auto it = std::find_if(throttled_.begin(), throttled_.end(),
                           [&](const auto& t) { return t.first == wait.throttled; });
    if (it == throttled_.end())
      throttled_.push_back({wait.throttled, end - start});
    else
      it->second += end - start;
  }
}

void CpuWaitSum::AddThread(WorkerId w, int64_t start, int64_t end) {
  const Worker& k = g_.worker(w);
  for (size_t v = 0; v < k.size(); ++v) {
    if (k.state(v) != State::kPreempted) continue;
    const int64_t a = std::max(start, k.ts[v]), b = std::min(end, g_.EdgeEnd(w, v));
    if (a < b) Add(w, a, b);
  }
}

CpuWaitSummary CpuWaitSum::Take(size_t top) {
  CpuWaitSummary out = std::move(sum_);
  sum_ = {};
  SortLargestFirst(&out.held_by);
  if (out.held_by.size() > top) out.held_by.resize(top);
  int64_t best = 0;
  for (const auto& [q, ns] : throttled_)
    if (ns > best) {
      best = ns;
      out.throttled = q;
    }
  throttled_.clear();
  return out;
}

}  // namespace causeway::graph
