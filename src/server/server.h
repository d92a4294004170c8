// `causeway serve`'s HTTP server: cpp-httplib, the access checks every request goes through
// (server/access.h), the TSP API under /tsp/api (tsp_routes.h) and the web UI at /
// (ui_routes.h). It owns the socket and the worker threads; the analyses live in
// Experiments, which it is given.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "server/experiments.h"

namespace httplib {
class Server;
}

namespace causeway::server {

struct ServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: a free port, chosen by the kernel
  // Required by every request when not empty ("Authorization: Bearer T", or
  // ?access_token=T for a browser's first page load). The CLI refuses a non-loopback bind
  // without one.
  std::string token;
  std::string ui_dir;  // the web UI's built files, served at /; empty: ui_routes.cc decides
  int threads = 32;    // concurrent connections served (keep-alive clients hold one each)
};

class AnalysisServer {
 public:
  AnalysisServer(ServerOptions options, Experiments* experiments);
  ~AnalysisServer();

  // Binds the socket; returns the port (the one chosen when options.port is 0).
  StatusOr<int> Bind();
  // Serves until Stop() (from any thread). Requests in progress finish first.
  Status Serve();
  void Stop();

 private:
  ServerOptions options_;
  Experiments* experiments_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace causeway::server
