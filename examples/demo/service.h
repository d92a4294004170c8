// What every demo service shares: the HTTP server loop, traced handlers, calls to other
// services, request parameters and simulated work.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "base/status.h"
#include "demo_tracing.h"

namespace causeway::demo {

struct ServiceOptions {
  std::string host = "127.0.0.1";
  int port = 0;       // 0: any free port (reported on ready_fd)
  int ready_fd = -1;  // write "<port>\n" here once listening, then close it
  std::string spans_dir;
  int threads = 32;  // request threads; each connection being served holds one
};

// Serves until SIGINT, SIGTERM or SIGHUP, then finishes the requests in progress, writes the
// spans and returns the exit code. `setup` adds the service's routes; GET /health is added
// here. Every thread of the process must have the stop signals blocked (BlockStopSignals
// in process.h).
int ServeForever(std::string_view service, const ServiceOptions& options,
                 const std::function<void(httplib::Server&)>& setup);

using TracedHandler =
    std::function<void(const httplib::Request&, httplib::Response&, DemoSpan& span)>;
// Wraps a handler in a server span named `operation` that records the status code.
httplib::Server::Handler Traced(std::string operation, TracedHandler handler);

void ReplyJson(httplib::Response& res, const nlohmann::json& body);
// {"error": message} with `status`.
void ReplyError(httplib::Response& res, int status, std::string_view message);

// GET base_url + target under a client span child of `parent`, on a new connection (see
// service.cc for why not keep-alive). Errors name the service and say what went wrong; an answer
// 404 is kNotFound.
StatusOr<std::string> CallService(std::string_view service, const std::string& base_url,
                                  const std::string& target, const ParentContext& parent);

// What went wrong, for messages: httplib 0.11 names its errors with one word ("Connection").
std::string DescribeHttpError(httplib::Error error);

// Spins until this thread has used `cpu` of CPU time: work the kernel sees as running,
// the same in every build type.
void BurnCpu(std::chrono::microseconds cpu);

struct Location {
  int64_t x = 0, y = 0;
};
std::string FormatLocation(Location l);  // "x,y"

// Query parameters, with errors that say which parameter and what was wrong.
StatusOr<int64_t> PositiveIntParam(const httplib::Request& req, const std::string& name);
StatusOr<Location> LocationParam(const httplib::Request& req, const std::string& name);

}  // namespace causeway::demo
