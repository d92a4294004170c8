// The self-contained HTML report of a request analysis (`causeway requests --format html`):
// a timeline of every request's critical path coloured by cause, with arrows from the
// requests in the way (seed 000 Figure 2), and a pie of the selected request's causes
// (Figure 16). One file, no network: the data is embedded as JSON, drawn by inline JS as SVG.
#pragma once

#include <string>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

std::string RequestsHtml(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                         const requests::RequestAnalysis& a, const std::string& title);

}  // namespace causeway::report
