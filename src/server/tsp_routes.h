// The Trace Server Protocol API under /tsp/api (the public trace-server-protocol OpenAPI
// specification, API.yaml): health, identifier, traces, experiments, the outputs'
// descriptors, and each output's endpoints (tree, states, arrows, tooltip, xy, columns,
// lines, style), dispatched to server/outputs.h by output id.
#pragma once

#include <httplib.h>

#include "server/experiments.h"

namespace causeway::server {

inline constexpr const char* kTspBase = "/tsp/api";

void RegisterTspRoutes(httplib::Server& http, Experiments* experiments);

}  // namespace causeway::server
