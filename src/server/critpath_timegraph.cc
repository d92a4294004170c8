#include "server/critpath_timegraph.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "server/query_params.h"
#include "server/thread_timegraph.h"

namespace causeway::server {
namespace {

using nlohmann::json;
using requests::Cause;

constexpr int64_t kRequestShift = 32;
constexpr int64_t kRequestRowLow = 0xffffffff;  // the request's own row
int64_t RowId(size_t request, uint32_t worker) {
  return (static_cast<int64_t>(request + 1) << kRequestShift) | worker;
}
int64_t RequestRowId(size_t request) { return RowId(request, kRequestRowLow); }

std::string CauseKey(Cause c) {
  std::string key(requests::CauseName(c));
  for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return key;
}

json Style(const std::string& key) { return {{"parentKey", key}, {"values", json::object()}}; }

const char* CauseColor(Cause c) {
  switch (c) {
    case Cause::kRunning:
      return "#2e7d32";
    case Cause::kPreempted:
      return "#f9a825";
    case Cause::kBlockedByRequest:
      return "#c62828";
    case Cause::kWaitingForThread:
      return "#8e24aa";
    case Cause::kNetwork:
      return "#1565c0";
    case Cause::kDisk:
      return "#6d4c41";
    case Cause::kTimer:
      return "#00897b";
    case Cause::kInterrupted:
      return "#ef6c00";
    case Cause::kBlocked:
      return "#9e9e9e";
    case Cause::kUnknown:
      return "#cfcfcf";
    case Cause::kOther:
      return "#607d8b";
    case Cause::kDiskQueue:
      return "#a1887f";
  }
  return "#cfcfcf";
}

// Pieces at the view's resolution: a piece at least one step long is given whole; runs of
// shorter ones closer than a step to each other are one merged state, whose hint is the
// longest piece in it. emit(start, end, piece, merged).
template <typename Emit>
void PiecesAtResolution(const std::vector<const requests::Piece*>& pieces, int64_t from, int64_t to,
                        int64_t step, Emit&& emit) {
  const requests::Piece* first = nullptr;
  const requests::Piece* longest = nullptr;
  int64_t run_end = 0;
  size_t run = 0;
  auto flush = [&] {
    if (run == 1) emit(first->start, first->end, first, false);
    if (run > 1) emit(first->start, run_end, longest, true);
    run = 0;
  };
  for (const requests::Piece* p : pieces) {
    if (p->end < from || p->start > to) continue;
    if (p->end - p->start >= step) {
      flush();
      emit(p->start, p->end, p, false);
      continue;
    }
    if (run > 0 && p->start - run_end < step) {
      run_end = p->end;
      if (p->end - p->start > longest->end - longest->start) longest = p;
      ++run;
      continue;
    }
    flush();
    first = longest = p;
    run_end = p->end;
    run = 1;
  }
  flush();
}

class CriticalPathTimeGraph : public Output {
 public:
  std::string id() const override { return "causeway.critical_path"; }
  std::string type() const override { return "TIME_GRAPH"; }
  std::string name() const override { return "Request critical path"; }
  std::string description() const override {
    return "One request's critical path across threads and hosts, coloured by cause "
           "(parameters.request: trace id or prefix; default the slowest request)";
  }

  StatusOr<json> Tree(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(size_t ri, RequestOfParameters(d, p));
    const auto& a = d.recording.requests;
    const graph::ExecutionGraph& g = d.recording.kernel->graph;
    const requests::Request& r = a.requests[ri];
    const requests::RequestDetail detail = a.Detail(ri);
    json entries = json::array();
    entries.push_back(
        {{"id", RequestRowId(ri)},
         {"parentId", -1},
         {"labels", {RequestLabel(d, ri), fmt::format("{:.3f} ms", r.latency() / 1e6)}},
         {"start", r.start},
         {"end", r.end},
         {"hasData", true},
         {"metadata", {{"request", {ri}}, {"latency_ns", {r.latency()}}}}});
    std::vector<graph::WorkerId> order;
    for (const requests::Piece& piece : detail.path)
      if (piece.worker != graph::kNoWorker &&
          std::find(order.begin(), order.end(), piece.worker) == order.end())
        order.push_back(piece.worker);
    for (graph::WorkerId w : order) {
      entries.push_back({{"id", RowId(ri, w)},
                         {"parentId", RequestRowId(ri)},
                         {"labels", {a.ThreadLabel(g, w), std::to_string(g.worker(w).tid)}},
                         {"start", r.start},
                         {"end", r.end},
                         {"hasData", true},
                         {"metadata", {{"thread_entry", {ThreadEntryId(w)}}}}});
    }
    return json{{"entries", std::move(entries)},
                {"headers",
                 {{{"name", "Request / thread"}, {"tooltip", ""}},
                  {{"name", "Latency / TID"}, {"tooltip", ""}}}},
                {"autoExpandLevel", -1}};
  }

