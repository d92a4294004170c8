#include "report/request_format.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <numeric>
#include <unordered_map>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "report/cpu_wait_format.h"
#include "report/critpath_format.h"
#include "report/json_writer.h"
#include "report/request_diagnosis.h"
#include "report/terminal_text.h"

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

std::string Who(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                graph::WorkerId w) {
  return w == graph::kNoWorker ? "-" : TerminalText(a.ThreadLabel(g, w));
}

// ThreadJson plus the thread's service: of the spans it ran, else of its process's threads.
nlohmann::json ThreadWithService(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                                 graph::WorkerId w) {
  nlohmann::json t = ThreadJson(g, w);
  if (const std::string* service = a.ServiceOf(g, w)) t["service"] = *service;
  return t;
}

// Indices 0..N-1 ordered by their names' bytes: the order nlohmann::json writes keys in.
template <size_t N, typename Name>
std::array<int, N> ByName(Name name) {
  std::array<int, N> order;
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return name(x) < name(y); });
  return order;
}

void AppendCauses(std::string* out, const int64_t* by_cause) {
  static const auto kOrder =
      ByName<kNumCauses>([](int c) { return requests::CauseName(static_cast<Cause>(c)); });
  out->push_back('{');
  bool first = true;
  for (int c : kOrder) {
    if (!by_cause[c]) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, requests::CauseName(static_cast<Cause>(c)));
    out->push_back(':');
    AppendJsonInt(out, by_cause[c]);
  }
  out->push_back('}');
}

nlohmann::json CausesJson(const int64_t* by_cause) {
  std::string text;
  AppendCauses(&text, by_cause);
  return nlohmann::json::parse(text);
}

// Ids are written by the hundred thousand (every request's blocking requests): a format
// compiled once, into a buffer, costs a tenth of parsing the format string each time.
void AppendHexId(std::string* out, const spans::TraceId& t) {
  char buf[34];
  char* end = fmt::format_to(buf, FMT_COMPILE("\"{:016x}{:016x}\""), t.high, t.low);
  out->append(buf, static_cast<size_t>(end - buf));
}

// A request's summary as one compact JSON object: the same bytes as building it with
// nlohmann::json and dumping it (keys in byte order), written directly because the JSON
// of every request of a large recording cost a sixth of `causeway requests`. Threads are
// few and shared by many requests: each one's JSON is built once, in `threads`.
void AppendRequestSummary(std::string* out, const graph::ExecutionGraph& g, const spans::SpanSet& s,
                          const requests::RequestAnalysis& a, const Request& r,
                          const requests::RequestDetail& detail,
                          std::unordered_map<graph::WorkerId, std::string>* threads) {
  static const auto kStateOrder = ByName<graph::kNumStates>(
      [](int st) { return graph::StateNameLower(static_cast<graph::State>(st)); });
  const spans::Span& root = s.spans[r.root];
  out->append("{\"blocked_by_requests\":[");
  for (size_t i = 0; i < detail.by_request.size(); ++i) {
    out->append(i ? ",{\"ns\":" : "{\"ns\":");
    AppendJsonInt(out, detail.by_request[i].second);
    out->append(",\"trace_id\":");
    AppendHexId(out, a.requests[detail.by_request[i].first].trace);
    out->push_back('}');
  }
  out->append("],\"blocked_by_requests_states\":{");
  bool first = true;
  for (int st : kStateOrder) {
    if (!r.blocked_by_state[st]) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, graph::StateNameLower(static_cast<graph::State>(st)));
    out->push_back(':');
    AppendJsonInt(out, r.blocked_by_state[st]);
  }
  out->append("},\"by_cause\":");
  AppendCauses(out, r.by_cause);
  if (detail.cpu_wait.ns > 0) {
    out->append(",\"cpu_wait\":");
    out->append(CpuWaitSummaryJson(g, detail.cpu_wait).dump());
  }
  out->append(",\"diagnosis\":");
  AppendJsonString(out, RequestDiagnosis(g, s, a, r, detail));
  out->append(",\"dominant_cause\":");
  AppendJsonString(out, requests::CauseName(r.dominant));
  out->append(",\"end\":");
  AppendJsonInt(out, r.end);
  out->append(",\"latency_ns\":");
  AppendJsonInt(out, r.latency());
  out->append(",\"operation\":");
  AppendJsonString(out, *root.operation);
  out->append(",\"service\":");
  AppendJsonString(out, *root.service);
  char span_id[40];
  char* span_id_end =
      fmt::format_to(span_id, FMT_COMPILE(",\"span_id\":\"{:016x}\",\"start\":"), root.span_id);
  out->append(span_id, static_cast<size_t>(span_id_end - span_id));
  AppendJsonInt(out, r.start);
  out->append(",\"thread\":");
  if (r.worker == graph::kNoWorker) {
    out->append("null");
  } else {
    auto [it, fresh] = threads->try_emplace(r.worker);
    if (fresh) it->second = ThreadWithService(g, a, r.worker).dump();
    out->append(it->second);
  }
  out->append(",\"trace_id\":");
  AppendHexId(out, r.trace);
  out->push_back('}');
}

