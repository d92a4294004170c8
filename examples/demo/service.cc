#include "service.h"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "process.h"

namespace causeway::demo {

int ServeForever(std::string_view service, const ServiceOptions& o,
                 const std::function<void(httplib::Server&)>& setup) {
  BlockStopSignals();
  const sigset_t stop_signals = StopSignals();
  // A client that goes away mid-response must not kill the service.
  signal(SIGPIPE, SIG_IGN);

  if (Status s = StartTracing(service, o.spans_dir); !s.ok()) {
    fmt::print(stderr, "causeway-demo {}: {}\n", service, s.ToString());
    return 1;
  }
  // Before the port is reported: the queries already running are woven before the first
  // request arrives.
  StartPivot(service);
  httplib::Server server;
  const size_t threads = static_cast<size_t>(o.threads);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Small responses must leave at once, not wait for the peer's delayed ACK (Nagle).
  server.set_tcp_nodelay(true);
  // The library's default also sets SO_REUSEPORT, which would let a second service bind a
  // port already in use and silently take half its connections: only SO_REUSEADDR here.
  // The socket is kept to widen the library's listen backlog of 5 below.
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = sock;
  });
  server.Get("/health", [service](const httplib::Request&, httplib::Response& res) {
    ReplyJson(res, {{"service", std::string(service)}, {"status", "ok"}});
  });
  setup(server);

  int port = o.port;
  const bool bound =
      port == 0 ? (port = server.bind_to_any_port(o.host)) > 0 : server.bind_to_port(o.host, port);
  if (!bound) {
    fmt::print(stderr, "causeway-demo {}: cannot listen on {}:{}: {}\n", service, o.host, o.port,
               errno ? strerror(errno) : "address not usable");
    StopPivot();
    StopTracing();
    return 1;
  }
  // A burst of new connections (the route workers' first calls, the load's workers)
  // overflows a backlog of 5; the kernel then drops the SYNs and the clients retry only
  // after a second. Calling listen() again on a listening socket just resizes its backlog.
  if (listen_fd >= 0) listen(listen_fd, 256);
  if (o.ready_fd >= 0) {
    const std::string line = fmt::format("{}\n", port);
    if (write(o.ready_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      fmt::print(stderr, "causeway-demo {}: cannot report the port on fd {}: {}\n", service,
                 o.ready_fd, strerror(errno));
      StopPivot();
      StopTracing();
      return 1;
    }
    close(o.ready_fd);
  } else {
    fmt::print(stderr, "causeway-demo {}: listening on http://{}:{}\n", service, o.host, port);
  }

  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    // stop() does nothing if it comes before the listen loop starts: repeat until it ends.
    while (!done) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const bool ok = server.listen_after_bind();
  done = true;
  pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter if no signal came
  waiter.join();
  StopPivot();
  StopTracing();
  return ok ? 0 : 1;
}

httplib::Server::Handler Traced(std::string operation, TracedHandler handler) {
  return [operation = std::move(operation), handler = std::move(handler)](
             const httplib::Request& req, httplib::Response& res) {
    const auto baggage = ScopeIncomingBaggage(req);
    CAUSEWAY_TRACEPOINT(tp_request, ServiceName(), operation);
    DemoSpan span = StartServerSpan(operation, req);
    handler(req, res, span);
    span.SetInt("http.status_code", res.status < 0 ? 200 : res.status);
    CAUSEWAY_TRACEPOINT(tp_bytes_written, ServiceName(), static_cast<int64_t>(res.body.size()));
  };
}

void ReplyJson(httplib::Response& res, const nlohmann::json& body) {
  res.status = 200;
  res.set_content(body.dump(), "application/json");
}

void ReplyError(httplib::Response& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(nlohmann::json{{"error", message}}.dump(), "application/json");
}

