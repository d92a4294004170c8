// The web UI's JSON endpoints (ui_api.h) over HTTP, beside the TSP API:
//   GET /api/requests?operation=KEY&cause=NAME&limit=N
//   GET /api/requests/ID?begin=NS&end=NS&pixels=N
//   GET /api/threads?workers=W,W...&begin=NS&end=NS&pixels=N
// Each reads one experiment: `experiment=UUID`, else the first one the server holds (the
// traces of its command line). Bad parameters are answered 400, an unknown request or
// experiment 404, with a JSON error (json_reply.h).
#pragma once

#include <httplib.h>

#include "server/experiments.h"

namespace causeway::server {

void RegisterUiJsonRoutes(httplib::Server& http, Experiments* experiments);

}  // namespace causeway::server