nlohmann::json RequestSummaryJson(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                                  const requests::RequestAnalysis& a, const Request& r,
                                  const requests::RequestDetail& detail) {
  std::string text;
  std::unordered_map<graph::WorkerId, std::string> threads;
  AppendRequestSummary(&text, g, s, a, r, detail, &threads);
  return nlohmann::json::parse(text);
}

nlohmann::json SpansBySourceJson(const requests::RequestAnalysis& a) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < requests::kNumThreadSources; ++i)
    j[std::string(requests::ThreadSourceName(static_cast<requests::ThreadSource>(i)))] =
        a.spans_by_source[i];
  return j;
}

}  // namespace

// How the spans got their threads, and why some have none: only when there is more to say
// than the line before (HTTP messages seen, thread ids ignored, spans without a thread).
std::string SpanPlacementText(const requests::RequestAnalysis& a) {
  using requests::ThreadSource;
  auto n = [&](ThreadSource s) { return a.spans_by_source[static_cast<int>(s)]; };
  if (a.http_messages == 0 && a.thread_ids_ignored == 0 && n(ThreadSource::kNone) == 0 &&
      n(ThreadSource::kThreadIdIgnored) == 0)
    return {};
  std::string placed;
  auto add = [](std::string* out, uint64_t count, std::string_view what) {
    if (count) *out += fmt::format("{}{} {}", out->empty() ? "" : ", ", count, what);
  };
  add(&placed, n(ThreadSource::kSyncEvents), "by sync events");
  add(&placed, n(ThreadSource::kHttpMessage), "by the HTTP messages the kernel saw");
  add(&placed, n(ThreadSource::kThreadAttribute), "by their thread.id");
  add(&placed, n(ThreadSource::kAncestor), "on their parent's thread");
  std::string out = fmt::format("Spans on threads: {}\n", placed.empty() ? "none" : placed);
  std::string unplaced;
  for (ThreadSource s :
       {ThreadSource::kNone, ThreadSource::kThreadIdIgnored, ThreadSource::kThreadNotInTrace})
    add(&unplaced, n(s), requests::UnplacedReason(s));
  if (!unplaced.empty()) out += fmt::format("Spans without a thread: {}\n", unplaced);
  if (a.thread_ids_ignored > 0)
    out += fmt::format(
        "{} thread.id attributes were ignored: no thread of the span's process has that id "
        "(a runtime's own thread number, not a kernel tid)\n",
        a.thread_ids_ignored);
  if (a.http_messages > 0)
    out += fmt::format(
        "HTTP messages in the kernel trace: {}, {} requests with a trace context, {} with their "
        "headers cut by the recorder's copy; {} threads followed from message to message\n",
        a.http_messages, a.http_messages_with_context, a.http_messages_truncated,
        a.threads_by_messages);
  return out;
}

std::string DataRepairText(const requests::RequestAnalysis& a) {
  std::string out;
  if (a.spans_duplicate_id > 0)
    out += fmt::format(
        "{} spans dropped: their span id was already used by another span (of any trace)\n",
        a.spans_duplicate_id);
  if (a.spans_negative_time > 0)
    out += fmt::format("{} spans dropped: they start before 1970 (a negative time)\n",
                       a.spans_negative_time);
  if (a.parent_cycles > 0)
    out += fmt::format(
        "{} parent chains loop (a span its own parent, or a cycle): each one's earliest span "
        "was taken as its root\n",
        a.parent_cycles);
  if (a.extra_roots > 0)
    out += fmt::format(
        "{} more root spans in traces that have one already: each is a request of its own\n",
        a.extra_roots);
  if (a.sync_traces_damaged > 0)
    out += fmt::format(
        "{} user-space traces are damaged (file and offset above): their sync events were read "
        "up to the damage, the spans that needed the rest keep their own times\n",
        a.sync_traces_damaged);
  if (a.kernel_timestamps_clamped > 0)
    out += fmt::format(
        "{} kernel timestamps went back in time and were clamped (a damaged stream; largest "
        "step back {}): times after such a step may be late by up to that much\n",
        a.kernel_timestamps_clamped,
        FormatDuration(static_cast<int64_t>(a.kernel_max_backward_ns)));
  return out;
}

