// The web UI's JSON (web/README.md): the request list, one request's view (its critical path
// across threads and hosts, arrows, pie, requests in the way) and thread lanes, each over a
// time window at a resolution. Pure functions of an analysis: the routes (ui_routes.h) parse
// the query and serve what these return.
//
// Times in every answer are nanoseconds from `origin` (the kernel trace's first event), so
// that a browser's doubles hold them exactly; `origin` itself is absolute (ns). A window is
// [begin, end] in those relative units, drawn `pixels` wide: pieces and states shorter than
// a pixel are merged with their neighbours, and at most one arrow of a kind is kept per
// pixel and pair of rows, so an answer's size follows the pixels, not the trace.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/recording_analysis.h"
#include "base/status.h"
#include "graph/execution_graph.h"

namespace causeway::server {

struct UiWindow {
  int64_t begin = 0, end = 0;  // relative to the origin; end <= begin: the default window
  int pixels = 1000;           // clamped to [1, 10000]
};

struct UiRequestQuery {
  std::string operation;  // "service operation" (the list's operations[].key); empty: all
  std::string cause;      // a dominant cause's name ("blocked_by_request"); empty: all
  size_t limit = 200;     // rows returned, slowest first
};

// The absolute time the answers' times are relative to.
int64_t UiOrigin(const analysis::RecordingAnalysis& r);

// {origin, total, matched, requests: [{id, service, operation, start, end, latency,
// dominant_cause, diagnosis}], operations: [{key, service, operation, count}], causes:
// [{cause, count}]}: slowest first; operations and causes count every request, so that the
// filters can offer them all.
nlohmann::json UiRequestsJson(const analysis::RecordingAnalysis& r, const UiRequestQuery& q);

// One request's view over `w` (default: the request's span with a margin). Fails when `id`
// names no request (FindRequest's message). Shape in web/README.md.
StatusOr<nlohmann::json> UiRequestJson(const analysis::RecordingAnalysis& r, std::string_view id,
                                       const UiWindow& w);

// The states of `workers` over `w` at its resolution: {origin, window, lanes: [{worker,
// label, states: [{start, end, state, mixed?}]}]}. Unknown workers are skipped.
nlohmann::json UiThreadsJson(const analysis::RecordingAnalysis& r,
                             const std::vector<graph::WorkerId>& workers, const UiWindow& w);

}  // namespace causeway::server
