#include "requests/request_analysis.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "graph/thread_lookup.h"
#include "requests/active_request_steps.h"

namespace causeway::requests {
namespace {

using graph::State;
using graph::WorkerId;

struct Interval {
  int64_t start, end;
  int32_t req;
};

std::vector<Step> BuildTimeline(std::vector<Interval> iv) {
  // Innermost = the open interval that started last (ties: the shorter one).
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<int64_t> times;
  for (const Interval& i : iv) {
    times.push_back(i.start);
    times.push_back(i.end);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<Step> steps;
  // The open intervals in start order. Only the last one that has not ended matters: ended
  // ones are dropped when they come to the top, so that each interval is pushed and popped
  // once (thousands of requests open at once on a thread cost no rescans).
  std::vector<const Interval*> open;
  size_t next = 0;
  for (int64_t t : times) {
    while (!open.empty() && open.back()->end <= t) open.pop_back();
    while (next < iv.size() && iv[next].start <= t) {
      if (iv[next].end > t) open.push_back(&iv[next]);
      ++next;
    }
    while (!open.empty() && open.back()->end <= t) open.pop_back();
    const int32_t req = open.empty() ? -1 : open.back()->req;
    if (steps.empty() || steps.back().req != req) steps.push_back({t, req});
  }
  return steps;
}

Cause FromState(State s) {
  switch (s) {
    case State::kRunning:
      return Cause::kRunning;
    case State::kPreempted:
      return Cause::kPreempted;
    case State::kNetwork:
      return Cause::kNetwork;
    case State::kBlockDevice:
      return Cause::kDisk;
    case State::kBlockQueue:
      return Cause::kDiskQueue;
    case State::kTimer:
      return Cause::kTimer;
    case State::kInterrupted:
      return Cause::kInterrupted;
    case State::kBlocked:
      return Cause::kBlocked;
    case State::kUnknown:
    case State::kNone:
      return Cause::kUnknown;
    default:
      return Cause::kOther;
  }
}

// (key, duration) pairs summed by key, largest first, ties by key.
template <class K>
std::vector<std::pair<K, int64_t>> SumByKey(std::vector<std::pair<K, int64_t>> v) {
  std::sort(v.begin(), v.end());
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (n > 0 && v[n - 1].first == v[i].first)
      v[n - 1].second += v[i].second;
    else
      v[n++] = v[i];
  }
  v.resize(n);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return v;
}

// The cause of a shared piece for a request of its path that is not the piece's active
// request; for that one, FromState(state).
Cause CauseForOthers(const SharedPiece& p, WorkerId path_worker) {
  if (p.active >= 0) return Cause::kBlockedByRequest;
  // Running for nobody's request: the request waits on that thread's work. (Waiting there
  // for a CPU stays "preempted": the CPU is the bottleneck, not the thread.)
  if (p.state == State::kRunning && p.worker != path_worker) return Cause::kWaitingForThread;
  return FromState(p.state);
}

// The largest cause besides the request's own running time, unless running is most of the
// latency.
Cause DominantCause(const Request& r) {
  const int64_t total = std::max<int64_t>(1, r.latency());
  int best = -1;
  for (int c = 0; c < kNumCauses; ++c) {
    if (c == static_cast<int>(Cause::kRunning)) continue;
    if (best < 0 || r.by_cause[c] > r.by_cause[best]) best = c;
  }
  const int64_t running = r.by_cause[static_cast<int>(Cause::kRunning)];
  return (best < 0 || r.by_cause[best] == 0 || running * 2 > total) ? Cause::kRunning
                                                                    : static_cast<Cause>(best);
}

// Leaves in `set` the requests' root spans alone, in request order (Request::root indexes
// them, and so does by_id); activations go too.
void KeepRootSpans(spans::SpanSet* set, std::vector<Request>* requests) {
  std::vector<spans::Span> roots;
  roots.reserve(requests->size());
  for (Request& r : *requests) {
    roots.push_back(std::move(set->spans[r.root]));
    r.root = roots.size() - 1;
  }
  set->spans = std::move(roots);
  set->activations = {};
  set->by_id = {};
  set->by_id.reserve(set->spans.size());
  for (size_t i = 0; i < set->spans.size(); ++i) set->by_id.try_emplace(set->spans[i].span_id, i);
}

}  // namespace

std::string_view CauseName(Cause c) {
  static constexpr std::string_view kNames[kNumCauses] = {"running",
                                                          "preempted",
                                                          "blocked_by_request",
                                                          "waiting_for_thread",
                                                          "network",
                                                          "disk",
                                                          "timer",
                                                          "interrupted",
                                                          "blocked",
                                                          "unknown",
                                                          "other",
                                                          "disk_queue"};
  return kNames[static_cast<int>(c)];
}

const std::string* RequestAnalysis::ServiceOf(const graph::ExecutionGraph& g, WorkerId w) const {
  if (auto it = thread_service.find(w); it != thread_service.end()) return &it->second;
  const graph::Worker& k = g.worker(w);
  if (k.pid < 0) return nullptr;
  auto it = process_service.find({k.host, k.pid});
  return it != process_service.end() ? &it->second : nullptr;
}

std::string RequestAnalysis::ThreadLabel(const graph::ExecutionGraph& g, WorkerId w) const {
  const graph::Worker& k = g.worker(w);
  const std::string* service = ServiceOf(g, w);
  const std::string* name = service ? service : &k.name;
  const std::string tid = g.hosts().size() > 1 ? fmt::format("{}/{}", g.hosts()[k.host], k.tid)
                                               : fmt::format("tid {}", k.tid);
  return name->empty() ? tid : fmt::format("{} ({})", tid, *name);
}

namespace {

struct TraceIdHash {
  size_t operator()(const spans::TraceId& t) const {
    return static_cast<size_t>(t.low ^ (t.high * 0x9E3779B97F4A7C15ull));
  }
};

// AnalyzeRequests step by step (seed 000 Alg. 1 and 2, §3.4-3.5); each step reads what the
// steps before it left.
class Analyzer {
 public:
  Analyzer(const graph::ExecutionGraph& g, const spans::SpanSet& set, uint32_t host,
           const RequestOptions& options, RequestAnalysis* out)
      : g_(g), set_(set), options_(options), out_(*out), threads_(g, host) {}

