// Chrome Trace Event JSON (`causeway export --format chrome`), which Perfetto UI and
// chrome://tracing open: spans as slices per service and thread, each request's critical
// path as a track of slices named by cause, the path's pieces on the kernel threads they
// ran on, and the wake-ups and packets the paths followed as flow arrows.
#pragma once

#include <nlohmann/json.hpp>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

nlohmann::json ChromeTrace(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                           const requests::RequestAnalysis& a);

}  // namespace causeway::report
