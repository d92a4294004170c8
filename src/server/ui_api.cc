#include "server/ui_api.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "report/critpath_format.h"
#include "report/request_diagnosis.h"
#include "report/request_format.h"
#include "requests/request_analysis.h"
#include "server/resolution.h"

namespace causeway::server {
namespace {

using graph::WorkerId;
using nlohmann::json;
using requests::Cause;
using requests::kNumCauses;

constexpr int kMaxPixels = 10000;

std::string CauseKey(Cause c) { return std::string(requests::CauseName(c)); }

// A window made valid: at least 1 ns wide, pixels within bounds; its width of a pixel.
struct Window {
  int64_t begin, end;
  int pixels;
  double ns_per_pixel() const { return static_cast<double>(end - begin) / pixels; }
  // The pixel column of t (may be outside [0, pixels) for times outside the window).
  int64_t Column(int64_t t) const {
    return static_cast<int64_t>(std::floor(static_cast<double>(t - begin) / ns_per_pixel()));
  }
  json ToJson() const {
    return {{"begin", begin}, {"end", end}, {"pixels", pixels}, {"ns_per_pixel", ns_per_pixel()}};
  }
};

Window MakeWindow(const UiWindow& w, int64_t default_begin, int64_t default_end) {
  Window x{w.begin, w.end, std::clamp(w.pixels, 1, kMaxPixels)};
  if (x.end <= x.begin) {
    x.begin = default_begin;
    x.end = default_end;
  }
  if (x.end <= x.begin) x.end = x.begin + 1;
  return x;
}

const std::string& ServiceOrEmpty(const std::string* s) {
  static const std::string empty;
  return s ? *s : empty;
}

std::string RequestId(const requests::RequestAnalysis& a, int32_t index) {
  return spans::TraceIdHex(a.requests[static_cast<size_t>(index)].trace);
}

std::string OperationKey(const spans::Span& root) {
  return ServiceOrEmpty(root.service) + " " + ServiceOrEmpty(root.operation);
}

// The rows of one request's view: the request, the requests in its way, then the threads
// its path runs on, grouped by host in order of first appearance.
class Rows {
 public:
  Rows(const analysis::RecordingAnalysis& r, int64_t origin) : r_(r), origin_(origin) {}

  std::string Request(int32_t index, const std::string& kind) {
    const std::string key = "r:" + RequestId(r_.requests, index);
    if (seen_.insert(key).second) {
      const requests::Request& q = r_.requests.requests[static_cast<size_t>(index)];
      const spans::Span& root = r_.spans.spans[q.root];
      requests_.push_back({{"key", key},
                           {"kind", kind},
                           {"id", RequestId(r_.requests, index)},
                           {"label", OperationKey(root)},
                           {"start", q.start - origin_},
                           {"end", q.end - origin_}});
    }
    return key;
  }

  std::string Thread(WorkerId w) {
    const std::string key = w == graph::kNoWorker ? "t:-" : "t:" + std::to_string(w);
    if (seen_.insert(key).second) {
      if (w == graph::kNoWorker) {
        threads_.push_back({~0u, {{"key", key}, {"kind", "thread"}, {"label", "no thread"}}});
      } else {
        const graph::ExecutionGraph& g = r_.kernel->graph;
        json row = report::ThreadJson(g, w);
        row["key"] = key;
        row["kind"] = "thread";
        row["worker"] = w;
        row["label"] = r_.requests.ThreadLabel(g, w);
        threads_.push_back({g.worker(w).host, std::move(row)});
      }
    }
    return key;
  }

  json ToJson() {
    // Hosts in order of their first thread's appearance; threads keep theirs within a host.
    std::vector<uint32_t> host_order;
    for (const auto& [host, row] : threads_)
      if (std::find(host_order.begin(), host_order.end(), host) == host_order.end())
        host_order.push_back(host);
    json rows = requests_;
    for (uint32_t host : host_order)
      for (const auto& [h, row] : threads_)
        if (h == host) rows.push_back(row);
    return rows;
  }

 private:
  const analysis::RecordingAnalysis& r_;
  int64_t origin_;
  std::set<std::string> seen_;
  json requests_ = json::array();
  std::vector<std::pair<uint32_t, json>> threads_;
};

// Consecutive pieces of one row merged while either is narrower than a pixel and the gap
// between them is too: the merged piece takes the cause and state it spent most time in.
class PieceMerger {
 public:
  explicit PieceMerger(const Window& w) : w_(w) {}

