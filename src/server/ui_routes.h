// The seam between the server and the web UI: the routes the UI adds beside the TSP API
// (its built files at /, any endpoint of its own). The server calls RegisterUiRoutes once,
// after the API's routes and before it listens.
#pragma once

#include <string>

#include <httplib.h>

#include "server/experiments.h"

namespace causeway::server {

struct UiContext {
  std::string ui_dir;  // --ui: the built files' directory (empty: DefaultUiDir())
  Experiments* experiments = nullptr;
};

// Where the built UI is looked for when --ui is not given.
std::string DefaultUiDir();

void RegisterUiRoutes(httplib::Server& http, const UiContext& ui);

}  // namespace causeway::server
