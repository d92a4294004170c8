#include "requests/span_placement.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "graph/thread_lookup.h"
#include "requests/trace_context.h"

namespace causeway::requests {

namespace {

using graph::WorkerId;
using kernel::HttpMessage;

// A request and the response that answered it on the same connection, as one side saw it:
// a server side received the request, a client side sent it.
struct Exchange {
  size_t request = 0;       // index in the messages
  ptrdiff_t response = -1;  // -1: no response seen
  std::optional<TraceContext> context;
  WorkerId worker = graph::kNoWorker;  // the thread that read or wrote the request
  bool server = false;
  bool claimed = false;                 // a span took it
  std::optional<spans::TraceId> trace;  // the request's trace, once known
};

struct ContextKey {
  spans::TraceId trace;
  uint64_t span = 0;
  bool operator<(const ContextKey& o) const {
    return std::tie(trace, span) < std::tie(o.trace, o.span);
  }
};

// a - b and a + b, clamped to int64's range: span times come from files and may be absurd.
int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? INT64_MAX : INT64_MIN;
}
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

int64_t Median(std::vector<int64_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

class Placer {
 public:
  Placer(const graph::ExecutionGraph& g, uint32_t host, const std::vector<HttpMessage>& messages,
         spans::SpanSet* set)
      : g_(g), host_(host), messages_(messages), set_(*set) {
    for (uint32_t h = 0; h < std::max<size_t>(1, g.hosts().size()); ++h)
      lookups_.emplace_back(g, h);
    out_.worker.assign(set_.spans.size(), graph::kNoWorker);
    anchored_.assign(set_.spans.size(), 0);
  }

  SpanPlacement Run() {
    FindExchanges();
    for (size_t i = 0; i < set_.spans.size(); ++i) PlaceSpan(i);
    CorrectTimes();
    for (size_t i = 0; i < set_.spans.size(); ++i) PlaceUnderAncestor(i, 0);
    for (size_t i = 0; i < set_.spans.size(); ++i) {
      spans::Span& s = set_.spans[i];
      if (out_.worker[i] != graph::kNoWorker) s.tid = g_.worker(out_.worker[i]).tid;
      ++out_.spans_by_source[s.placed_by];
    }
    MakeMessageSteps();
    return std::move(out_);
  }

 private:
  WorkerId WorkerOf(const HttpMessage& m) const {
    return m.host < lookups_.size() ? lookups_[m.host].At(m.tid, m.ts) : graph::kNoWorker;
  }
  void Place(size_t i, ThreadSource source, WorkerId w) {
    set_.spans[i].placed_by = static_cast<uint8_t>(source);
    out_.worker[i] = w;
  }

  // Pairs each request with the next response on its connection, per side (HTTP/1.x
  // answers a connection's requests in order).
  void FindExchanges() {
    std::map<std::string, std::deque<size_t>> open;  // connection side -> exchanges waiting
    for (size_t mi = 0; mi < messages_.size(); ++mi) {
      const HttpMessage& m = messages_[mi];
      ++out_.messages;
      out_.messages_truncated += m.truncated;
      const std::string conn =
          fmt::format("{}|{}|{}|{}|{}", m.host, m.laddr, m.lport, m.raddr, m.rport);
      if (m.is_request()) {
        Exchange e;
        e.request = mi;
        e.server = !m.sent;
        e.context = ParseTraceContext(m.traceparent, m.b3, m.uber_trace_id);
        if (e.context) {
          ++out_.messages_with_context;
          e.trace = e.context->trace;
        }
        e.worker = WorkerOf(m);
        const size_t ei = exchanges_.size();
        exchanges_.push_back(e);
        open[conn].push_back(ei);
        if (e.context)
          (e.server ? server_by_context_ : client_by_context_)
              .try_emplace({e.context->trace, e.context->span_id}, ei);
        else if (e.server)
          server_by_ports_[{m.pid, m.rport}].push_back(ei);
      } else {
        auto it = open.find(conn);
        if (it == open.end() || it->second.empty()) continue;
        Exchange& e = exchanges_[it->second.front()];
        // A response goes the other way from its request.
        if (messages_[e.request].sent == m.sent) continue;
        e.response = static_cast<ptrdiff_t>(mi);
        it->second.pop_front();
      }
    }
  }

  std::optional<size_t> Find(const std::map<ContextKey, size_t>& index, const spans::TraceId& t,
                             uint64_t span) const {
    auto it = index.find({t, span});
    if (it == index.end() || exchanges_[it->second].claimed) return std::nullopt;
    return it->second;
  }

  // The exchange a span took part in, by its trace context or, for a root server span,
  // by the ports of its connection.
  std::optional<size_t> ExchangeOf(const spans::Span& s) const {
    const bool server_kind =
        s.kind == spans::SpanKind::kServer || s.kind == spans::SpanKind::kUnspecified;
    if (s.kind != spans::SpanKind::kServer)
      if (auto e = Find(client_by_context_, s.trace, s.span_id)) return e;
    if (server_kind && s.parent_span_id != 0)
      if (auto e = Find(server_by_context_, s.trace, s.parent_span_id)) return e;
    if (s.kind != spans::SpanKind::kServer || s.peer_port == 0 || s.pid == 0) return std::nullopt;
    auto it = server_by_ports_.find({s.pid, s.peer_port});
    if (it == server_by_ports_.end()) return std::nullopt;
    std::optional<size_t> best;
    int64_t best_gap = INT64_MAX;
    for (size_t ei : it->second) {
      const Exchange& e = exchanges_[ei];
      const HttpMessage& m = messages_[e.request];
      if (e.claimed || (s.host_port != 0 && m.lport != s.host_port)) continue;
      const int64_t diff = SaturatingSub(m.ts, s.start_ns);
      const int64_t gap = diff == INT64_MIN ? INT64_MAX : std::abs(diff);
      if (!best || gap < best_gap) {
        best_gap = gap;
        best = ei;
      }
    }
    return best;
  }

  void PlaceSpan(size_t i) {
    spans::Span& s = set_.spans[i];
    s.placed_by = static_cast<uint8_t>(ThreadSource::kNone);
    if (s.synced) {
      const WorkerId w = lookups_[host_].At(s.tid, s.start_ns);
      Place(i, w != graph::kNoWorker ? ThreadSource::kSyncEvents : ThreadSource::kThreadNotInTrace,
            w);
      return;
    }
    if (auto ei = ExchangeOf(s)) {
      Exchange& e = exchanges_[*ei];
      const HttpMessage& m = messages_[e.request];
      if (s.pid == 0 || m.pid == s.pid) {
        e.claimed = true;
        e.trace = s.trace;
        if (e.worker == graph::kNoWorker) {
          Place(i, ThreadSource::kThreadNotInTrace, e.worker);
          return;
        }
        Place(i, ThreadSource::kHttpMessage, e.worker);
        NameAfterRequestLine(m, &s);
        anchored_[i] = 1;
        exchange_of_span_.emplace(i, *ei);
        // A server span starts when its request is read; a client span some time before
        // its request is written (connecting, queueing): the servers' offsets are the
        // process's when it has both.
        (e.server ? server_offsets_ : client_offsets_)[m.pid].push_back(
            SaturatingSub(m.ts, s.start_ns));
        return;
      }
    }
    if (s.tid == 0) return;
    const WorkerId w = lookups_[host_].At(s.tid, s.start_ns);
    if (w == graph::kNoWorker) {
      Place(i, ThreadSource::kThreadNotInTrace, w);
      s.tid = 0;
      return;
    }
    // A runtime's own thread number (OTel's thread.id in most languages) is no kernel tid:
    // kept only when the kernel has that tid in the span's process.
    const int32_t kernel_pid = g_.worker(w).pid;
    if (s.pid != 0 && kernel_pid >= 0 && kernel_pid != s.pid) {
      ++out_.thread_ids_ignored;
      Place(i, ThreadSource::kThreadIdIgnored, graph::kNoWorker);
      s.tid = 0;
      return;
    }
    Place(i, ThreadSource::kThreadAttribute, w);
  }

  // HTTP instrumentations without a framework name spans by the method alone ("GET"):
  // the request line the kernel saw adds the path (without the query), so that routes are
  // told apart.
  void NameAfterRequestLine(const HttpMessage& m, spans::Span* s) {
    if (s->operation->find('/') != std::string::npos) return;
    const std::string_view line = m.first_line;
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return;
    std::string_view path = line.substr(sp + 1);
    path = path.substr(0, path.find_first_of(" ?#"));
    if (path.empty()) return;
    const std::string_view method = line.substr(0, sp);
    const std::string name = *s->operation == method || s->operation->empty()
                                 ? fmt::format("{} {}", method, path)
                                 : fmt::format("{} {}", *s->operation, path);
    s->operation = set_.names->Intern(name);
  }

  // Anchored spans take their messages' kernel times; the others of the same process move
  // by the process's median offset.
  void CorrectTimes() {
    std::map<int32_t, int64_t> offset;
    for (auto& [pid, diffs] : client_offsets_) offset[pid] = Median(diffs);
    for (auto& [pid, diffs] : server_offsets_) offset[pid] = Median(diffs);
    out_.processes_corrected = offset.size();
    for (size_t i = 0; i < set_.spans.size(); ++i) {
      spans::Span& s = set_.spans[i];
      if (s.synced) continue;
      auto off = offset.find(s.pid);
      const int64_t moved_start =
          off != offset.end() ? SaturatingAdd(s.start_ns, off->second) : s.start_ns;
      const int64_t moved_end =
          off != offset.end() ? SaturatingAdd(s.end_ns, off->second) : s.end_ns;
      if (!anchored_[i]) {
        s.start_ns = moved_start;
        s.end_ns = moved_end;
        continue;
      }
      const Exchange& e = exchanges_[exchange_of_span_.at(i)];
      const int64_t request_ts = messages_[e.request].ts;
      // A client span starts before its request is written (connecting, queueing in an
      // agent): the earlier of the two. A server span starts when its request is read.
      s.start_ns = e.server ? request_ts : std::min(request_ts, moved_start);
      s.end_ns = e.response >= 0 ? messages_[static_cast<size_t>(e.response)].ts : moved_end;
      s.end_ns = std::max(s.end_ns, s.start_ns);
    }
  }

  // The worker of the nearest placed ancestor in the same process (-1: none), placing `i`
  // under it when it has no thread of its own.
  WorkerId PlaceUnderAncestor(size_t i, int depth) {
    if (out_.worker[i] != graph::kNoWorker) return out_.worker[i];
    const spans::Span& s = set_.spans[i];
    // Depth-bounded: a parent cycle in a damaged file ends here.
    if (depth > 64 || s.parent_span_id == 0) return graph::kNoWorker;
    auto p = set_.by_id.find(s.parent_span_id);
    if (p == set_.by_id.end() || p->second == i) return graph::kNoWorker;
    const spans::Span& parent = set_.spans[p->second];
    if (s.pid != 0 && parent.pid != 0 && parent.pid != s.pid) return graph::kNoWorker;
    const WorkerId w = PlaceUnderAncestor(p->second, depth + 1);
    const auto source = static_cast<ThreadSource>(s.placed_by);
    if (w != graph::kNoWorker &&
        (source == ThreadSource::kNone || source == ThreadSource::kThreadIdIgnored))
      Place(i, ThreadSource::kAncestor, w);
    return out_.worker[i];
  }

  // When worker w, awake at t, last woke up: the start of the run of running and
  // preempted states that holds t.
  int64_t AwakeSince(WorkerId w, int64_t t) const {
    const graph::Worker& k = g_.worker(w);
    auto it = std::upper_bound(k.ts.begin(), k.ts.end(), t);
    if (it == k.ts.begin()) return t;
    size_t v = static_cast<size_t>(it - k.ts.begin()) - 1;
    auto awake = [&](size_t i) {
      return k.state(i) == graph::State::kRunning || k.state(i) == graph::State::kPreempted;
    };
    if (!awake(v)) return t;
    while (v > 0 && awake(v - 1)) --v;
    return k.ts[v];
  }

  void MakeMessageSteps() {
    // The first message a thread handles after it woke up says what it woke up for (the
    // data of a received one arrived; a timer or a disk completion led to a sent one): its
    // request starts at the wake-up. A thread that was already awake starts on it at the
    // message.
    auto add = [&](WorkerId w, const HttpMessage& m, const std::optional<spans::TraceId>& trace) {
      if (w == graph::kNoWorker) return;
      MessageStep step{m.ts, trace.value_or(spans::TraceId{}), !trace.has_value()};
      step.awake_since = AwakeSince(w, m.ts);
      out_.message_steps[w].push_back(step);
    };
    std::vector<uint8_t> in_exchange(messages_.size(), 0);
    for (const Exchange& e : exchanges_) {
      in_exchange[e.request] = 1;
      add(e.worker, messages_[e.request], e.trace);
      if (e.response < 0) continue;
      const HttpMessage& r = messages_[static_cast<size_t>(e.response)];
      in_exchange[static_cast<size_t>(e.response)] = 1;
      // A client's answer hands the request back to it. A server works for the request up
      // to its response, which ends its part in it.
      add(WorkerOf(r), r, e.trace);
      if (e.server) {
        const WorkerId w = WorkerOf(r);
        if (w != graph::kNoWorker) out_.message_steps[w].push_back({r.ts, {}, true, r.ts});
      }
    }
    for (size_t mi = 0; mi < messages_.size(); ++mi)
      if (!in_exchange[mi]) add(WorkerOf(messages_[mi]), messages_[mi], std::nullopt);
    for (auto& [w, steps] : out_.message_steps) {
      std::stable_sort(steps.begin(), steps.end(),
                       [](const MessageStep& a, const MessageStep& b) { return a.ts < b.ts; });
      for (size_t i = 1; i < steps.size(); ++i)
        if (steps[i].awake_since > steps[i - 1].ts) steps[i].ts = steps[i].awake_since;
    }
  }

  const graph::ExecutionGraph& g_;
  const uint32_t host_;
  const std::vector<HttpMessage>& messages_;
  spans::SpanSet& set_;
  std::vector<graph::ThreadLookup> lookups_;
  std::vector<Exchange> exchanges_;
  std::map<ContextKey, size_t> client_by_context_, server_by_context_;
  std::map<std::pair<int32_t, uint16_t>, std::vector<size_t>> server_by_ports_;  // (pid, peer port)
  // Per process: kernel - file start of its anchored server and client spans.
  std::map<int32_t, std::vector<int64_t>> server_offsets_, client_offsets_;
  std::vector<uint8_t> anchored_;
  std::unordered_map<size_t, size_t> exchange_of_span_;
  SpanPlacement out_;
};

}  // namespace

std::string_view ThreadSourceName(ThreadSource s) {
  static constexpr std::string_view kNames[kNumThreadSources] = {
      "none",     "sync_events",       "http_message",       "thread_attribute",
      "ancestor", "thread_id_ignored", "thread_not_in_trace"};
  return kNames[static_cast<int>(s)];
}

std::string_view UnplacedReason(ThreadSource s) {
  switch (s) {
    case ThreadSource::kNone:
      return "no thread attribute and no matching HTTP message";
    case ThreadSource::kThreadIdIgnored:
      return "its thread.id is not a thread of its process (process.pid)";
    case ThreadSource::kThreadNotInTrace:
      return "its thread is not in the kernel trace at that time";
    default:
      return "";
  }
}

SpanPlacement PlaceSpans(const graph::ExecutionGraph& g, uint32_t host,
                         const std::vector<kernel::HttpMessage>& messages, spans::SpanSet* set) {
  return Placer(g, host, messages, set).Run();
}

}  // namespace causeway::requests