  void Add(const requests::Piece& p, const std::string& other) {
    const int64_t s = std::max(p.start, w_.begin), e = std::min(p.end, w_.end);
    if (e <= s && !(e == s && p.start == p.end && s >= w_.begin && s <= w_.end)) return;
    const double npp = w_.ns_per_pixel();
    const bool same = open_ && p.cause == cause_ && p.state == state_ && other == other_;
    const bool narrow =
        static_cast<double>(end_ - start_) < npp || static_cast<double>(e - s) < npp;
    if (open_ && static_cast<double>(s - end_) < npp && (same || narrow)) {
      end_ = std::max(end_, e);
    } else {
      Flush();
      open_ = true;
      start_ = s;
      end_ = e;
      cause_time_.fill(0);
      state_time_.fill(0);
      others_.clear();
      count_ = 0;
    }
    cause_time_[static_cast<int>(p.cause)] += e - s;
    state_time_[static_cast<int>(p.state)] += e - s;
    if (!other.empty()) others_[other] += e - s;
    ++count_;
    // What the piece shows so far: the largest share (the first piece's while all are 0 ns).
    cause_ = static_cast<Cause>(ArgMax(cause_time_, static_cast<int>(p.cause), count_ == 1));
    state_ = static_cast<graph::State>(ArgMax(state_time_, static_cast<int>(p.state), count_ == 1));
    other_.clear();
    int64_t best = -1;
    for (const auto& [id, t] : others_)
      if (t > best) best = t, other_ = id;
  }

  // Moves the merged pieces out, each {start, end, state, cause, request?, merged?} with
  // `row` and times relative to `origin`.
  void Flush() {
    if (!open_) return;
    open_ = false;
    json x = {{"start", start_},
              {"end", end_},
              {"state", std::string(graph::StateNameLower(state_))},
              {"cause", CauseKey(cause_)}};
    if (cause_ == Cause::kBlockedByRequest && !other_.empty()) x["request"] = other_;
    if (count_ > 1) x["merged"] = count_;
    out_.push_back(std::move(x));
  }

  std::vector<json>& out() { return out_; }

 private:
  template <size_t N>
  static int ArgMax(const std::array<int64_t, N>& a, int fallback, bool first) {
    if (first) return fallback;
    return static_cast<int>(std::max_element(a.begin(), a.end()) - a.begin());
  }

  const Window& w_;
  bool open_ = false;
  int64_t start_ = 0, end_ = 0;
  Cause cause_ = Cause::kUnknown;
  graph::State state_ = graph::State::kUnknown;
  std::string other_;
  std::array<int64_t, kNumCauses> cause_time_{};
  std::array<int64_t, graph::kNumStates> state_time_{};
  std::map<std::string, int64_t> others_;
  int count_ = 0;
  std::vector<json> out_;
};

// Arrows kept one per kind, pair of rows and pixel column of their head.
class ArrowSet {
 public:
  explicit ArrowSet(const Window& w) : w_(w) {}
  void Add(const std::string& kind, const std::string& from_row, int64_t from_t,
           const std::string& to_row, int64_t to_t) {
    if (std::max(from_t, to_t) < w_.begin || std::min(from_t, to_t) > w_.end) return;
    if (!seen_.insert({kind, from_row, to_row, w_.Column(to_t)}).second) return;
    out_.push_back({{"kind", kind},
                    {"from", {{"row", from_row}, {"t", from_t}}},
                    {"to", {{"row", to_row}, {"t", to_t}}}});
  }
  json& out() { return out_; }

