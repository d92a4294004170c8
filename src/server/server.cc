#include "server/server.h"

#include <httplib.h>

#include "server/access.h"
#include "server/json_reply.h"
#include "server/tsp_routes.h"
#include "server/ui_routes.h"

namespace causeway::server {

AnalysisServer::AnalysisServer(ServerOptions options, Experiments* experiments)
    : options_(std::move(options)),
      experiments_(experiments),
      http_(std::make_unique<httplib::Server>()) {
  httplib::Server& http = *http_;
  const int threads = options_.threads;
  // httplib's default pool has as many threads as cores (at least 8): keep-alive clients
  // beyond that would wait for a connection to close before being served at all.
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(1 << 20);  // bodies are small queries
  http.set_read_timeout(10, 0);
  http.set_write_timeout(10, 0);
  http.set_keep_alive_max_count(1000);

  // Every request, the UI's files included, shows the token when there is one.
  const std::string token = options_.token;
  http.set_pre_routing_handler([token](const httplib::Request& req, httplib::Response& res) {
    if (token.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const bool ok = BearerTokenMatches(req.get_header_value("Authorization"), token) ||
                    (req.has_param("access_token") &&
                     ConstantTimeEquals(req.get_param_value("access_token"), token));
    if (ok) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    ReplyError(res, 401, "Unauthorized",
               "this server requires a token: send the header 'Authorization: Bearer TOKEN'");
    return httplib::Server::HandlerResponse::Handled;
  });
  // A handler that throws (a bug, or memory exhausted) answers 500 and the server goes on.
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        ReplyError(res, 500, "Internal server error", what);
      });
  // Answers httplib makes itself (no route, 400 on a malformed request line, 413 on a body
  // too large) get a JSON error like the handlers' own.
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* title = res.status == 404   ? "Not found"
                        : res.status == 413 ? "Request body too large"
                        : res.status == 405 ? "Method not allowed"
                                            : "Bad request";
    ReplyError(res, res.status, title);
  });

  RegisterTspRoutes(http, experiments_);
  RegisterUiRoutes(http, UiContext{options_.ui_dir, experiments_});
}

AnalysisServer::~AnalysisServer() = default;

StatusOr<int> AnalysisServer::Bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.bind.c_str());
    if (port < 0) return IoError("cannot bind " + options_.bind + " on any port");
    return port;
  }
  if (!http_->bind_to_port(options_.bind.c_str(), port))
    return IoError("cannot listen on " + options_.bind + ":" + std::to_string(port) +
                   " (in use, or not an address of this machine)");
  return port;
}

Status AnalysisServer::Serve() {
  if (!http_->listen_after_bind()) return IoError("the server stopped with an error");
  return Status::Ok();
}

void AnalysisServer::Stop() { http_->stop(); }

}  // namespace causeway::server
