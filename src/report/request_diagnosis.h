// A request's dominant cause in plain words, from the structured summary the request
// analysis keeps (Request::dominant, by_cause, ...) and its detail (RequestDetail's
// dominant_thread, dominant_request, by_request):
//   "blocked by request 4bf92f35 (customer GET) on tid 12 (customer) (63%) and by 2 other
//    request(s); meanwhile they were mostly running (80%)"
//   "preempted: waiting for a CPU on tid 7 (route) (41%)"
#pragma once

#include <string>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

// `r`: one of a.requests. `spans`: the set the analysis indexes (Request::root), for the
// names of the request in the way.
std::string RequestDiagnosis(const graph::ExecutionGraph& g, const spans::SpanSet& spans,
                             const requests::RequestAnalysis& a, const requests::Request& r);
// The same with r's detail (a.Detail of its index) already worked out.
std::string RequestDiagnosis(const graph::ExecutionGraph& g, const spans::SpanSet& spans,
                             const requests::RequestAnalysis& a, const requests::Request& r,
                             const requests::RequestDetail& detail);

}  // namespace causeway::report