 private:
  const Window& w_;
  std::set<std::tuple<std::string, std::string, std::string, int64_t>> seen_;
  json out_ = json::array();
};

json CausesObject(const int64_t* by_cause) {
  json j = json::object();
  for (int c = 0; c < kNumCauses; ++c)
    if (by_cause[c]) j[CauseKey(static_cast<Cause>(c))] = by_cause[c];
  return j;
}

}  // namespace

int64_t UiOrigin(const analysis::RecordingAnalysis& r) { return r.kernel ? r.kernel->begin : 0; }

json UiRequestsJson(const analysis::RecordingAnalysis& r, const UiRequestQuery& q) {
  const requests::RequestAnalysis& a = r.requests;
  const int64_t origin = UiOrigin(r);
  std::vector<size_t> order(a.requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return a.requests[x].latency() > a.requests[y].latency();
  });
  std::map<std::string, std::pair<const spans::Span*, int64_t>> operations;
  std::array<int64_t, kNumCauses> causes{};
  json rows = json::array();
  size_t matched = 0;
  for (size_t i : order) {
    const requests::Request& x = a.requests[i];
    const spans::Span& root = r.spans.spans[x.root];
    const std::string key = OperationKey(root);
    auto& op = operations[key];
    op.first = &root;
    ++op.second;
    ++causes[static_cast<int>(x.dominant)];
    if (!q.operation.empty() && q.operation != key) continue;
    if (!q.cause.empty() && q.cause != requests::CauseName(x.dominant)) continue;
    if (matched++ >= q.limit) continue;
    rows.push_back(
        {{"id", spans::TraceIdHex(x.trace)},
         {"service", ServiceOrEmpty(root.service)},
         {"operation", ServiceOrEmpty(root.operation)},
         {"start", x.start - origin},
         {"end", x.end - origin},
         {"latency", x.latency()},
         {"dominant_cause", CauseKey(x.dominant)},
         {"diagnosis",
          r.kernel ? report::RequestDiagnosis(r.kernel->graph, r.spans, a, x) : std::string()}});
  }
  json ops = json::array();
  for (const auto& [key, op] : operations)
    ops.push_back({{"key", key},
                   {"service", ServiceOrEmpty(op.first->service)},
                   {"operation", ServiceOrEmpty(op.first->operation)},
                   {"count", op.second}});
  json cause_counts = json::array();
  for (int c = 0; c < kNumCauses; ++c)
    if (causes[c])
      cause_counts.push_back({{"cause", CauseKey(static_cast<Cause>(c))}, {"count", causes[c]}});
  return {{"origin", origin}, {"total", a.requests.size()}, {"matched", matched},
          {"requests", rows}, {"operations", ops},          {"causes", cause_counts}};
}

StatusOr<json> UiRequestJson(const analysis::RecordingAnalysis& r, std::string_view id,
                             const UiWindow& uw) {
  if (!r.kernel) return FailedPrecondition("no kernel analysis");
  const requests::RequestAnalysis& a = r.requests;
  StatusOr<size_t> found = requests::FindRequest(a, r.spans, id);
  if (!found.ok()) return found.status();
  const size_t index = *found;
  const requests::Request& q = a.requests[index];
  const int64_t origin = UiOrigin(r);
  const int64_t margin = std::max<int64_t>(1, q.latency() / 20);
  const Window w = MakeWindow(uw, q.start - origin - margin, q.end - origin + margin);
  const Window abs{w.begin + origin, w.end + origin, w.pixels};
  const requests::RequestDetail detail = a.Detail(index);

  Rows rows(r, origin);
  const std::string self = rows.Request(static_cast<int32_t>(index), "request");
  for (const auto& [other, t] : detail.by_request) rows.Request(other, "blocked_by");
  // Pieces by row, in path order; the rows in order of first appearance.
  std::map<std::string, PieceMerger> mergers;
  std::vector<std::string> row_order;
  ArrowSet arrows(abs);
  for (const requests::Piece& p : detail.path) {
    const std::string row = rows.Thread(p.worker);
    auto [it, added] = mergers.try_emplace(row, abs);
    if (added) row_order.push_back(row);
    const std::string other = p.other_request >= 0 ? RequestId(a, p.other_request) : "";
    it->second.Add(p, other);
    if (!other.empty())
      arrows.Add("blocked_by_request", rows.Request(p.other_request, "blocked_by"), p.start, row,
                 p.start);
  }
  for (const graph::PathLink& l : detail.links)
    arrows.Add(std::string(graph::LinkKindName(l.kind)), rows.Thread(l.from), l.from_ts,
               rows.Thread(l.to), l.to_ts);

  json pieces = json::array();
  for (const std::string& row : row_order) {
    PieceMerger& m = mergers.at(row);
    m.Flush();
    for (json& p : m.out()) {
      p["row"] = row;
      p["start"] = p["start"].get<int64_t>() - origin;
      p["end"] = p["end"].get<int64_t>() - origin;
      pieces.push_back(std::move(p));
    }
  }
  for (json& x : arrows.out()) {
    x["from"]["t"] = x["from"]["t"].get<int64_t>() - origin;
    x["to"]["t"] = x["to"]["t"].get<int64_t>() - origin;
  }

  const graph::ExecutionGraph& g = r.kernel->graph;
  const spans::Span& root = r.spans.spans[q.root];
  json blocked_by = json::array();
  for (const auto& [other, t] : detail.by_request) {
    const spans::Span& o = r.spans.spans[a.requests[static_cast<size_t>(other)].root];
    blocked_by.push_back({{"id", RequestId(a, other)},
                          {"service", ServiceOrEmpty(o.service)},
                          {"operation", ServiceOrEmpty(o.operation)},
                          {"ns", t}});
  }
  json by_thread = json::array();
  for (const auto& [worker, t] : detail.by_thread)
    by_thread.push_back(
        {{"row", rows.Thread(worker)}, {"label", a.ThreadLabel(g, worker)}, {"ns", t}});
  // The report of `causeway request ID --format json` without the path and links, drawn
  // above at the window's resolution: its summary and whatever levels it carries.
  json report = report::RequestJson(g, r.spans, a, index);
  report.erase("path");
  report.erase("links");
  return json{{"origin", origin},
              {"window", w.ToJson()},
              {"request",
               {{"id", spans::TraceIdHex(q.trace)},
                {"row", self},
                {"service", ServiceOrEmpty(root.service)},
                {"operation", ServiceOrEmpty(root.operation)},
                {"start", q.start - origin},
                {"end", q.end - origin},
                {"latency", q.latency()},
                {"dominant_cause", CauseKey(q.dominant)},
                {"diagnosis", report::RequestDiagnosis(g, r.spans, a, q, detail)}}},
              {"rows", rows.ToJson()},
              {"pieces", pieces},
              {"arrows", arrows.out()},
              {"pie", CausesObject(q.by_cause)},
              {"blocked_by", blocked_by},
              {"by_thread", by_thread},
              {"counts",
               {{"path_pieces", detail.path.size()},
                {"links", detail.links.size()},
                {"pieces", pieces.size()},
                {"arrows", arrows.out().size()}}},
              {"report", report}};
}

