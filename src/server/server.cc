#include "server/server.h"

#include <sys/socket.h>

#include <httplib.h>

#include <chrono>

#include "server/access.h"
#include "server/json_reply.h"
#include "server/tsp_routes.h"
#include "server/ui_routes.h"

namespace causeway::server {
namespace {

// When the request being handled on this worker thread was routed (a request is handled on
// one thread from routing to answer).
thread_local std::chrono::steady_clock::time_point handler_start;

}  // namespace

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
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second server on a
  // port in use binds too and takes half of the connections instead of failing.
  http.set_socket_options([](int sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });

  // Every request, the UI's files included, shows the token when there is one.
  const std::string token = options_.token;
  http.set_pre_routing_handler([token](const httplib::Request& req, httplib::Response& res) {
    handler_start = std::chrono::steady_clock::now();
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
  // The time the server spent on the answer (before sending it), for clients that measure
  // the server apart from the network: Server-Timing (W3C).
  http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - handler_start)
            .count();
    res.set_header("Server-Timing", "handler;dur=" + std::to_string(ms));
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
