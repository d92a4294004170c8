// What the index takes from the request analysis: along each request's critical path, its
// state and the thread it is on (requests/<id>/cause, /thread), and each thread's active
// request over time (hosts/<h>/threads/<tid>/request; needs
// requests::RequestOptions::keep_thread_requests). Closed intervals, in time order per
// attribute.
#pragma once

#include <cstdint>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "state/state_store.h"

namespace causeway::index {

struct RequestFeedCounters {
  uint64_t requests = 0;
  uint64_t path_intervals = 0;    // cause and thread
  uint64_t thread_intervals = 0;  // threads' requests
};

void WriteRequests(const graph::ExecutionGraph& g, const requests::RequestAnalysis& a,
                   state::StateWriter* writer, RequestFeedCounters* counters);

}  // namespace causeway::index
