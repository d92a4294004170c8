#include "index/request_feed.h"

#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "index/graph_feed.h"
#include "index/index_paths.h"
#include "index/interval_joiner.h"
#include "spans/span_model.h"

namespace causeway::index {

using graph::WorkerId;
using state::StateValue;

void WriteRequests(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                   state::StateWriter* writer, RequestFeedCounters* counters) {
  state::StringRef states[graph::kNumStates];
  for (int s = 0; s < graph::kNumStates; ++s)
    states[s] = writer->Intern(graph::StateName(static_cast<graph::State>(s)));
  absl::flat_hash_map<WorkerId, state::StringRef> thread_labels;
  std::vector<state::StringRef> ids(a.requests.size());

  IntervalJoiner cause(writer), thread(writer);
  for (size_t ri = 0; ri < a.requests.size(); ++ri) {
    const std::string id = spans::TraceIdHex(a.requests[ri].trace);
    ids[ri] = writer->Intern(id);
    cause.Reset(writer->Attribute(RequestAttribute(id, "cause")));
    thread.Reset(writer->Attribute(RequestAttribute(id, "thread")));
    const requests::RequestDetail detail = a.Detail(ri);
    for (const requests::Piece& p : detail.path) {
      cause.Add(p.start, p.end, StateValue::String(states[static_cast<int>(p.state)]));
      if (p.worker == graph::kNoWorker) continue;
      auto [it, added] = thread_labels.try_emplace(p.worker, 0);
      if (added) {
        const graph::Worker& k = g.worker(p.worker);
        it->second = writer->Intern(HostThreadLabel(g.hosts()[k.host], k.tid));
      }
      thread.Add(p.start, p.end, StateValue::String(it->second));
    }
    cause.Flush();
    thread.Flush();
    ++counters->requests;
  }
  counters->path_intervals += cause.written() + thread.written();

  if (a.thread_requests.empty()) return;
  IntervalJoiner request(writer);
  const graph::Worker* previous = nullptr;
  for (const WorkerId w : WorkersByThread(g)) {
    if (w >= a.thread_requests.size() || a.thread_requests[w].empty()) continue;
    const graph::Worker& k = g.worker(w);
    if (!previous || previous->host != k.host || previous->tid != k.tid) {
      request.Flush();
      request.Reset(writer->Attribute(ThreadAttribute(g.hosts()[k.host], k.tid, "request")));
    }
    previous = &k;
    const std::vector<requests::Step>& steps = a.thread_requests[w];
    for (size_t i = 0; i < steps.size(); ++i) {
      const int32_t req = steps[i].req;
      if (req < 0 || static_cast<size_t>(req) >= ids.size()) continue;
      const int64_t end = i + 1 < steps.size() ? steps[i + 1].ts : g.WorkerEnd(w);
      request.Add(steps[i].ts, end, StateValue::String(ids[req]));
    }
  }
  request.Flush();
  counters->thread_intervals += request.written();
}

}  // namespace causeway::index
