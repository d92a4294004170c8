#include "server/cpu_usage_xy.h"

#include <algorithm>

#include <fmt/format.h>

#include "server/query_params.h"
#include "server/thread_timegraph.h"

namespace causeway::server {
namespace {

using nlohmann::json;

constexpr int64_t kCpusRoot = int64_t{1} << 42;
constexpr int64_t kCpuHostBase = kCpusRoot + 1;      // + host
constexpr int64_t kCpuEntryBase = int64_t{1} << 43;  // + host << 16 | cpu
constexpr int64_t kThreadsRoot = int64_t{1} << 44;
constexpr uint32_t kMaxSeries = 512;

// Busy time of [a, b) for a timeline of (change time, busy?) pairs, added into `busy` per
// sample: walks only the changes inside the view.
template <typename IsBusy>
void AddBusy(const std::vector<int64_t>& ts, int64_t timeline_end, IsBusy&& is_busy, int64_t from,
             int64_t step, std::vector<double>* busy) {
  const size_t n = ts.size();
  const int64_t to = from + step * static_cast<int64_t>(busy->size());
  size_t i = static_cast<size_t>(std::upper_bound(ts.begin(), ts.end(), from) - ts.begin());
  i = i == 0 ? 0 : i - 1;
  for (; i < n && ts[i] < to; ++i) {
    if (!is_busy(i)) continue;
    int64_t s = std::max(ts[i], from);
    const int64_t e = std::min(i + 1 < n ? ts[i + 1] : timeline_end, to);
    while (s < e) {
      const size_t bucket = static_cast<size_t>((s - from) / step);
      const int64_t bucket_end = from + static_cast<int64_t>(bucket + 1) * step;
      const int64_t piece_end = std::min(e, bucket_end);
      (*busy)[bucket] += static_cast<double>(piece_end - s);
      s = piece_end;
    }
  }
}

class CpuUsageXy : public Output {
 public:
  std::string id() const override { return "causeway.cpu_usage"; }
  std::string type() const override { return "TREE_TIME_XY"; }
  std::string name() const override { return "CPU usage"; }
  std::string description() const override {
    return "CPU usage per CPU (busy, not idle) and per thread (running), in % of each sample";
  }

  StatusOr<json> Tree(const ExperimentData& d, const json&) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    const graph::CpuTimelines& cpus = g.cpu_timelines();
    json entries = json::array();
    entries.push_back(
        {{"id", kCpusRoot}, {"parentId", -1}, {"labels", {"CPUs"}}, {"hasData", false}});
    for (uint32_t h = 0; h < g.hosts().size(); ++h) {
      entries.push_back({{"id", kCpuHostBase + h},
                         {"parentId", kCpusRoot},
                         {"labels", {g.hosts()[h]}},
                         {"hasData", false}});
      for (uint32_t c = 0; c < cpus.num_cpus(h); ++c) {
        if (cpus.cpu(h, static_cast<int32_t>(c)).ts.empty()) continue;
        entries.push_back({{"id", kCpuEntryBase + (int64_t{h} << 16 | c)},
                           {"parentId", kCpuHostBase + h},
                           {"labels", {fmt::format("CPU {}", c)}},
                           {"hasData", true},
                           {"isDefault", true}});
      }
    }
    entries.push_back(
        {{"id", kThreadsRoot}, {"parentId", -1}, {"labels", {"Threads"}}, {"hasData", false}});
    for (uint32_t w = 0; w < g.num_workers(); ++w) {
      const graph::Worker& k = g.worker(w);
      bool ran = false;
      for (size_t v = 0; v < k.size() && !ran; ++v) ran = k.state(v) == graph::State::kRunning;
      if (!ran) continue;
      entries.push_back(
          {{"id", ThreadEntryId(w)},
           {"parentId", kThreadsRoot},
           {"labels", {fmt::format("{} (tid {}, {})", k.name, k.tid, g.hosts()[k.host])}},
           {"hasData", true}});
    }
    return json{{"entries", std::move(entries)},
                {"headers", {{{"name", "CPU / thread"}, {"tooltip", ""}}}},
                {"autoExpandLevel", 1}};
  }

  StatusOr<json> Xy(const ExperimentData& d, const json& p) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    const graph::CpuTimelines& cpus = g.cpu_timelines();
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {d.begin, d.end, kDefaultSamples}, true));
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> items, ParseItems(p, kMaxSeries));
    if (!items) return InvalidArgument("requested_items: the CPU or thread entries to draw");
    const int64_t step = q.step();
    std::vector<int64_t> xs(q.samples);
    for (uint32_t i = 0; i < q.samples; ++i) xs[i] = q.start + step * i;
    json series = json::array();
    for (int64_t id : *items) {
      std::vector<double> busy(q.samples, 0.0);
      std::string name;
      if (id >= kCpuEntryBase && id < kThreadsRoot) {
        const uint32_t h = static_cast<uint32_t>((id - kCpuEntryBase) >> 16);
        const int32_t c = static_cast<int32_t>((id - kCpuEntryBase) & 0xffff);
        if (h >= g.hosts().size() || static_cast<size_t>(c) >= cpus.num_cpus(h)) continue;
        const graph::CpuTimeline& t = cpus.cpu(h, c);
        AddBusy(
            t.ts, g.end(),
            [&](size_t i) {
              return t.task[i] != graph::kIdleTask && t.task[i] != graph::kUnknownTask;
            },
            q.start, step, &busy);
        name = fmt::format("CPU {} ({})", c, g.hosts()[h]);
      } else if (id >= 1 && id <= static_cast<int64_t>(g.num_workers())) {
        const uint32_t w = static_cast<uint32_t>(id - 1);
        const graph::Worker& k = g.worker(w);
        AddBusy(
            k.ts, g.WorkerEnd(w), [&](size_t i) { return k.state(i) == graph::State::kRunning; },
            q.start, step, &busy);
        name = fmt::format("{} (tid {})", k.name, k.tid);
      } else {
        continue;
      }
      for (double& b : busy) b = 100.0 * b / static_cast<double>(step);
      series.push_back(
          {{"seriesId", id},
           {"seriesName", name},
           {"xValues", xs},
           {"yValues", std::move(busy)},
           {"style", {{"parentKey", "CPU_USAGE"}, {"values", json::object()}}},
           {"xValuesDescription", {{"label", "time"}, {"unit", "ns"}, {"dataType", "TIMESTAMP"}}},
           {"yValuesDescription",
            {{"label", "CPU usage"}, {"unit", "%"}, {"dataType", "NUMBER"}}}});
    }
    return json{{"title", "CPU usage"}, {"series", std::move(series)}};
  }
};

}  // namespace

std::unique_ptr<Output> MakeCpuUsageXy() { return std::make_unique<CpuUsageXy>(); }

}  // namespace causeway::server
