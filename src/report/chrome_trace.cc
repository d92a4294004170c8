#include "report/chrome_trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/request_format.h"

namespace causeway::report {
namespace {

using nlohmann::json;

// Process ids of the synthetic tracks (spans use their service's index from 1).
constexpr int kRequestsPid = 1000000;
constexpr int kThreadsPid = 1000001;

}  // namespace

bool WriteChromeTrace(const std::function<bool(std::string_view)>& write,
                      const graph::ExecutionGraph& g, const spans::SpanSet& s,
                      const requests::RequestAnalysis& a, const std::vector<size_t>& which) {
  // Times in µs (the format's unit) from the earliest span or request, as doubles: ns kept.
  int64_t t0 = INT64_MAX;
  for (const auto& sp : s.spans) t0 = std::min(t0, sp.start_ns);
  for (const auto& r : a.requests) t0 = std::min(t0, r.start);
  if (t0 == INT64_MAX) t0 = 0;
  auto us = [t0](int64_t ns) { return static_cast<double>(ns - t0) / 1000.0; };

  // {"displayTimeUnit","otherData","traceEvents"}: the order nlohmann::json writes keys in,
  // the events last, written one at a time.
  const json other = {
      {"counters", DataRepairJson(a)}, {"generator", "causeway export"}, {"origin_ns", t0}};
  bool ok =
      write("{\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + ",\"traceEvents\":[");
  bool first = true;
  auto emit = [&](const json& e) {
    if (!ok) return;
    ok = (first || write(",")) && write(e.dump());
    first = false;
  };
  auto meta = [&](const char* what, int pid, int64_t tid, const std::string& name) {
    json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) e["tid"] = tid;
    emit(e);
  };

  // Spans: one process per service.
  std::map<std::string, int> service_pid;
  for (const auto& sp : s.spans) {
    auto [it, fresh] =
        service_pid.try_emplace(*sp.service, static_cast<int>(service_pid.size()) + 1);
    if (fresh) meta("process_name", it->second, -1, *sp.service);
    emit({{"name", *sp.operation},
          {"cat", "span"},
          {"ph", "X"},
          {"ts", us(sp.start_ns)},
          {"dur", static_cast<double>(sp.end_ns - sp.start_ns) / 1000.0},
          {"pid", it->second},
          {"tid", sp.tid},
          {"args",
           {{"trace_id", spans::TraceIdHex(sp.trace)},
            {"span_id", spans::SpanIdHex(sp.span_id)},
            {"parent_span_id", sp.parent_span_id ? spans::SpanIdHex(sp.parent_span_id) : ""},
            {"kind", std::string(spans::SpanKindName(sp.kind))}}}});
  }

  // Requests' critical paths: one track per request, and the pieces on their threads.
  meta("process_name", kRequestsPid, -1, "critical paths of requests");
  meta("process_name", kThreadsPid, -1, "threads on the critical paths");
  std::set<graph::WorkerId> named;
  uint64_t flow_id = 0;
  for (size_t i : which) {
    if (!ok) break;
    const auto& r = a.requests[i];
    const requests::RequestDetail detail = a.Detail(i);
    const auto& root = s.spans[r.root];
    meta("thread_name", kRequestsPid, static_cast<int64_t>(i),
         fmt::format("{} {} {}", spans::TraceIdHex(r.trace).substr(0, 8), *root.service,
                     *root.operation));
    for (const auto& p : detail.path) {
      json args = {{"request", spans::TraceIdHex(r.trace)},
                   {"state", std::string(graph::StateName(p.state))}};
      if (p.other_request >= 0)
        args["blocked_by"] = spans::TraceIdHex(a.requests[p.other_request].trace);
      if (p.worker != graph::kNoWorker) args["thread"] = a.ThreadLabel(g, p.worker);
      const double dur = static_cast<double>(p.end - p.start) / 1000.0;
      emit({{"name", std::string(requests::CauseName(p.cause))},
            {"cat", "critical_path"},
            {"ph", "X"},
            {"ts", us(p.start)},
            {"dur", dur},
            {"pid", kRequestsPid},
            {"tid", static_cast<int64_t>(i)},
            {"args", args}});
      if (p.worker == graph::kNoWorker) continue;
      const int64_t tid = g.worker(p.worker).tid;
      if (named.insert(p.worker).second)
        meta("thread_name", kThreadsPid, tid, a.ThreadLabel(g, p.worker));
      emit({{"name", std::string(graph::StateName(p.state))},
            {"cat", "thread_state"},
            {"ph", "X"},
            {"ts", us(p.start)},
            {"dur", dur},
            {"pid", kThreadsPid},
            {"tid", tid},
            {"args", args}});
    }
    // Wake-ups and packets as flows between the threads' slices.
    for (const auto& l : detail.links) {
      if (l.from == graph::kNoWorker || l.to == graph::kNoWorker) continue;
      const std::string kind(graph::LinkKindName(l.kind));
      ++flow_id;
      emit({{"ph", "s"},
            {"id", flow_id},
            {"name", kind},
            {"cat", "link"},
            {"pid", kThreadsPid},
            {"tid", g.worker(l.from).tid},
            {"ts", us(l.from_ts)}});
      emit({{"ph", "f"},
            {"bp", "e"},
            {"id", flow_id},
            {"name", kind},
            {"cat", "link"},
            {"pid", kThreadsPid},
            {"tid", g.worker(l.to).tid},
            {"ts", us(l.to_ts)}});
    }
  }
  return ok && write("]}");
}

}  // namespace causeway::report