  StatusOr<json> States(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> items, ParseItems(p, 4096));
    ASSIGN_OR_RETURN(size_t ri, RequestOfItems(d, p, items));
    const auto& a = d.recording.requests;
    const requests::Request& r = a.requests[ri];
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {r.start, r.end, kDefaultSamples}, true));
    const requests::RequestDetail detail = a.Detail(ri);
    std::vector<int64_t> rows;
    if (items) {
      rows = *items;
    } else {
      rows.push_back(RequestRowId(ri));
      for (const requests::Piece& piece : detail.path)
        if (piece.worker != graph::kNoWorker &&
            std::find(rows.begin(), rows.end(), RowId(ri, piece.worker)) == rows.end())
          rows.push_back(RowId(ri, piece.worker));
    }
    json out = json::array();
    for (int64_t row : rows) {
      if ((row >> kRequestShift) != static_cast<int64_t>(ri + 1)) continue;
      const int64_t low = row & kRequestRowLow;
      std::vector<const requests::Piece*> pieces;
      for (const requests::Piece& piece : detail.path)
        if (low == kRequestRowLow || piece.worker == static_cast<graph::WorkerId>(low))
          pieces.push_back(&piece);
      json states = json::array();
      PiecesAtResolution(
          pieces, q.start, q.end, q.step(),
          [&](int64_t s, int64_t e, const requests::Piece* piece, bool merged) {
            if (merged) {
              // Composed styles (the last wins): the hint's colour, MULTIPLE's height.
              states.push_back({{"start", s},
                                {"end", e},
                                {"style", Style(CauseKey(piece->cause) + ",MULTIPLE")}});
              return;
            }
            json one = {{"start", s}, {"end", e}, {"style", Style(CauseKey(piece->cause))}};
            if (piece->cause == Cause::kBlockedByRequest && piece->other_request >= 0)
              one["label"] = RequestLabel(d, static_cast<size_t>(piece->other_request));
            states.push_back(std::move(one));
          });
      out.push_back({{"entryId", row}, {"states", std::move(states)}});
    }
    return json{{"rows", std::move(out)}};
  }

  StatusOr<json> Arrows(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> items, ParseItems(p, 4096));
    ASSIGN_OR_RETURN(size_t ri, RequestOfItems(d, p, items));
    const auto& a = d.recording.requests;
    const requests::Request& r = a.requests[ri];
    ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {r.start, r.end, kDefaultSamples}, true));
    const requests::RequestDetail detail = a.Detail(ri);
    json arrows = json::array();
    int64_t last = 0;
    bool have_last = false;
    const int64_t step = q.step();
    for (size_t i = 1; i < detail.path.size(); ++i) {
      const requests::Piece& from = detail.path[i - 1];
      const requests::Piece& to = detail.path[i];
      if (from.worker == to.worker || from.worker == graph::kNoWorker ||
          to.worker == graph::kNoWorker)
        continue;
      if (to.start < q.start || to.start > q.end) continue;
      const bool blocked =
          from.cause == Cause::kBlockedByRequest || to.cause == Cause::kBlockedByRequest;
      // Hops less than a step apart are drawn once, but those into another request's thread.
      if (!blocked && have_last && to.start - last < step) continue;
      have_last = true;
      last = to.start;
      arrows.push_back({{"sourceId", RowId(ri, from.worker)},
                        {"targetId", RowId(ri, to.worker)},
                        {"start", from.end},
                        {"end", to.start},
                        {"style", Style(blocked ? "BLOCKED_BY_REQUEST" : "PATH")}});
    }
    return arrows;
  }

  json Styles() const override {
    json styles = json::object();
    for (int c = 0; c < requests::kNumCauses; ++c) {
      const auto cause = static_cast<Cause>(c);
      styles[CauseKey(cause)] = {{"values",
                                  {{"style-name", std::string(requests::CauseName(cause))},
                                   {"background-color", CauseColor(cause)},
                                   {"height", 1.0}}}};
    }
    styles["MULTIPLE"] = {{"values", {{"style-name", "several pieces"}, {"height", 0.6}}}};
    styles["PATH"] = {
        {"values",
         {{"style-name", "path moves to another thread"}, {"color", "#37474f"}, {"width", 1}}}};
    styles["BLOCKED_BY_REQUEST"] = {
        {"values", {{"style-name", "blocked by request"}, {"color", "#c62828"}, {"width", 2}}}};
    return {{"styles", std::move(styles)}};
  }

 private:
  // The request the rows asked for belong to (their upper bits), else the parameters'.
  static StatusOr<size_t> RequestOfItems(const ExperimentData& d, const json& p,
                                         const std::optional<std::vector<int64_t>>& items) {
    if (items && !items->empty() && (p.find("request") == p.end())) {
      const int64_t r = ((*items)[0] >> kRequestShift) - 1;
      if (r < 0 || static_cast<size_t>(r) >= d.recording.requests.requests.size())
        return NotFound(fmt::format("no request for entry {}", (*items)[0]));
      return static_cast<size_t>(r);
    }
    return RequestOfParameters(d, p);
  }
};

}  // namespace

StatusOr<size_t> RequestOfParameters(const ExperimentData& d, const json& p) {
  if (d.slowest_first.empty())
    return NotFound(d.spans_note.empty() ? "the experiment has no requests" : d.spans_note);
  auto it = p.find("request");
  if (it == p.end() || it->is_null()) return static_cast<size_t>(d.slowest_first.front());
  if (it->is_number_integer()) {
    const int64_t i = it->get<int64_t>();
    if (i < 0 || static_cast<size_t>(i) >= d.recording.requests.requests.size())
      return NotFound(fmt::format("no request {}", i));
    return static_cast<size_t>(i);
  }
  if (!it->is_string()) return InvalidArgument("request must be a trace id (string) or an index");
  return requests::FindRequest(d.recording.requests, d.recording.spans, it->get<std::string>());
}

std::string RequestLabel(const ExperimentData& d, size_t request) {
  const requests::Request& r = d.recording.requests.requests[request];
  const spans::Span& root = d.recording.spans.spans[r.root];
  return fmt::format("{} {} {}", spans::TraceIdHex(r.trace).substr(0, 8), *root.service,
                     *root.operation);
}

std::unique_ptr<Output> MakeCriticalPathTimeGraph() {
  return std::make_unique<CriticalPathTimeGraph>();
}

}  // namespace causeway::server