nlohmann::json DataRepairJson(const requests::RequestAnalysis& a) {
  return {{"spans_duplicate_id", a.spans_duplicate_id},
          {"spans_negative_time", a.spans_negative_time},
          {"parent_cycles", a.parent_cycles},
          {"extra_roots", a.extra_roots},
          {"sync_traces_damaged", a.sync_traces_damaged},
          {"kernel_timestamps_clamped", a.kernel_timestamps_clamped},
          {"kernel_max_backward_ns", a.kernel_max_backward_ns}};
}

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
                    TerminalText(*root.service), TerminalText(*root.operation),
                    FormatDuration(r.latency()), TerminalText(RequestDiagnosis(g, s, a, r)));
  }
  out += fmt::format(
      "\n{} requests ({} shown, slowest first) from {} spans; {} spans timed by user-space sync "
      "events; {} spans without a thread; {} requests without a thread\n",
      a.requests.size(), order.size(), a.spans, a.spans_synced, a.spans_without_thread,
      a.requests_without_thread);
  out += SpanPlacementText(a);
  if (a.span_lines_cut_short > 0)
    out += fmt::format(
        "{} span file lines were cut short (a service died while writing them); their spans are "
        "missing\n",
        a.span_lines_cut_short);
  if (a.kernel_events_discarded > 0)
    out += fmt::format(
        "{} kernel events were discarded by the tracer: their time is UNKNOWN on the paths\n",
        a.kernel_events_discarded);
  if (a.sync_events_discarded > 0)
    out += fmt::format(
        "{} user-space events were discarded by the tracer: spans whose sync events were among "
        "them keep their own (microsecond) times\n",
        a.sync_events_discarded);
  out += DataRepairText(a);
  if (a.merged.shared_nodes > 0)
    out += fmt::format(
        "{} critical paths merged (one per thread and run of overlapping requests): {} states, {} "
        "of them on several paths ({} of path time stored once)\n",
        a.merged.paths.size(), a.merged.num_nodes, a.merged.shared_nodes,
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
      out += fmt::format("{:<12} {:<24} {:>7} {:>12} {:>12}  {}\n", TerminalText(o.service),
                         TerminalText(o.operation), o.count,
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
  std::unordered_map<graph::WorkerId, std::string> threads;
  std::string line;
  for (size_t i : SlowestFirst(a, limit)) {
    line.assign(first ? "\n  " : ",\n  ");
    AppendRequestSummary(&line, g, s, a, a.requests[i], a.Detail(i), &threads);
    ok = ok && std::fwrite(line.data(), 1, line.size(), out) == line.size();
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
  nlohmann::json counters = {{"requests", a.requests.size()},
                             {"spans", a.spans},
                             {"spans_synced", a.spans_synced},
                             {"span_lines_cut_short", a.span_lines_cut_short},
                             {"kernel_events_discarded", a.kernel_events_discarded},
                             {"sync_events_discarded", a.sync_events_discarded},
                             {"spans_without_thread", a.spans_without_thread},
                             {"spans_outside_trace", a.spans_outside_trace},
                             {"requests_without_thread", a.requests_without_thread},
                             {"spans_by_thread_source", SpansBySourceJson(a)},
                             {"thread_ids_ignored", a.thread_ids_ignored},
                             {"http_messages", a.http_messages},
                             {"http_messages_with_context", a.http_messages_with_context},
                             {"http_messages_truncated", a.http_messages_truncated},
                             {"threads_by_messages", a.threads_by_messages}};
  counters.update(DataRepairJson(a));
  const nlohmann::json merged = {{"paths", a.merged.paths.size()},
                                 {"segments", a.merged.segments},
                                 {"nodes", a.merged.num_nodes},
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
  const requests::RequestDetail detail = a.Detail(index);
  const spans::Span& root = s.spans[r.root];
  std::string out =
      fmt::format("Request {} ({} {}), root span {} on {}\n", spans::TraceIdHex(r.trace),
                  TerminalText(*root.service), TerminalText(*root.operation),
                  spans::SpanIdHex(root.span_id), Who(g, a, r.worker));
  out += fmt::format("From {} to {}: {}\nDominant cause: {}\n\n", FormatTimestamp(r.start),
                     FormatTimestamp(r.end), FormatDuration(r.latency()),
                     TerminalText(RequestDiagnosis(g, s, a, r, detail)));
  out += fmt::format("{:>12} {:>12}  {:<34} {:<13} {}\n", "AT", "DURATION", "THREAD", "STATE",
                     "CAUSE");
  for (const auto& p : detail.path) {
    std::string cause(requests::CauseName(p.cause));
    if (p.other_request >= 0) {
      const Request& x = a.requests[p.other_request];
      cause += fmt::format(" {} ({})", spans::TraceIdHex(x.trace).substr(0, 8),
                           TerminalText(*s.spans[x.root].operation));
    }
    if (p.state == graph::State::kPreempted && p.worker != graph::kNoWorker) {
      const graph::CpuWait wait = graph::WhoHeldTheCpu(g, p.worker, p.start, p.end);
      if (wait.throttled != 0) cause += fmt::format(" {}", g.str(wait.throttled));
      const std::string held = CpuWaitText(wait, [&](graph::WorkerId w) { return Who(g, a, w); });
      if (!held.empty()) cause += fmt::format(" ({})", held);
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
  if (!detail.by_request.empty()) {
    out += "Blocked by requests:\n";
    for (const auto& [x, d] : detail.by_request)
      out += fmt::format("  {} ({} {}) {:>12}\n", spans::TraceIdHex(a.requests[x].trace),
                         TerminalText(*s.spans[a.requests[x].root].service),
                         TerminalText(*s.spans[a.requests[x].root].operation), FormatDuration(d));
  }
  out += "Time by thread:\n";
  for (const auto& [w, d] : detail.by_thread)
    out += fmt::format("  {:<34} {:>12}\n", Who(g, a, w), FormatDuration(d));
  if (const std::string repairs = DataRepairText(a); !repairs.empty()) out += "\n" + repairs;
  return out;
}

nlohmann::json RequestJson(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                           const requests::RequestAnalysis& a, size_t index) {
  const Request& r = a.requests[index];
  const requests::RequestDetail detail = a.Detail(index);
  nlohmann::json j = RequestSummaryJson(g, s, a, r, detail);
  nlohmann::json path = nlohmann::json::array();
  for (const auto& p : detail.path) {
    nlohmann::json x = {
        {"start", p.start},
        {"end", p.end},
        {"state", std::string(graph::StateName(p.state))},
        {"cause", std::string(requests::CauseName(p.cause))},
        {"thread",
         p.worker == graph::kNoWorker ? nlohmann::json() : ThreadWithService(g, a, p.worker)}};
    if (p.other_request >= 0) x["request"] = spans::TraceIdHex(a.requests[p.other_request].trace);
    if (p.state == graph::State::kPreempted && p.worker != graph::kNoWorker) {
      const graph::CpuWait wait = graph::WhoHeldTheCpu(g, p.worker, p.start, p.end);
      if (wait.cpu >= 0) x["cpu"] = wait.cpu;
      x["held_by"] = CpuHoldersJson(g, wait.holders);
      if (wait.throttled != 0) x["throttled_by"] = g.str(wait.throttled);
    }
    path.push_back(std::move(x));
  }
  j["path"] = path;
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : detail.links)
    links.push_back({{"from", ThreadWithService(g, a, l.from)},
                     {"to", ThreadWithService(g, a, l.to)},
                     {"from_ts", l.from_ts},
                     {"to_ts", l.to_ts},
                     {"kind", std::string(graph::LinkKindName(l.kind))}});
  j["links"] = links;
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& [w, d] : detail.by_thread) {
    nlohmann::json t = ThreadWithService(g, a, w);
    t["ns"] = d;
    threads.push_back(t);
  }
  j["by_thread"] = threads;
  j["counters"] = DataRepairJson(a);
  j["counters"]["kernel_events_discarded"] = a.kernel_events_discarded;
  j["counters"]["sync_events_discarded"] = a.sync_events_discarded;
  return j;
}

}  // namespace causeway::report
