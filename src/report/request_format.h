// Text and JSON renderings of request analyses (`causeway requests`, `causeway request`).
// The JSON shapes are documented in docs/cli.md.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"

namespace causeway::report {

// Slowest first, at most `limit` rows (< 0: all).
// How the spans got their threads and why some have none, in words (empty when there is
// nothing to say beyond the counts of RequestsText's summary line).
std::string SpanPlacementText(const requests::RequestAnalysis& a);

// What the readers dropped or repaired beyond the listing's counts, a line each (empty when
// nothing): spans dropped (duplicate ids, negative times), parent cycles broken, extra roots,
// damaged user-space traces, clamped kernel timestamps. Every request report prints it, and
// its JSON (DataRepairJson) is in every request report's counters.
std::string DataRepairText(const requests::RequestAnalysis& a);
nlohmann::json DataRepairJson(const requests::RequestAnalysis& a);

std::string RequestsText(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                         const requests::RequestAnalysis& a, long limit);
// The JSON document of docs/cli.md, written as it is built: one request per line, so that
// listing every request of a large recording never holds them all in memory. False when the
// write fails.
bool WriteRequestsJson(std::FILE* out, const graph::ExecutionGraph& g, const spans::SpanSet& s,
                       const requests::RequestAnalysis& a, long limit);

// One request: its critical path, pieces labelled by cause, and its summary.
std::string RequestText(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                        const requests::RequestAnalysis& a, size_t index);
nlohmann::json RequestJson(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                           const requests::RequestAnalysis& a, size_t index);

}  // namespace causeway::report
