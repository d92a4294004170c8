// causeway.critical_path: one request's critical path as a time graph. The request is
// `parameters.request` (a trace id, a prefix of one, or a root span id; as `causeway
// request ID`), else the slowest. Its first row is the request with every piece of its path,
// coloured by cause; a row per thread the path went through follows, holding that thread's
// pieces; arrows show where the path moves from one thread to another (styled
// BLOCKED_BY_REQUEST where it waited for a thread serving another request).
//
// Row ids carry the request (request index + 1 in the upper bits) so that the states and
// arrows endpoints, which get the rows only, know which request they draw.
#pragma once

#include "server/outputs.h"

namespace causeway::server {

// The request `parameters.request` names, else the slowest; NotFound when none.
StatusOr<size_t> RequestOfParameters(const ExperimentData& d, const nlohmann::json& parameters);
// "4bf92f35 frontend GET /dispatch".
std::string RequestLabel(const ExperimentData& d, size_t request);

std::unique_ptr<Output> MakeCriticalPathTimeGraph();

}  // namespace causeway::server
