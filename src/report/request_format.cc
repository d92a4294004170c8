#include "report/request_format.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "report/critpath_format.h"

namespace causeway::report {
namespace {

using requests::Cause;
using requests::kNumCauses;
using requests::Request;

std::vector<size_t> SlowestFirst(const requests::RequestAnalysis& a, long limit) {
  std::vector<size_t> order(a.requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return a.requests[x].latency() > a.requests[y].latency();
  });
  if (limit >= 0 && order.size() > static_cast<size_t>(limit))
    order.resize(static_cast<size_t>(limit));
  return order;
}

nlohmann::json CausesJson(const int64_t* by_cause) {
  nlohmann::json j = nlohmann::json::object();
  for (int c = 0; c < kNumCauses; ++c)
    if (by_cause[c]) j[std::string(requests::CauseName(static_cast<Cause>(c)))] = by_cause[c];
  return j;
}

std::string Who(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                graph::WorkerId w) {
  return w == graph::kNoWorker ? "-" : a.ThreadLabel(g, w);
}

// ThreadJson plus the thread's service: of the spans it ran, else of its process's threads.
nlohmann::json ThreadWithService(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                                 graph::WorkerId w) {
  nlohmann::json t = ThreadJson(g, w);
  if (const std::string* service = a.ServiceOf(g, w)) t["service"] = *service;
  return t;
}

nlohmann::json RequestSummaryJson(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                                  const requests::RequestAnalysis& a, const Request& r) {
  const spans::Span& root = s.spans[r.root];
  nlohmann::json j = {{"trace_id", spans::TraceIdHex(r.trace)},
                      {"span_id", spans::SpanIdHex(root.span_id)},
                      {"service", root.service},
                      {"operation", root.operation},
                      {"start", r.start},
                      {"end", r.end},
                      {"latency_ns", r.latency()},
                      {"thread", r.worker == graph::kNoWorker ? nlohmann::json()
                                                              : ThreadWithService(g, a, r.worker)},
                      {"dominant_cause", std::string(requests::CauseName(r.dominant))},
                      {"diagnosis", r.diagnosis},
                      {"by_cause", CausesJson(r.by_cause)}};
  nlohmann::json blocked = nlohmann::json::array();
  for (const auto& [x, d] : r.by_request)
    blocked.push_back({{"trace_id", spans::TraceIdHex(a.requests[x].trace)}, {"ns", d}});
  j["blocked_by_requests"] = blocked;
  nlohmann::json states = nlohmann::json::object();
  for (int st = 0; st < graph::kNumStates; ++st)
    if (r.blocked_by_state[st])
      states[std::string(graph::StateNameLower(static_cast<graph::State>(st)))] =
          r.blocked_by_state[st];
  j["blocked_by_requests_states"] = states;
  return j;
}

}  // namespace

std::string RequestsText(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                         const requests::RequestAnalysis& a, long limit) {
  std::string out = fmt::format("{:<16}  {:<12} {:<24} {:>12}  {}\n", "REQUEST", "SERVICE",
                                "OPERATION", "LATENCY", "DOMINANT CAUSE");
  const std::vector<size_t> order = SlowestFirst(a, limit);
  for (size_t i : order) {
    const Request& r = a.requests[i];
    const spans::Span& root = s.spans[r.root];
    out +=
        fmt::format("{:<16}  {:<12} {:<24} {:>12}  {}\n", spans::TraceIdHex(r.trace).substr(0, 16),
                    root.service, root.operation, FormatDuration(r.latency()), r.diagnosis);
  }
  out += fmt::format(
      "\n{} requests ({} shown, slowest first) from {} spans; {} spans timed by user-space sync "
      "events; {} spans without a thread; {} requests without a thread\n",
      a.requests.size(), order.size(), a.spans, a.spans_synced, a.spans_without_thread,
      a.requests_without_thread);
  if (a.span_lines_cut_short > 0)
    out += fmt::format(
        "{} span file lines were cut short (a service died while writing them); their spans are "
        "missing\n",
        a.span_lines_cut_short);
  if (a.merged.shared_nodes > 0)
    out += fmt::format(
        "{} critical paths merged (one per thread and run of overlapping requests): {} states, {} "
        "of them on several paths ({} of path time stored once)\n",
        a.merged.paths.size(), a.merged.nodes.size(), a.merged.shared_nodes,
        FormatDuration(static_cast<int64_t>(a.merged.shared_ns)));
  if (!a.operations.empty()) {
    out += fmt::format("\n{:<12} {:<24} {:>7} {:>12} {:>12}  {}\n", "SERVICE", "OPERATION", "COUNT",
                       "MEAN", "MAX", "TIME BY CAUSE");
    for (const auto& o : a.operations) {
      std::string causes;
      std::vector<int> idx(kNumCauses);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(),
                       [&](int x, int y) { return o.by_cause[x] > o.by_cause[y]; });
      const int64_t total = std::max<int64_t>(1, o.total_latency);
      for (int c : idx) {
        if (!o.by_cause[c]) continue;
        causes += fmt::format(
            "{}{} {:.0f}%", causes.empty() ? "" : ", ", requests::CauseName(static_cast<Cause>(c)),
            100.0 * static_cast<double>(o.by_cause[c]) / static_cast<double>(total));
      }
      out += fmt::format("{:<12} {:<24} {:>7} {:>12} {:>12}  {}\n", o.service, o.operation, o.count,
                         FormatDuration(o.total_latency / std::max<int64_t>(1, o.count)),
                         FormatDuration(o.max_latency), causes);
    }
  }
  (void)g;
  return out;
}