  // Requests: one per trace, its root span (no parent among the spans; the earliest if
  // several).
  void FindRequests();
  // Thread-request association (seed 000 Alg. 1): each worker's active request over time,
  // and the services of the threads and processes that ran spans.
  void AssociateThreads();
  // Each request's worker, and the ranges of the threads' critical paths to compute: one per
  // thread and run of overlapping requests.
  void FindPathRanges();
  // The requests whose root span has no thread in the graph: one UNKNOWN piece each.
  void SummarizeRequestsWithoutThread();
  // Every path range's critical path (merged with their shared states stored once: seed 000
  // Alg. 2), labelled with the active requests of its threads into out_.shared_paths, and
  // the sums of each request of the range from its slice.
  void SummarizePaths();
  // Per operation (of the root spans).
  void SummarizeOperations();
  // The threads' active-request steps into out_.thread_requests (keep_thread_requests).
  void KeepThreadRequests() { out_.thread_requests = std::move(timeline_); }

 private:
  // A worker's active-request steps from its socket messages: from each message on, the
  // request of that message's exchange (none after a server's response).
  std::vector<Step> StepsFromMessages(const std::vector<MessageStep>& messages) const;
  // Cuts each segment of range k's path where the active request of its thread changes into
  // out_.shared_paths[k], UNKNOWN where the kernel trace has no segment.
  void LabelPath(size_t k, const std::vector<graph::PathSegment>& segments);
  // The sums of the requests of range k (`members`) from their slices of its shared path.
  void SumUp(size_t k, const std::vector<uint32_t>& members);
  // The range holding a request: the last range of its worker that begins at or before its
  // start.
  size_t RangeOf(WorkerId w, int64_t start) const;

