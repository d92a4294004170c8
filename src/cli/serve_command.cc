// `causeway serve TRACE_DIR...`: an HTTP server answering the Trace Server Protocol (TSP)
// over the traces' analysis, and the web UI (src/server).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/kernel_load.h"
#include "server/access.h"
#include "server/experiments.h"
#include "server/server.h"

namespace causeway::cli {
namespace {

struct ServeOptions {
  std::vector<std::string> traces;
  std::vector<std::string> spans;
  std::string host;
  ClockSyncFlags sync;
  IndexFlags index;
  int port = 8080;
  std::string bind = "127.0.0.1";
  std::string token;
  std::vector<std::string> roots;
  std::string ui_dir;
};

int RunServe(const ServeOptions& o) {
  if (!server::IsLoopbackAddress(o.bind) && o.token.empty())
    return fmt::print(stderr,
                      "causeway serve: --bind {} lets other machines connect: give --token T "
                      "too (clients then send 'Authorization: Bearer T'), or bind 127.0.0.1\n",
                      o.bind),
           2;
  if (o.traces.empty() && o.roots.empty())
    return fmt::print(stderr,
                      "causeway serve: give trace directories, or --root DIR for the "
                      "directories clients may open traces from\n"),
           2;
  if (o.port < 0 || o.port > 65535)
    return fmt::print(stderr, "causeway serve: --port must be 0 to 65535\n"), 2;
  auto roots = server::AllowedRoots::Make(o.roots.empty() ? o.traces : o.roots);
  if (!roots.ok()) return fmt::print(stderr, "causeway serve: {}\n", roots.status().ToString()), 1;

  // SIGINT and SIGTERM are taken by one thread (sigwait) that stops the server: blocked
  // here, before any thread starts, so that every thread inherits the mask. SIGPIPE: a
  // client gone mid-answer is a failed write, not the end of the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);  // the server ended on its own: wakes the waiter
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  server::AnalysisSettings settings{o.spans, o.sync.ToOptions(), o.host};
  settings.index.use = !o.index.no_index;
  settings.index.cache_dir = o.index.cache;
  settings.index.note = [](const std::string& note) {
    fmt::print(stderr, "causeway serve: {}\n", note);
  };
  server::Experiments experiments(std::move(*roots), settings);
  server::ServerOptions so;
  so.bind = o.bind;
  so.port = o.port;
  so.token = o.token;
  so.ui_dir = o.ui_dir;
  server::AnalysisServer http(so, &experiments);
  StatusOr<int> port = http.Bind();
  if (!port.ok()) return fmt::print(stderr, "causeway serve: {}\n", port.status().ToString()), 1;

  if (!o.traces.empty()) {
    std::vector<std::string> uuids;
    for (const std::string& t : o.traces) {
      auto opened = experiments.OpenTrace(t, "");
      if (!opened.ok())
        return fmt::print(stderr, "causeway serve: {}\n", opened.status().ToString()), 1;
      uuids.push_back(opened->uuid);
    }
    fmt::print(stderr, "causeway serve: analysing {} ...\n", fmt::join(o.traces, " "));
    auto e = experiments.OpenExperiment(experiments.FindTrace(uuids.front())->name, uuids);
    if (!e.ok()) return fmt::print(stderr, "causeway serve: {}\n", e.status().ToString()), 1;
    const auto& d = *e->data;
    fmt::print(stderr, "causeway serve: {} events, {} threads, {} requests in {:.2f} s{}{}\n",
               d.events, d.recording.kernel->graph.num_workers(),
               d.recording.requests.requests.size(), d.seconds, d.spans_note.empty() ? "" : "; ",
               d.spans_note);
  }

  const std::string host = o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind;
  std::printf("causeway serve: listening on http://%s:%d/ (TSP API: http://%s:%d/tsp/api)%s\n",
              host.c_str(), *port, host.c_str(), *port,
              o.token.empty() ? "" : "; clients send 'Authorization: Bearer TOKEN'");
  std::fflush(stdout);

  std::thread waiter([&http, &stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    http.Stop();
  });
  Status served = http.Serve();
  pthread_kill(waiter.native_handle(), SIGUSR1);  // a no-op stop when the signal came first
  waiter.join();
  if (!served.ok()) return fmt::print(stderr, "causeway serve: {}\n", served.ToString()), 1;
  fmt::print(stderr, "causeway serve: stopped\n");
  return 0;
}

}  // namespace

Runner RegisterServe(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "An analysis server: Trace Server Protocol API and web UI over the traces");
  cmd->footer(
      "Analyses the traces once (as `causeway requests` does: kernel graph, clock sync between\n"
      "hosts, spans joined into requests; the graph comes from the index when `causeway\n"
      "index` built a valid one, which opens a large trace in a fraction of the time) and\n"
      "answers from memory:\n"
      "  - a web UI at http://HOST:PORT/ (requests slowest first, critical paths, threads);\n"
      "  - the Trace Server Protocol (TSP) at http://HOST:PORT/tsp/api, for Trace Compass\n"
      "    clients (Theia / VS Code Trace Viewer, tsp-typescript-client): outputs\n"
      "    causeway.threads (time graph of threads, wake-up and packet arrows),\n"
      "    causeway.critical_path (a request's critical path), causeway.cpu_usage (XY),\n"
      "    causeway.requests and causeway.thread_times (data trees), causeway.events (table).\n"
      "Views are answered at the resolution asked (one state per pixel at most).\n\n"
      "Security: binds 127.0.0.1 unless --bind says otherwise; any other address needs\n"
      "--token T, and every request must then carry 'Authorization: Bearer T'. Clients may\n"
      "open more traces (POST /tsp/api/traces) only below the --root directories (default:\n"
      "the trace directories given here). Stop with Ctrl-C (SIGINT) or SIGTERM.\n\n"
      "Examples:\n"
      "  causeway serve causeway-demo-out/2026-11-22T10-00-00-lock\n"
      "  causeway serve --root /srv/traces --port 9000\n"
      "  causeway serve TRACE_DIR --bind 0.0.0.0 --token \"$(openssl rand -hex 16)\"");
  cmd->add_option("traces", o->traces,
                  "Trace directories analysed at start, as one experiment (a recording "
                  "directory, its kernel/, or several hosts' traces)");
  cmd->add_option("--spans", o->spans,
                  "Span files or directories (OTLP JSON, Jaeger JSON; default: TRACE_DIR/spans)");
  AddClockSyncFlags(cmd, &o->sync);
  AddIndexFlags(cmd, &o->index);
  cmd->add_option("--host", o->host, "The host whose threads ran the spans (default: the first)");
  cmd->add_option("--port", o->port, "TCP port (0: any free port, printed)")->capture_default_str();
  cmd->add_option("--bind", o->bind, "Address to listen on; other than loopback requires --token")
      ->capture_default_str();
  cmd->add_option("--token", o->token,
                  "Bearer token every request must carry (Authorization: Bearer T)");
  cmd->add_option("--root", o->roots,
                  "Directories clients may open traces from (default: the trace directories "
                  "given)");
  cmd->add_option("--ui", o->ui_dir,
                  "A directory of web UI files to serve at / instead of the UI built into the "
                  "binary (default: $CAUSEWAY_UI_DIR when set)");
  return [o] { return RunServe(*o); };
}

}  // namespace causeway::cli
