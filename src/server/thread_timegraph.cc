#include "server/thread_timegraph.h"

#include <algorithm>
#include <map>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "report/json_writer.h"
#include "server/query_params.h"
#include "server/resolution.h"

namespace causeway::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxArrows = 20000;

const char* StateColor(graph::State s) {
  switch (s) {
    case graph::State::kRunning:
      return "#2e7d32";
    case graph::State::kPreempted:
      return "#f9a825";
    case graph::State::kBlocked:
      return "#9e9e9e";
    case graph::State::kInterrupted:
      return "#ef6c00";
    case graph::State::kTimer:
      return "#00897b";
    case graph::State::kNetwork:
      return "#1565c0";
    case graph::State::kBlockDevice:
      return "#6d4c41";
    case graph::State::kBlockQueue:
      return "#a1887f";
    case graph::State::kUserInput:
      return "#5e35b1";
    case graph::State::kIpi:
      return "#ad1457";
    case graph::State::kUnknown:
      return "#cfcfcf";
    case graph::State::kNone:
      return "#ffffff";
  }
  return "#cfcfcf";
}

class ThreadTimeGraph : public Output {
 public:
  std::string id() const override { return "causeway.threads"; }
  std::string type() const override { return "TIME_GRAPH"; }
  std::string name() const override { return "Threads"; }
  std::string description() const override {
    return "Every thread's state over time (running, preempted, blocked, network, disk...), "
           "with arrows for the wake-ups, packets and forks that ended its waits";
  }