bool WriteRequestsJson(std::FILE* out, const graph::ExecutionGraph& g, const spans::SpanSet& s,
                       const requests::RequestAnalysis& a, long limit) {
  bool ok = std::fputs("{\"requests\": [", out) >= 0;
  bool first = true;
  for (size_t i : SlowestFirst(a, limit)) {
    const std::string line = RequestSummaryJson(g, s, a, a.requests[i]).dump();
    ok = ok && std::fputs(first ? "\n  " : ",\n  ", out) >= 0 &&
         std::fwrite(line.data(), 1, line.size(), out) == line.size();
    first = false;
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : a.operations)
    ops.push_back({{"service", o.service},
                   {"operation", o.operation},
                   {"count", o.count},
                   {"mean_latency_ns", o.total_latency / std::max<int64_t>(1, o.count)},
                   {"max_latency_ns", o.max_latency},
                   {"by_cause", CausesJson(o.by_cause)}});
  const nlohmann::json counters = {{"requests", a.requests.size()},
                                   {"spans", a.spans},
                                   {"spans_synced", a.spans_synced},
                                   {"span_lines_cut_short", a.span_lines_cut_short},
                                   {"spans_without_thread", a.spans_without_thread},
                                   {"spans_outside_trace", a.spans_outside_trace},
                                   {"requests_without_thread", a.requests_without_thread}};
  const nlohmann::json merged = {{"paths", a.merged.paths.size()},
                                 {"segments", a.merged.segments},
                                 {"nodes", a.merged.nodes.size()},
                                 {"shared_nodes", a.merged.shared_nodes},
                                 {"shared_ns", a.merged.shared_ns}};
  const std::string tail = fmt::format(
      "{}],\n \"operations\": {},\n \"counters\": {},\n "
      "\"merged_paths\": {}}}\n",
      first ? "" : "\n ", ops.dump(), counters.dump(), merged.dump());
  return ok && std::fwrite(tail.data(), 1, tail.size(), out) == tail.size();
}

std::string RequestText(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                        const requests::RequestAnalysis& a, size_t index) {
  const Request& r = a.requests[index];
  const spans::Span& root = s.spans[r.root];
  std::string out = fmt::format("Request {} ({} {}), root span {} on {}\n",
                                spans::TraceIdHex(r.trace), root.service, root.operation,
                                spans::SpanIdHex(root.span_id), Who(g, a, r.worker));
  out += fmt::format("From {} to {}: {}\nDominant cause: {}\n\n", FormatTimestamp(r.start),
                     FormatTimestamp(r.end), FormatDuration(r.latency()), r.diagnosis);
  out += fmt::format("{:>12} {:>12}  {:<34} {:<13} {}\n", "AT", "DURATION", "THREAD", "STATE",
                     "CAUSE");
  for (const auto& p : r.path) {
    std::string cause(requests::CauseName(p.cause));
    if (p.other_request >= 0) {
      const Request& x = a.requests[p.other_request];
      cause += fmt::format(" {} ({})", spans::TraceIdHex(x.trace).substr(0, 8),
                           s.spans[x.root].operation);
    }
    out += fmt::format("{:>12} {:>12}  {:<34} {:<13} {}\n", "+" + FormatDuration(p.start - r.start),
                       FormatDuration(p.end - p.start), Who(g, a, p.worker),
                       graph::StateName(p.state), cause);
  }
  out += "\nTime by cause:\n";
  for (int c = 0; c < kNumCauses; ++c) {
    if (!r.by_cause[c]) continue;
    out += fmt::format("  {:<20} {:>12} {:>5.1f}%\n", requests::CauseName(static_cast<Cause>(c)),
                       FormatDuration(r.by_cause[c]),
                       100.0 * static_cast<double>(r.by_cause[c]) /
                           static_cast<double>(std::max<int64_t>(1, r.latency())));
  }
  if (!r.by_request.empty()) {
    out += "Blocked by requests:\n";
    for (const auto& [x, d] : r.by_request)
      out += fmt::format("  {} ({} {}) {:>12}\n", spans::TraceIdHex(a.requests[x].trace),
                         s.spans[a.requests[x].root].service, s.spans[a.requests[x].root].operation,
                         FormatDuration(d));
  }
  out += "Time by thread:\n";
  for (const auto& [w, d] : r.by_thread)
    out += fmt::format("  {:<34} {:>12}\n", Who(g, a, w), FormatDuration(d));
  return out;
}

nlohmann::json RequestJson(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                           const requests::RequestAnalysis& a, size_t index) {
  const Request& r = a.requests[index];
  nlohmann::json j = RequestSummaryJson(g, s, a, r);
  nlohmann::json path = nlohmann::json::array();
  for (const auto& p : r.path) {
    nlohmann::json x = {
        {"start", p.start},
        {"end", p.end},
        {"state", std::string(graph::StateName(p.state))},
        {"cause", std::string(requests::CauseName(p.cause))},
        {"thread",
         p.worker == graph::kNoWorker ? nlohmann::json() : ThreadWithService(g, a, p.worker)}};
    if (p.other_request >= 0) x["request"] = spans::TraceIdHex(a.requests[p.other_request].trace);
    path.push_back(std::move(x));
  }
  j["path"] = path;
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : r.links)
    links.push_back({{"from", ThreadWithService(g, a, l.from)},
                     {"to", ThreadWithService(g, a, l.to)},
                     {"from_ts", l.from_ts},
                     {"to_ts", l.to_ts},
                     {"kind", std::string(graph::LinkKindName(l.kind))}});
  j["links"] = links;
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& [w, d] : r.by_thread) {
    nlohmann::json t = ThreadWithService(g, a, w);
    t["ns"] = d;
    threads.push_back(t);
  }
  j["by_thread"] = threads;
  return j;
}

}  // namespace causeway::report