  const graph::ExecutionGraph& g_;
  // With AnalyzeRequestsRootSpansOnly, the requests' roots alone once the paths' ranges are
  // found (KeepRootSpans).
  const spans::SpanSet& set_;
  const RequestOptions& options_;
  RequestAnalysis& out_;
  const graph::ThreadLookup threads_;
  // A trace's earliest request, for what names a trace but no span (HTTP messages).
  std::unordered_map<spans::TraceId, int32_t, TraceIdHash> request_of_trace_;
  // Per span: the request of its root.
  std::vector<int32_t> root_of_span_;
  // Per worker (dense: looked up for every segment of every request's path), with the
  // position of its last search (StepAfter).
  std::vector<std::vector<Step>> timeline_;
  std::vector<size_t> step_hint_;
  // Per worker: 1 when its active request comes from its socket messages.
  std::vector<uint8_t> event_loop_;
  // Per span: the worker that ran it (kNoWorker: none).
  std::vector<WorkerId> span_worker_;
  std::vector<graph::PathRange> ranges_;
};

void Analyzer::FindRequests() {
  // Each span's root: up its parents within its trace (a parent in another trace, or
  // missing, makes a root). A chain that comes back to itself (a span its own parent, or a
  // cycle) would have no root and its spans no request: its earliest span becomes the root,
  // and the cycle is counted.
  constexpr int32_t kUnseen = -1, kOnWalk = -2;
  root_of_span_.assign(set_.spans.size(), kUnseen);
  std::vector<size_t> walk;
  auto parent_of = [&](size_t i) -> std::optional<size_t> {
    const spans::Span& s = set_.spans[i];
    if (s.parent_span_id == 0) return std::nullopt;
    auto p = set_.by_id.find(s.parent_span_id);
    if (p == set_.by_id.end() || !(set_.spans[p->second].trace == s.trace)) return std::nullopt;
    return p->second;
  };
  for (size_t i = 0; i < set_.spans.size(); ++i) {
    walk.clear();
    size_t at = i;
    int32_t root = kUnseen;
    while (true) {
      if (root_of_span_[at] >= 0) {
        root = root_of_span_[at];
        break;
      }
      if (root_of_span_[at] == kOnWalk) {  // back on this walk: a cycle from `at` on
        size_t earliest = at;
        for (auto it = std::find(walk.begin(), walk.end(), at); it != walk.end(); ++it)
          if (set_.spans[*it].start_ns < set_.spans[earliest].start_ns) earliest = *it;
        root = static_cast<int32_t>(earliest);
        ++out_.parent_cycles;
        break;
      }
      root_of_span_[at] = kOnWalk;
      walk.push_back(at);
      const std::optional<size_t> parent = parent_of(at);
      if (!parent) {
        root = static_cast<int32_t>(at);
        break;
      }
      at = *parent;
    }
    for (size_t w : walk) root_of_span_[w] = root;
  }
  // One request per root, every root of a trace kept; a trace's first request (the earliest
  // root) is the one its HTTP messages name.
  std::vector<int32_t> request_of_root(set_.spans.size(), -1);
  request_of_trace_.reserve(set_.spans.size() / 4);
  for (size_t i = 0; i < set_.spans.size(); ++i) {
    if (root_of_span_[i] != static_cast<int32_t>(i)) continue;
    const spans::Span& s = set_.spans[i];
    const auto index = static_cast<int32_t>(out_.requests.size());
    request_of_root[i] = index;
    Request r;
    r.root = i;
    r.trace = s.trace;
    r.start = s.start_ns;
    r.end = s.end_ns;
    out_.requests.push_back(r);
    auto [it, fresh] = request_of_trace_.try_emplace(s.trace, index);
    if (!fresh) {
      if (s.start_ns < out_.requests[it->second].start) it->second = index;
      ++out_.extra_roots;
    }
  }
  for (int32_t& r : root_of_span_) r = request_of_root[static_cast<size_t>(r)];
}

void Analyzer::AssociateThreads() {
  std::vector<std::vector<Interval>> intervals(g_.num_workers());
  // Workers told what they work for by causeway-client (sync events, activations): their
  // spans' intervals say it; the others' socket messages, when they have some.
  std::vector<uint8_t> told(g_.num_workers(), 0);
  span_worker_.assign(set_.spans.size(), graph::kNoWorker);
  const SpanPlacement* placement = options_.placement;
  for (size_t i = 0; i < set_.spans.size(); ++i) {
    const spans::Span& s = set_.spans[i];
    const int32_t request = root_of_span_[i];
    WorkerId w = graph::kNoWorker;
    // A span whose thread is not in the kernel trace is counted there, not as one without a
    // thread.
    bool outside = false;
    if (placement) {
      w = placement->worker[i];
      outside = s.placed_by == static_cast<uint8_t>(ThreadSource::kThreadNotInTrace);
    } else if (s.tid != 0) {
      w = threads_.At(s.tid, s.start_ns);
      outside = w == graph::kNoWorker;
      out_.spans_outside_trace += outside;
    }
    if (w == graph::kNoWorker) {
      out_.spans_without_thread += !outside;
      continue;
    }
    span_worker_[i] = w;
    if (s.synced) told[w] = 1;
    intervals[w].push_back({s.start_ns, s.end_ns, request});
    out_.thread_service.try_emplace(w, *s.service);
  }
  for (const spans::Activation& a : set_.activations) {
    int32_t request = -1;
    if (auto span = set_.by_id.find(a.span_id);
        span != set_.by_id.end() && set_.spans[span->second].trace == a.trace)
      request = root_of_span_[span->second];
    else if (auto r = request_of_trace_.find(a.trace); r != request_of_trace_.end())
      request = r->second;
    if (request < 0 || a.tid == 0) continue;
    const WorkerId w = threads_.At(a.tid, a.begin_ns);
    if (w == graph::kNoWorker) {
      ++out_.spans_outside_trace;
      continue;
    }
    told[w] = 1;
    intervals[w].push_back({a.begin_ns, a.end_ns, request});
  }
  for (const auto& [w, service] : out_.thread_service)
    if (g_.worker(w).pid >= 0)
      out_.process_service.try_emplace({g_.worker(w).host, g_.worker(w).pid}, service);
  timeline_.resize(g_.num_workers());
  event_loop_.assign(g_.num_workers(), 0);
  step_hint_.assign(g_.num_workers(), 0);
  for (WorkerId w = 0; w < intervals.size(); ++w)
    if (!intervals[w].empty()) timeline_[w] = BuildTimeline(std::move(intervals[w]));
  if (!placement) return;
  for (const auto& [w, steps] : placement->message_steps) {
    if (told[w]) continue;
    timeline_[w] = StepsFromMessages(steps);
    event_loop_[w] = 1;
    ++out_.threads_by_messages;
  }
}

std::vector<Step> Analyzer::StepsFromMessages(const std::vector<MessageStep>& messages) const {
  std::vector<Step> steps;
  for (const MessageStep& m : messages) {
    int32_t req = -1;
    if (!m.none)
      if (auto r = request_of_trace_.find(m.trace); r != request_of_trace_.end()) req = r->second;
    if (!steps.empty() && steps.back().ts == m.ts) {
      steps.back().req = req;
    } else if (steps.empty() ? req >= 0 : steps.back().req != req) {
      steps.push_back({m.ts, req});
    }
  }
  // Equal neighbours left by a replaced step.
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const Step& a, const Step& b) { return a.req == b.req; }),
              steps.end());
  return steps;
}