  // {"autoExpandLevel":-1,"entries":[HOST...,PROCESS...,THREAD...],"headers":[...]}, each
  // entry {"end","hasData","id","labels","metadata" (threads),"parentId","start"}: the
  // bytes nlohmann's dump() would write, written directly (67k threads: 22 MB).
  StatusOr<std::string> TreeText(const ExperimentData& d, const json&) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    std::string out = "{\"autoExpandLevel\":-1,\"entries\":[";
    bool first = true;
    auto entry = [&](int64_t id, int64_t parent, std::string_view label, std::string_view label2,
                     int64_t start, int64_t end, bool has_data) {
      if (!first) out += ',';
      first = false;
      out += "{\"end\":";
      report::AppendJsonInt(&out, end);
      out += has_data ? ",\"hasData\":true,\"id\":" : ",\"hasData\":false,\"id\":";
      report::AppendJsonInt(&out, id);
      out += ",\"labels\":[";
      report::AppendJsonString(&out, label);
      out += ',';
      report::AppendJsonString(&out, label2);
      out += ']';
      return [&out, parent, start] {  // what follows the labels (after any metadata)
        out += ",\"parentId\":";
        report::AppendJsonInt(&out, parent);
        out += ",\"start\":";
        report::AppendJsonInt(&out, start);
        out += '}';
      };
    };
    for (uint32_t h = 0; h < g.hosts().size(); ++h)
      entry(kHostEntryBase + h, -1, g.hosts()[h], "", d.begin, d.end, false)();
    // Processes by (host, pid), named by their main thread when the trace has it.
    std::map<std::pair<uint32_t, int32_t>, int64_t> process_ids;
    std::map<std::pair<uint32_t, int32_t>, std::pair<int64_t, int64_t>> process_range;
    for (uint32_t w = 0; w < g.num_workers(); ++w) {
      const graph::Worker& k = g.worker(w);
      if (k.pid < 0) continue;
      auto key = std::make_pair(k.host, k.pid);
      auto [it, fresh] = process_range.try_emplace(key, k.start(), g.WorkerEnd(w));
      if (!fresh) {
        it->second.first = std::min(it->second.first, k.start());
        it->second.second = std::max(it->second.second, g.WorkerEnd(w));
      }
    }
    // A process is named by its main thread (tid == pid): the first worker of each (host,
    // tid), in one pass (a search per process was quadratic: seconds on 67k threads).
    std::map<std::pair<uint32_t, int32_t>, uint32_t> main_thread;
    for (uint32_t w = 0; w < g.num_workers(); ++w)
      main_thread.try_emplace({g.worker(w).host, g.worker(w).tid}, w);
    int64_t next = kProcessEntryBase;
    for (const auto& [key, range] : process_range) {
      auto main = main_thread.find(key);
      const std::string pname = main != main_thread.end() ? g.worker(main->second).name
                                                          : fmt::format("pid {}", key.second);
      process_ids[key] = next;
      entry(next++, kHostEntryBase + key.first, pname, std::to_string(key.second), range.first,
            range.second, false)();
    }
    for (uint32_t w = 0; w < g.num_workers(); ++w) {
      const graph::Worker& k = g.worker(w);
      const int64_t parent = k.pid >= 0 ? process_ids[{k.host, k.pid}] : kHostEntryBase + k.host;
      auto rest = entry(ThreadEntryId(w), parent, k.name, std::to_string(k.tid), k.start(),
                        g.WorkerEnd(w), true);
      out += ",\"metadata\":{\"host\":[";
      report::AppendJsonString(&out, g.hosts()[k.host]);
      out += "],\"pid\":[";
      report::AppendJsonInt(&out, k.pid);
      out += "],\"tid\":[";
      report::AppendJsonInt(&out, k.tid);
      out += "]}";
      rest();
    }
    out +=
        "],\"headers\":[{\"name\":\"Thread\",\"tooltip\":\"host, process, thread\"},"
        "{\"name\":\"TID\",\"tooltip\":\"thread or process id\"}]}";
    return out;
  }

  StatusOr<json> Tree(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::string text, TreeText(d, p));
    return json::parse(text);
  }

  // The json versions parse the text: one way of writing the views, the fast one.
  StatusOr<json> States(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::string text, StatesText(d, p));
    return json::parse(text);
  }
  StatusOr<json> Arrows(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::string text, ArrowsText(d, p));
    return json::parse(text);
  }

  // {"rows":[{"entryId":ID,"states":[{"end":E,"label":L,"start":S,"style":STYLE},...]},...]}
  // with STYLE {"parentKey":"RUNNING","values":{}}: the bytes nlohmann's dump() would write
  // (keys in byte order), written directly (json_writer.h).
  StatusOr<std::string> StatesText(const ExperimentData& d, const json& p) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {d.begin, d.end, kDefaultSamples}, true));
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> items, ParseItems(p));
    std::vector<uint32_t> workers;
    if (items) {
      for (int64_t id : *items)
        if (id >= 1 && id <= static_cast<int64_t>(g.num_workers()))
          workers.push_back(static_cast<uint32_t>(id - 1));
    } else {
      for (uint32_t w = 0; w < g.num_workers(); ++w) workers.push_back(w);
    }
    std::string out = "{\"rows\":[";
    for (size_t r = 0; r < workers.size(); ++r) {
      const uint32_t w = workers[r];
      const graph::Worker& k = g.worker(w);
      if (r) out += ',';
      out += "{\"entryId\":";
      report::AppendJsonInt(&out, ThreadEntryId(w));
      out += ",\"states\":[";
      bool first = true;
      ForEachStateAtResolution(k.ts, g.WorkerEnd(w), q.start, q.end, q.step(),
                               [&](int64_t s, int64_t e, size_t edge, bool merged) {
                                 const graph::State st = k.state(edge);
                                 if (!merged && st == graph::State::kNone) return;
                                 if (!first) out += ',';
                                 first = false;
                                 out += "{\"end\":";
                                 report::AppendJsonInt(&out, e);
                                 const graph::StringId qual = merged ? 0 : k.qualifier(edge);
                                 if (qual != 0) {
                                   out += ",\"label\":";
                                   report::AppendJsonString(&out, g.str(qual));
                                 }
                                 out += ",\"start\":";
                                 report::AppendJsonInt(&out, s);
                                 out += ",\"style\":{\"parentKey\":\"";
                                 out += graph::StateName(st);
                                 // Composed styles (the last wins): the hint's colour, MULTIPLE's
                                 // height.
                                 if (merged) out += ",MULTIPLE";
                                 out += "\",\"values\":{}}}";
                               });
      out += "]}";
    }
    out += "]}";
    return out;
  }

  // [{"end":E,"sourceId":FROM,"start":S,"style":STYLE,"targetId":TO},...]
  StatusOr<std::string> ArrowsText(const ExperimentData& d, const json& p) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {d.begin, d.end, kDefaultSamples}, true));
    const int64_t step = q.step();
    std::string out = "[";
    size_t arrows = 0;
    absl::flat_hash_map<graph::WorkerId, int64_t> last_end_from;
    for (uint32_t w = 0; w < g.num_workers() && arrows < kMaxArrows; ++w) {
      const graph::Worker& k = g.worker(w);
      // In-links are sorted by target vertex, whose times are sorted: the first one in the
      // view by binary search.
      auto first =
          std::lower_bound(k.in.begin(), k.in.end(), q.start,
                           [&](const graph::InLink& l, int64_t t) { return k.ts[l.vertex] < t; });
      // Arrows into one thread from the same thread less than a step apart are one: the
      // last kept arrow's end per source (a whole-trace view would otherwise draw every
      // wake-up of a busy pair, thousands on one pixel column).
      last_end_from.clear();
      for (auto it = first; it != k.in.end() && arrows < kMaxArrows; ++it) {
        const int64_t end = k.ts[it->vertex];
        if (end > q.end) break;
        if (it->from_worker >= g.num_workers()) continue;
        auto [last, fresh] = last_end_from.try_emplace(it->from_worker, end);
        if (!fresh) {
          if (end - last->second < step) continue;
          last->second = end;
        }
        const graph::Worker& from = g.worker(it->from_worker);
        const int64_t start = from.ts[std::min<size_t>(it->from_vertex(), from.size() - 1)];
        if (arrows++) out += ',';
        out += "{\"end\":";
        report::AppendJsonInt(&out, end);
        out += ",\"sourceId\":";
        report::AppendJsonInt(&out, ThreadEntryId(it->from_worker));
        out += ",\"start\":";
        report::AppendJsonInt(&out, start);
        out += ",\"style\":{\"parentKey\":\"";
        out += it->kind() == graph::LinkKind::kWakeup    ? "WAKEUP"
               : it->kind() == graph::LinkKind::kNetwork ? "PACKET"
                                                         : "FORK";
        out += "\",\"values\":{}},\"targetId\":";
        report::AppendJsonInt(&out, ThreadEntryId(w));
        out += '}';
      }
    }
    out += ']';
    return out;
  }

  StatusOr<json> Tooltip(const ExperimentData& d, const json& p) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> items, ParseItems(p, 1));
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {d.begin, d.end, 1}, true));
    if (!items || items->empty()) return InvalidArgument("requested_items: one thread entry id");
    const int64_t id = items->front();
    if (id < 1 || id > static_cast<int64_t>(g.num_workers())) return json::object();
    const uint32_t w = static_cast<uint32_t>(id - 1);
    const graph::Worker& k = g.worker(w);
    auto it = std::upper_bound(k.ts.begin(), k.ts.end(), q.start);
    if (it == k.ts.begin()) return json::object();
    const size_t v = static_cast<size_t>(it - k.ts.begin()) - 1;
    json out = {{"Thread", fmt::format("{} (tid {})", k.name, k.tid)},
                {"State", std::string(graph::StateName(k.state(v)))},
                {"Start", std::to_string(k.ts[v])},
                {"Duration (ns)", std::to_string(g.EdgeEnd(w, v) - k.ts[v])}};
    if (k.qualifier(v) != 0) out["Detail"] = std::string(g.str(k.qualifier(v)));
    return out;
  }

  json Styles() const override { return StateStyles(); }
};

}  // namespace

json StateStyles() {
  json styles = json::object();
  for (int s = 0; s < graph::kNumStates; ++s) {
    const auto st = static_cast<graph::State>(s);
    styles[std::string(graph::StateName(st))] = {
        {"values",
         {{"style-name", std::string(graph::StateNameLower(st))},
          {"background-color", StateColor(st)},
          {"height", 1.0}}}};
  }
  styles["MULTIPLE"] = {{"values", {{"style-name", "several states"}, {"height", 0.6}}}};
  styles["WAKEUP"] = {{"values", {{"style-name", "wake-up"}, {"color", "#37474f"}, {"width", 1}}}};
  styles["PACKET"] = {{"values", {{"style-name", "packet"}, {"color", "#1565c0"}, {"width", 1}}}};
  styles["FORK"] = {{"values", {{"style-name", "fork"}, {"color", "#6a1b9a"}, {"width", 1}}}};
  return {{"styles", std::move(styles)}};
}

std::unique_ptr<Output> MakeThreadTimeGraph() { return std::make_unique<ThreadTimeGraph>(); }

}  // namespace causeway::server
