// The seam between the server and the web UI: the routes the UI adds beside the TSP API
// (its built files at /, any endpoint of its own). The server calls RegisterUiRoutes once,
// after the API's routes and before it listens.
#pragma once

#include <string>

#include <httplib.h>

#include "server/experiments.h"

namespace causeway::server {

struct UiContext {
  // --ui: a directory of built files to serve at / instead of the bundle embedded at build
  // time (web/README.md); empty: DefaultUiDir(), else the embedded bundle.
  std::string ui_dir;
  Experiments* experiments = nullptr;
};

// A directory to serve the UI from when --ui is not given: $CAUSEWAY_UI_DIR, else none.
std::string DefaultUiDir();

void RegisterUiRoutes(httplib::Server& http, const UiContext& ui);

}  // namespace causeway::server