void Analyzer::FindPathRanges() {
  std::vector<graph::PathRange> wanted;
  for (Request& r : out_.requests) {
    r.worker = span_worker_[r.root];
    if (r.worker != graph::kNoWorker) wanted.push_back({r.worker, r.start, r.end});
  }
  ranges_ = graph::MergeRanges(std::move(wanted));
  for (Request& r : out_.requests)
    if (r.worker != graph::kNoWorker)
      r.shared_path = static_cast<int32_t>(RangeOf(r.worker, r.start));
}

size_t Analyzer::RangeOf(WorkerId w, int64_t start) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::pair{w, start},
                             [](const std::pair<WorkerId, int64_t>& x, const graph::PathRange& r) {
                               return x.first != r.worker ? x.first < r.worker : x.second < r.begin;
                             });
  return static_cast<size_t>(std::prev(it) - ranges_.begin());
}

void Analyzer::LabelPath(size_t k, const std::vector<graph::PathSegment>& segments) {
  SharedPath& path = out_.shared_paths[k];
  path.worker = ranges_[k].worker;
  path.begin = ranges_[k].begin;
  path.end = ranges_[k].end;
  std::vector<SharedPiece>& pieces = path.pieces;
  // Time the kernel trace does not cover stays UNKNOWN, so the pieces tile the range.
  int64_t covered = path.begin;
  auto unknown_until = [&](int64_t t) {
    if (t > covered) pieces.push_back({covered, t, graph::kNoWorker, -1, State::kUnknown});
  };
  for (const graph::PathSegment& seg : segments) {
    unknown_until(seg.start);
    // The worker's active-request steps: the one in force at seg.start, then each change
    // inside the segment cuts it.
    const std::vector<Step>& steps = timeline_[seg.worker];
    auto step = steps.begin() +
                static_cast<std::ptrdiff_t>(StepAfter(steps, &step_hint_[seg.worker], seg.start));
    // An event loop waiting (in epoll, for a timer, the network...) works for no one: the
    // requests whose paths lead there wait for what wakes it, each for its own.
    const bool waiting =
        event_loop_[seg.worker] && seg.state != State::kRunning && seg.state != State::kPreempted;
    for (int64_t a = seg.start; a < seg.end; ++step) {
      const int64_t b = std::min(seg.end, step == steps.end() ? INT64_MAX : step->ts);
      const int32_t who = step == steps.begin() || waiting ? -1 : std::prev(step)->req;
      if (!pieces.empty() && pieces.back().end == a && pieces.back().worker == seg.worker &&
          pieces.back().state == seg.state && pieces.back().active == who) {
        pieces.back().end = b;
      } else {
        pieces.push_back({a, b, seg.worker, who, seg.state});
      }
      a = b;
    }
    covered = std::max(covered, seg.end);
  }
  unknown_until(path.end);
  pieces.shrink_to_fit();
}

