#include "store_compare/intervals.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "graph/execution_graph.h"

namespace causeway::bench {
namespace {

// Interns paths and strings to dense ids.
class Names {
 public:
  explicit Names(std::vector<std::string>* out) : out_(out) {}
  uint32_t Id(const std::string& s) {
    auto [it, added] = ids_.emplace(s, static_cast<uint32_t>(out_->size()));
    if (added) out_->push_back(s);
    return it->second;
  }

 private:
  std::vector<std::string>* out_;
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace

Dataset ExtractIntervals(const analysis::KernelAnalysis& analysis) {
  const graph::ExecutionGraph& g = analysis.graph;
  Dataset d;
  Names paths(&d.attributes), strings(&d.strings);
  std::unordered_map<uint32_t, uint32_t> label_of_edge;  // edge word -> string id

  // Thread states: a reused tid is several workers on one attribute, one after another;
  // they are appended in the order of their first vertex and clipped so that they never
  // overlap (lost events can leave a dead worker's last edge past the next one's birth).
  std::map<std::pair<uint32_t, int32_t>, std::vector<graph::WorkerId>> workers_of_thread;
  for (graph::WorkerId w = 0; w < g.num_workers(); ++w) {
    const graph::Worker& k = g.worker(w);
    if (k.size() > 0) workers_of_thread[{k.host, k.tid}].push_back(w);
  }
  for (auto& [key, workers] : workers_of_thread) {
    std::sort(workers.begin(), workers.end(), [&](graph::WorkerId a, graph::WorkerId b) {
      return g.worker(a).start() < g.worker(b).start();
    });
    const uint32_t attribute = paths.Id("hosts/" + g.hosts()[key.first] + "/threads/" +
                                        std::to_string(key.second) + "/state");
    d.thread_state_attributes.push_back(attribute);
    int64_t last_end = INT64_MIN;
    for (graph::WorkerId w : workers) {
      const graph::Worker& k = g.worker(w);
      for (size_t v = 0; v < k.size(); ++v) {
        const graph::State s = k.state(v);
        if (s == graph::State::kNone) continue;
        const int64_t start = std::max(k.ts[v], last_end);
        const int64_t end = g.EdgeEnd(w, v);
        if (end <= start) continue;
        auto [it, added] = label_of_edge.emplace(k.edge[v], 0);
        if (added) {
          std::string label(graph::StateName(s));
          if (k.qualifier(v) != 0) label += "(" + std::string(g.str(k.qualifier(v))) + ")";
          it->second = strings.Id(label);
        }
        d.intervals.push_back({start, end, attribute, ValueKind::kString, it->second});
        last_end = end;
      }
    }
  }

  // Who ran on each CPU: the tid (0 idle); unknown holders (lost events) are gaps.
  const graph::CpuTimelines& cpus = g.cpu_timelines();
  for (uint32_t host = 0; host < g.hosts().size(); ++host) {
    for (int32_t cpu = 0; static_cast<size_t>(cpu) < cpus.num_cpus(host); ++cpu) {
      const graph::CpuTimeline& t = cpus.cpu(host, cpu);
      if (t.ts.empty()) continue;
      const uint32_t attribute =
          paths.Id("hosts/" + g.hosts()[host] + "/cpus/" + std::to_string(cpu) + "/thread");
      for (size_t i = 0; i < t.ts.size(); ++i) {
        const int64_t end = i + 1 < t.ts.size() ? t.ts[i + 1] : std::max(g.end(), t.ts[i]);
        if (end <= t.ts[i] || t.task[i] == graph::kUnknownTask) continue;
        const int64_t tid = t.task[i] == graph::kIdleTask ? 0 : g.worker(t.task[i]).tid;
        d.intervals.push_back({t.ts[i], end, attribute, ValueKind::kInt, tid});
      }
    }
  }

  std::sort(d.intervals.begin(), d.intervals.end(), [](const Interval& a, const Interval& b) {
    return a.end != b.end ? a.end < b.end : a.attribute < b.attribute;
  });
  if (!d.intervals.empty()) {
    d.begin = INT64_MAX;
    for (const Interval& i : d.intervals) d.begin = std::min(d.begin, i.start);
    d.end = d.intervals.back().end;
  }
  return d;
}

}  // namespace causeway::bench
