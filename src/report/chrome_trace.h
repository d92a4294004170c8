// Chrome Trace Event JSON (`causeway export --format chrome`), which Perfetto UI and
// chrome://tracing open: spans as slices per service and thread, each request's critical
// path as a track of slices named by cause, the path's pieces on the kernel threads they
// ran on, and the wake-ups and packets the paths followed as flow arrows.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

// Every span, and the critical paths of requests `which` (indices in a.requests), handed to
// `write` an event at a time: the document is never held whole. False when a write
// returned false.
bool WriteChromeTrace(const std::function<bool(std::string_view)>& write,
                      const graph::ExecutionGraph& g, const spans::SpanSet& s,
                      const requests::RequestAnalysis& a, const std::vector<size_t>& which);

}  // namespace causeway::report