void Analyzer::SumUp(size_t k, const std::vector<uint32_t>& members) {
  // Summaries (seed 000 §3.5), for every request of the range in one sweep: a request's sums
  // are the path's running sums at its end minus those at its start, the time its thread
  // worked for the request itself then moved from "blocked by" to its states. Linear in the
  // pieces and requests, however many requests overlap.
  const SharedPath& path = out_.shared_paths[k];
  struct Edge {
    int64_t t;
    uint32_t request;
    bool end;
  };
  std::vector<Edge> edges;
  edges.reserve(members.size() * 2);
  for (uint32_t ri : members) {
    edges.push_back({out_.requests[ri].start, ri, false});
    edges.push_back({out_.requests[ri].end, ri, true});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  int64_t cause_sum[kNumCauses] = {};
  int64_t state_sum[graph::kNumStates] = {};
  auto add = [&](const SharedPiece& p, int64_t d, int64_t* causes, int64_t* states) {
    const Cause c = CauseForOthers(p, path.worker);
    causes[static_cast<int>(c)] += d;
    if (c == Cause::kBlockedByRequest) states[static_cast<int>(p.state)] += d;
  };
  size_t next = 0;  // the first piece not summed yet
  for (const Edge& e : edges) {
    for (; next < path.pieces.size() && path.pieces[next].end <= e.t; ++next)
      add(path.pieces[next], path.pieces[next].end - path.pieces[next].start, cause_sum, state_sum);
    int64_t causes[kNumCauses], states[graph::kNumStates];
    std::copy(std::begin(cause_sum), std::end(cause_sum), causes);
    std::copy(std::begin(state_sum), std::end(state_sum), states);
    if (next < path.pieces.size() && path.pieces[next].start < e.t)
      add(path.pieces[next], e.t - path.pieces[next].start, causes, states);
    Request& r = out_.requests[e.request];
    const int64_t sign = e.end ? 1 : -1;
    for (int c = 0; c < kNumCauses; ++c) r.by_cause[c] += sign * causes[c];
    for (int st = 0; st < graph::kNumStates; ++st) r.blocked_by_state[st] += sign * states[st];
  }
  // The pieces where a request of this range is the one its thread works for: its own time.
  for (const SharedPiece& p : path.pieces) {
    if (p.active < 0) continue;
    Request& r = out_.requests[p.active];
    if (r.shared_path != static_cast<int32_t>(k)) continue;
    const int64_t d = std::min(p.end, r.end) - std::max(p.start, r.start);
    if (d <= 0) continue;
    r.by_cause[static_cast<int>(Cause::kBlockedByRequest)] -= d;
    r.blocked_by_state[static_cast<int>(p.state)] -= d;
    r.by_cause[static_cast<int>(FromState(p.state))] += d;
  }
  for (uint32_t ri : members) out_.requests[ri].dominant = DominantCause(out_.requests[ri]);
}

void Analyzer::SummarizeRequestsWithoutThread() {
  for (Request& r : out_.requests) {
    if (r.worker != graph::kNoWorker) continue;
    ++out_.requests_without_thread;
    r.by_cause[static_cast<int>(Cause::kUnknown)] += r.latency() > 0 ? r.latency() : 0;
    r.dominant = DominantCause(r);
  }
}

void Analyzer::SummarizePaths() {
  // The requests of each range, in request order.
  std::vector<std::vector<uint32_t>> members(ranges_.size());
  for (size_t ri = 0; ri < out_.requests.size(); ++ri)
    if (out_.requests[ri].shared_path >= 0)
      members[static_cast<size_t>(out_.requests[ri].shared_path)].push_back(
          static_cast<uint32_t>(ri));
  out_.shared_paths.resize(ranges_.size());
  std::vector<graph::PathSegment> segments;
  graph::MergeOptions merge_options{.links = options_.keep_paths,
                                    .keep_nodes = options_.keep_paths};
  merge_options.on_path = [&](size_t k, const graph::CriticalPath& cp) {
    graph::SliceCriticalPath(cp, ranges_[k].begin, ranges_[k].end, &segments);
    LabelPath(k, segments);
    SumUp(k, members[k]);
    members[k] = {};
  };
  out_.analyzed_graph = &g_;
  out_.merged = graph::MergeCriticalPaths(g_, ranges_, merge_options);
}

void Analyzer::SummarizeOperations() {
  // Keyed by the names' texts (in their order), through the spans' pointers to them.
  using Names = std::pair<const std::string*, const std::string*>;
  auto by_text = [](const Names& x, const Names& y) {
    return std::tie(*x.first, *x.second) < std::tie(*y.first, *y.second);
  };
  std::map<Names, OperationSummary, decltype(by_text)> ops(by_text);
  for (const Request& r : out_.requests) {
    const spans::Span& s = set_.spans[r.root];
    auto [it, fresh] = ops.try_emplace({s.service, s.operation});
    OperationSummary& o = it->second;
    if (fresh) {  // the names are copied once per operation, not once per request
      o.service = *s.service;
      o.operation = *s.operation;
    }
    ++o.count;
    o.total_latency += r.latency();
    o.max_latency = std::max(o.max_latency, r.latency());
    for (int c = 0; c < kNumCauses; ++c) o.by_cause[c] += r.by_cause[c];
  }
  for (auto& [k, o] : ops) out_.operations.push_back(o);
}

// AnalyzeRequests; with `roots_only` (the same set as `set`), the spans but the requests'
// roots are dropped once the threads are associated.
StatusOr<RequestAnalysis> Analyze(const graph::ExecutionGraph& g, const spans::SpanSet& set,
                                  spans::SpanSet* roots_only, const RequestOptions& options) {
  RequestAnalysis out;
  out.spans = set.spans.size();
  out.spans_synced = set.synced;
  out.span_lines_cut_short = set.truncated_lines;
  out.spans_duplicate_id = set.duplicates;
  out.spans_negative_time = set.negative_times;
  out.sync_traces_damaged = set.sync_traces_damaged;
  out.sync_events_discarded = set.sync_events_discarded;
  if (const SpanPlacement* p = options.placement) {
    if (p->worker.size() != set.spans.size())
      return InvalidArgument("The span placement is not of this span set");
    std::copy(std::begin(p->spans_by_source), std::end(p->spans_by_source), out.spans_by_source);
    out.thread_ids_ignored = p->thread_ids_ignored;
    out.spans_outside_trace = p->spans_by_source[static_cast<int>(ThreadSource::kThreadNotInTrace)];
    out.http_messages = p->messages;
    out.http_messages_with_context = p->messages_with_context;
    out.http_messages_truncated = p->messages_truncated;
  }
  uint32_t host = 0;
  if (!options.host.empty()) {
    auto it = std::find(g.hosts().begin(), g.hosts().end(), options.host);
    if (it == g.hosts().end())
      return NotFound(fmt::format("No host '{}' in the kernel traces", options.host));
    host = static_cast<uint32_t>(it - g.hosts().begin());
  }
  Analyzer analyzer(g, set, host, options, &out);
  analyzer.FindRequests();
  analyzer.AssociateThreads();
  analyzer.FindPathRanges();
  if (roots_only) KeepRootSpans(roots_only, &out.requests);
  analyzer.SummarizeRequestsWithoutThread();
  analyzer.SummarizePaths();
  analyzer.SummarizeOperations();
  if (options.keep_thread_requests) analyzer.KeepThreadRequests();
  return out;
}

}  // namespace

