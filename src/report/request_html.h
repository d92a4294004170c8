// The self-contained HTML report of a request analysis (`causeway requests --format html`):
// a timeline of every request's critical path coloured by cause, with arrows from the
// requests in the way (seed 000 Figure 2), and a pie of the selected request's causes
// (Figure 16). One file, no network: the data is embedded as JSON, drawn by inline JS as SVG.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

// The report of requests `which` (in that order), handed to `write` a part at a time (the
// page, then each request's data): the report is never held whole. False when a write
// returned false.
bool WriteRequestsHtml(const std::function<bool(std::string_view)>& write,
                       const graph::ExecutionGraph& g, const spans::SpanSet& s,
                       const requests::RequestAnalysis& a, const std::vector<size_t>& which,
                       const std::string& title);

// Every request's report, whole (for the tests).
std::string RequestsHtml(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                         const requests::RequestAnalysis& a, const std::string& title);

}  // namespace causeway::report