StatusOr<std::string> CallService(std::string_view service, const std::string& base_url,
                                  const std::string& target, const ParentContext& parent) {
  thread_local std::map<std::string, std::unique_ptr<httplib::Client>> clients;
  auto& client = clients[base_url];
  if (!client) {
    client = std::make_unique<httplib::Client>(base_url);
    // One connection per call. httplib 0.11's server polls each idle keep-alive connection
    // every 11 ms (select with a 10 ms timeout, then a 1 ms sleep): with a few dozen
    // connections that cost more CPU than the requests and filled kernel traces with timer
    // wake-ups.
    client->set_keep_alive(false);
    client->set_tcp_nodelay(true);
    client->set_connection_timeout(std::chrono::seconds(5));
    // Under the net fault a route answer can queue behind many others.
    client->set_read_timeout(std::chrono::seconds(60));
    client->set_write_timeout(std::chrono::seconds(60));
  }
  httplib::Headers headers;
  const size_t q = target.find('?');
  DemoSpan span = StartClientSpan(fmt::format("GET {}", target.substr(0, q)), parent, headers);
  span.SetString("peer.service", service);
  span.SetString("http.url", base_url + target);
  InjectBaggage(headers);
  httplib::Result r = client->Get(target, headers);
  if (!r) {
    span.SetString("error", DescribeHttpError(r.error()));
    return IoError(
        fmt::format("{} service at {}: {}", service, base_url, DescribeHttpError(r.error())));
  }
  span.SetInt("http.status_code", r->status);
  if (r->status != 200) {
    // A 404 is the callee's answer about the request, the rest a failure of the callee.
    return Status(
        r->status == 404 ? StatusCode::kNotFound : StatusCode::kIoError,
        fmt::format("{} service at {} answered {}: {}", service, base_url, r->status, r->body));
  }
  CAUSEWAY_TRACEPOINT(tp_bytes_read, ServiceName(), service, static_cast<int64_t>(r->body.size()));
  return std::move(r->body);
}

std::string DescribeHttpError(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect (nothing listens there, or it is unreachable)";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "no complete answer (the connection closed or the read timed out)";
    case httplib::Error::Write:
      return "cannot send the request (the connection closed or the write timed out)";
    default:
      return "HTTP client error: " + httplib::to_string(error);
  }
}

void BurnCpu(std::chrono::microseconds cpu) {
  if (cpu.count() <= 0) return;
  timespec start;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  const int64_t budget_ns = cpu.count() * 1000;
  volatile uint64_t sink = 0;
  while (true) {
    // A little arithmetic between clock reads keeps the work mostly in user space.
    for (int i = 0; i < 2000; ++i) sink = sink * 6364136223846793005ull + 1442695040888963407ull;
    timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    const int64_t used =
        (now.tv_sec - start.tv_sec) * 1'000'000'000LL + (now.tv_nsec - start.tv_nsec);
    if (used >= budget_ns) break;
  }
}

std::string FormatLocation(Location l) { return fmt::format("{},{}", l.x, l.y); }

namespace {

bool ParseInt(std::string_view text, int64_t* out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end && !text.empty();
}

}  // namespace

StatusOr<int64_t> PositiveIntParam(const httplib::Request& req, const std::string& name) {
  if (!req.has_param(name)) return InvalidArgument(fmt::format("missing parameter '{}'", name));
  const std::string text = req.get_param_value(name);
  int64_t v = 0;
  if (!ParseInt(text, &v) || v <= 0)
    return InvalidArgument(fmt::format("{} must be a positive integer, got '{}'", name, text));
  return v;
}

StatusOr<Location> LocationParam(const httplib::Request& req, const std::string& name) {
  if (!req.has_param(name)) return InvalidArgument(fmt::format("missing parameter '{}'", name));
  const std::string text = req.get_param_value(name);
  const size_t comma = text.find(',');
  Location l;
  constexpr int64_t kLimit = 1'000'000;  // a city map, not a number-parsing stress test
  if (comma == std::string::npos || !ParseInt(std::string_view(text).substr(0, comma), &l.x) ||
      !ParseInt(std::string_view(text).substr(comma + 1), &l.y) || l.x < -kLimit || l.x > kLimit ||
      l.y < -kLimit || l.y > kLimit)
    return InvalidArgument(
        fmt::format("{} must be two integers 'x,y' within ±{}, got '{}'", name, kLimit, text));
  return l;
}

}  // namespace causeway::demo