json UiThreadsJson(const analysis::RecordingAnalysis& r, const std::vector<WorkerId>& workers,
                   const UiWindow& uw) {
  const int64_t origin = UiOrigin(r);
  const int64_t span = r.kernel ? r.kernel->end - r.kernel->begin : 1;
  const Window w = MakeWindow(uw, 0, span);
  const Window abs{w.begin + origin, w.end + origin, w.pixels};
  json lanes = json::array();
  if (!r.kernel) return {{"origin", origin}, {"window", w.ToJson()}, {"lanes", lanes}};
  const graph::ExecutionGraph& g = r.kernel->graph;
  for (WorkerId id : workers) {
    if (id >= g.num_workers()) continue;
    const graph::Worker& k = g.worker(id);
    json states = json::array();
    auto emit = [&](int64_t s, int64_t e, graph::State st, bool mixed) {
      if (st == graph::State::kNone || e <= s) return;
      const std::string name(graph::StateNameLower(st));
      if (!states.empty()) {
        json& last = states.back();
        if (last["end"].get<int64_t>() == s - origin && last["state"] == name &&
            last.contains("mixed") == mixed) {
          last["end"] = e - origin;
          return;
        }
      }
      json x = {{"start", s - origin}, {"end", e - origin}, {"state", name}};
      if (mixed) x["mixed"] = true;
      states.push_back(std::move(x));
    };
    if (k.ts.empty()) continue;
    const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(abs.ns_per_pixel()));
    // A merged run of short edges shows its hint: the longest of its first edges.
    ForEachStateAtResolution(k.ts, g.end(), abs.begin, abs.end, step,
                             [&](int64_t s, int64_t e, size_t edge, bool merged) {
                               s = std::max(s, abs.begin);
                               e = std::min(e, abs.end);
                               emit(s, e, k.state(edge), merged);
                             });
    lanes.push_back({{"worker", id},
                     {"label", r.requests.ThreadLabel(g, id)},
                     {"host", g.hosts()[k.host]},
                     {"states", states}});
  }
  return {{"origin", origin}, {"window", w.ToJson()}, {"lanes", lanes}};
}

}  // namespace causeway::server