StatusOr<RequestAnalysis> AnalyzeRequests(const graph::ExecutionGraph& g, const spans::SpanSet& set,
                                          const RequestOptions& options) {
  return Analyze(g, set, nullptr, options);
}

StatusOr<RequestAnalysis> AnalyzeRequestsRootSpansOnly(const graph::ExecutionGraph& g,
                                                       spans::SpanSet* set,
                                                       const RequestOptions& options) {
  return Analyze(g, *set, set, options);
}

RequestDetail RequestAnalysis::Detail(size_t ri) const {
  const Request& r = requests[ri];
  RequestDetail d;
  if (r.shared_path < 0) {
    if (r.end > r.start)
      d.path.push_back({graph::kNoWorker, State::kUnknown, Cause::kUnknown, r.start, r.end});
    return d;
  }
  const SharedPath& shared = shared_paths[static_cast<size_t>(r.shared_path)];
  auto p = std::partition_point(shared.pieces.begin(), shared.pieces.end(),
                                [&](const SharedPiece& x) { return x.end <= r.start; });
  std::vector<std::pair<int32_t, int64_t>> by_request;
  std::vector<std::pair<WorkerId, int64_t>> by_thread;
  for (; p != shared.pieces.end() && p->start < r.end; ++p) {
    const int64_t a = std::max(p->start, r.start), b = std::min(p->end, r.end);
    const bool own = p->active == static_cast<int32_t>(ri);
    Piece x{p->worker, p->state, own ? FromState(p->state) : CauseForOthers(*p, shared.worker),
            a,         b,        own ? -1 : p->active};
    // Merge with the previous piece when nothing changes.
    if (!d.path.empty() && d.path.back().end == a && d.path.back().worker == x.worker &&
        d.path.back().state == x.state && d.path.back().cause == x.cause &&
        d.path.back().other_request == x.other_request) {
      d.path.back().end = b;
    } else {
      d.path.push_back(x);
    }
    if (x.other_request >= 0) by_request.emplace_back(x.other_request, b - a);
    if (x.worker != graph::kNoWorker) by_thread.emplace_back(x.worker, b - a);
  }
  d.by_request = SumByKey(std::move(by_request));
  d.by_thread = SumByKey(std::move(by_thread));
  // The thread holding most of the dominant cause (ties: the lowest id).
  for (const Piece& x : d.path)
    if (x.cause == r.dominant && x.worker != graph::kNoWorker)
      by_thread.emplace_back(x.worker, x.end - x.start);
  const auto in_cause = SumByKey(std::move(by_thread));
  if (!in_cause.empty()) d.dominant_thread = in_cause.front().first;
  if (r.dominant == Cause::kBlockedByRequest && !d.by_request.empty())
    d.dominant_request = d.by_request.front().first;
  // Who held the CPU: looked up for this request's waits only, a few binary searches each.
  if (analyzed_graph && r.by_cause[static_cast<int>(Cause::kPreempted)] > 0) {
    graph::CpuWaitSum cpu(*analyzed_graph);
    for (const Piece& x : d.path)
      if (x.cause == Cause::kPreempted && x.worker != graph::kNoWorker)
        cpu.Add(x.worker, x.start, x.end);
    d.cpu_wait = cpu.Take();
  }
  // The links of the slice: signals received inside it (as a path over the request's range
  // alone would have them), kept with the paths. They are in order of to_ts: the slice's are
  // one run of them, found by binary search (a thread's path may hold the links of hundreds
  // of requests).
  if (static_cast<size_t>(r.shared_path) < merged.paths.size()) {
    const graph::MergedPath& thread_path = merged.paths[static_cast<size_t>(r.shared_path)];
    const int64_t lo = std::max(r.start, thread_path.range.begin);
    const int64_t hi = std::min(r.end, thread_path.range.end);
    auto after = [](int64_t t, const graph::PathLink& l) { return t < l.to_ts; };
    const auto first =
        std::upper_bound(thread_path.links.begin(), thread_path.links.end(), lo, after);
    d.links.assign(first, std::upper_bound(first, thread_path.links.end(), hi, after));
  }
  return d;
}

