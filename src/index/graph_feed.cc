#include "index/graph_feed.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "index/index_paths.h"
#include "index/interval_joiner.h"

namespace causeway::index {

using graph::WorkerId;
using state::StateValue;

std::vector<WorkerId> WorkersByThread(const graph::ExecutionGraph& g) {
  std::vector<WorkerId> order(g.num_workers());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&g](WorkerId a, WorkerId b) {
    const graph::Worker& x = g.worker(a);
    const graph::Worker& y = g.worker(b);
    if (x.host != y.host) return x.host < y.host;
    if (x.tid != y.tid) return x.tid < y.tid;
    return x.ts.front() < y.ts.front();
  });
  return order;
}

void WriteThreadStates(const graph::ExecutionGraph& g, state::StateWriter* writer,
                       GraphFeedCounters* counters) {
  const std::vector<WorkerId> order = WorkersByThread(g);
  // Labels by (qualifier, state): a few hundred distinct ones in a trace of millions of edges.
  absl::flat_hash_map<uint32_t, state::StringRef> labels;
  IntervalJoiner state(writer), name(writer);
  for (size_t i = 0; i < order.size(); ++i) {
    const WorkerId w = order[i];
    const graph::Worker& k = g.worker(w);
    if (k.size() == 0) continue;
    const bool same_tid =
        i > 0 && g.worker(order[i - 1]).host == k.host && g.worker(order[i - 1]).tid == k.tid;
    if (!same_tid) {
      state.Flush();
      name.Flush();
      const std::string& host = g.hosts()[k.host];
      state.Reset(writer->Attribute(ThreadAttribute(host, k.tid, "state")));
      name.Reset(writer->Attribute(ThreadAttribute(host, k.tid, "name")));
    }
    ++counters->threads;
    for (size_t v = 0; v < k.size(); ++v) {
      const graph::State s = k.state(v);
      if (s == graph::State::kNone) continue;
      const uint32_t edge = k.edge[v];
      auto [it, added] = labels.try_emplace(edge, 0);
      if (added) it->second = writer->Intern(ThreadStateLabel(s, g.str(k.qualifier(v))));
      state.Add(k.ts[v], g.EdgeEnd(w, v), StateValue::String(it->second));
    }
    if (!k.name.empty())
      name.Add(k.start(), g.WorkerEnd(w), StateValue::String(writer->Intern(k.name)));
  }
  state.Flush();
  name.Flush();
  counters->state_intervals += state.written();
}

void WriteCpuThreads(const graph::ExecutionGraph& g, state::StateWriter* writer,
                     GraphFeedCounters* counters) {
  const graph::CpuTimelines& timelines = g.cpu_timelines();
  IntervalJoiner out(writer);
  for (uint32_t h = 0; h < g.hosts().size(); ++h) {
    for (size_t cpu = 0; cpu < timelines.num_cpus(h); ++cpu) {
      const graph::CpuTimeline& t = timelines.cpu(h, static_cast<int32_t>(cpu));
      if (t.ts.empty()) continue;
      out.Flush();
      out.Reset(writer->Attribute(CpuAttribute(g.hosts()[h], static_cast<int32_t>(cpu), "thread")));
      for (size_t i = 0; i < t.ts.size(); ++i) {
        const int64_t end = i + 1 < t.ts.size() ? t.ts[i + 1] : g.end();
        const uint32_t task = t.task[i];
        if (task == graph::kUnknownTask) continue;
        const int64_t tid = task == graph::kIdleTask ? 0 : g.worker(task).tid;
        out.Add(t.ts[i], end, StateValue::Int(tid));
      }
    }
  }
  out.Flush();
  counters->cpu_intervals += out.written();
}

}  // namespace causeway::index
