#include "server/data_trees.h"

#include <fmt/format.h>

#include "graph/thread_times.h"
#include "server/critpath_timegraph.h"
#include "server/query_params.h"
#include "server/thread_timegraph.h"

namespace causeway::server {
namespace {

using nlohmann::json;

json Header(const char* name, const char* data_type, const char* tooltip = "") {
  return {{"name", name}, {"tooltip", tooltip}, {"dataType", data_type}};
}

// Children of request r: kRequestChildBase + r * kNumCauses + cause.
constexpr int64_t kRequestChildBase = int64_t{1} << 45;

class RequestsTree : public Output {
 public:
  std::string id() const override { return "causeway.requests"; }
  std::string type() const override { return "DATA_TREE"; }
  std::string name() const override { return "Requests by latency"; }
  std::string description() const override {
    return "Requests slowest first with their dominant cause; each request's time per cause "
           "below it (as `causeway requests`)";
  }

  StatusOr<json> Tree(const ExperimentData& d, const json& p) const override {
    const auto& a = d.recording.requests;
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {INT64_MIN, INT64_MAX, 1}, false));
    json entries = json::array();
    for (uint32_t ri : d.slowest_first) {
      const requests::Request& r = a.requests[ri];
      if (r.end < q.start || r.start > q.end) continue;
      const spans::Span& root = d.recording.spans.spans[r.root];
      entries.push_back(
          {{"id", ri},
           {"parentId", -1},
           {"labels",
            {spans::TraceIdHex(r.trace), fmt::format("{} {}", *root.service, *root.operation),
             std::to_string(r.latency()), std::string(requests::CauseName(r.dominant)),
             std::to_string(r.start)}},
           {"hasData", true},
           {"metadata", {{"request", {ri}}, {"latency_ns", {r.latency()}}}}});
      for (int c = 0; c < requests::kNumCauses; ++c) {
        if (r.by_cause[c] == 0) continue;
        entries.push_back({{"id", kRequestChildBase + int64_t{ri} * requests::kNumCauses + c},
                           {"parentId", ri},
                           {"labels",
                            {std::string(requests::CauseName(static_cast<requests::Cause>(c))), "",
                             std::to_string(r.by_cause[c]), "", ""}},
                           {"hasData", false}});
      }
    }
    return json{{"entries", std::move(entries)},
                {"headers",
                 {Header("Request", "STRING", "trace id"),
                  Header("Operation", "STRING", "service and operation of the root span"),
                  Header("Latency", "DURATION", "ns; for a cause, its time on the path"),
                  Header("Dominant cause", "STRING"), Header("Start", "TIMESTAMP")}},
                {"autoExpandLevel", 0}};
  }
};

class ThreadTimesTree : public Output {
 public:
  std::string id() const override { return "causeway.thread_times"; }
  std::string type() const override { return "DATA_TREE"; }
  std::string name() const override { return "Threads: time per state"; }
  std::string description() const override {
    return "Every thread's time per state over its life (as `causeway threads`)";
  }

  StatusOr<json> Tree(const ExperimentData& d, const json&) const override {
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    const std::vector<graph::ThreadTimes> times = graph::ComputeThreadTimes(g);
    json headers = {Header("Thread", "STRING"), Header("TID", "NUMBER"), Header("Host", "STRING")};
    for (int s = 0; s < graph::kNumStates; ++s) {
      if (static_cast<graph::State>(s) == graph::State::kNone) continue;
      headers.push_back({{"name", std::string(graph::StateNameLower(static_cast<graph::State>(s)))},
                         {"tooltip", "ns"},
                         {"dataType", "DURATION"}});
    }
    json entries = json::array();
    for (const graph::ThreadTimes& t : times) {
      const graph::Worker& k = g.worker(t.worker);
      json labels = {k.name, std::to_string(k.tid), g.hosts()[k.host]};
      for (int s = 0; s < graph::kNumStates; ++s)
        if (static_cast<graph::State>(s) != graph::State::kNone)
          labels.push_back(std::to_string(t.by_state[s]));
      entries.push_back({{"id", ThreadEntryId(t.worker)},
                         {"parentId", -1},
                         {"labels", std::move(labels)},
                         {"hasData", true}});
    }
    return json{{"entries", std::move(entries)}, {"headers", std::move(headers)}};
  }
};

}  // namespace

std::unique_ptr<Output> MakeRequestsTree() { return std::make_unique<RequestsTree>(); }
std::unique_ptr<Output> MakeThreadTimesTree() { return std::make_unique<ThreadTimesTree>(); }

}  // namespace causeway::server