uint64_t RequestAnalysis::SharedPieces(size_t ri) const {
  const Request& r = requests[ri];
  if (r.shared_path < 0) return r.end > r.start ? 1 : 0;
  const auto& pieces = shared_paths[static_cast<size_t>(r.shared_path)].pieces;
  auto first = std::partition_point(pieces.begin(), pieces.end(),
                                    [&](const SharedPiece& x) { return x.end <= r.start; });
  auto last = std::partition_point(first, pieces.end(),
                                   [&](const SharedPiece& x) { return x.start < r.end; });
  return static_cast<uint64_t>(last - first);
}

StatusOr<size_t> FindRequest(const RequestAnalysis& a, const spans::SpanSet& s,
                             std::string_view id) {
  std::string lower(id);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<size_t> found;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    const std::string trace = spans::TraceIdHex(a.requests[i].trace);
    const std::string span = spans::SpanIdHex(s.spans[a.requests[i].root].span_id);
    if ((!lower.empty() && trace.rfind(lower, 0) == 0) || span == lower) found.push_back(i);
  }
  if (found.empty())
    return NotFound(fmt::format("No request '{}' (see `causeway requests` for their ids)", id));
  if (found.size() > 1 && std::all_of(found.begin(), found.end(), [&](size_t i) {
        return a.requests[i].trace == a.requests[found[0]].trace;
      }))
    return InvalidArgument(fmt::format(
        "Trace {} has {} requests (several root spans): give the root span id of one (see "
        "`causeway requests --format json`)",
        spans::TraceIdHex(a.requests[found[0]].trace), found.size()));
  if (found.size() > 1)
    return InvalidArgument(fmt::format("'{}' matches {} requests: give more digits of the trace id",
                                       id, found.size()));
  return found[0];
}

}  // namespace causeway::requests
