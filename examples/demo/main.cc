// causeway-demo: a small multi-service application with switchable faults (see README.md).
#include <signal.h>

#include <cstdio>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "process.h"
#include "run.h"
#include "services.h"

namespace {

using causeway::demo::ServiceOptions;

void AddServiceOptions(CLI::App* cmd, ServiceOptions& o, int default_port) {
  o.port = default_port;
  cmd->add_option("--host", o.host, "Address to listen on");
  cmd->add_option("--port", o.port, "Port to listen on; 0 lets the kernel pick a free one")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--spans-dir", o.spans_dir,
                  "Write this service's spans as OTLP JSON to DIR/<service>.otlp.json when it "
                  "stops (default: no tracing)");
  cmd->add_option("--threads", o.threads, "Request threads; each open client connection holds one")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--ready-fd", o.ready_fd,
                  "Once listening, write the port and a newline to this file descriptor and "
                  "close it (how `run` learns the port)");
}

void AddLoadOptions(CLI::App* cmd, causeway::demo::LoadOptions& o) {
  cmd->add_option("--duration", o.duration_s,
                  "Stop sending after this many seconds (0: no limit; --requests ends it)");
  cmd->add_option("--requests", o.requests, "Stop after this many requests (0: no limit)");
  cmd->add_option("--rate", o.rate, "Requests per second; 0 sends as fast as the workers can");
  cmd->add_option("--burst", o.burst,
                  "Requests that start together (every BURST/RATE seconds); bursts make "
                  "contention visible");
  cmd->add_option("--concurrency", o.concurrency, "Requests in flight at most");
  cmd->add_option("--warmup", o.warmup_s,
                  "Seconds of requests sent but left out of the latency summary (benchmarks "
                  "measure the steady state)");
  // Split here rather than with CLI11's delimiter, which drops empty names silently: an empty
  // name is an error (ValidateLoad).
  cmd->add_option_function<std::string>(
      "--clients",
      [&o](const std::string& list) {
        o.clients.clear();
        size_t begin = 0;
        for (;;) {
          const size_t comma = list.find(',', begin);
          o.clients.push_back(list.substr(begin, comma - begin));
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
      },
      "Names of the load's clients, comma-separated (default web,mobile,partner): request i "
      "comes from client i mod N (the demo:client_request tracepoint; the JSON summary "
      "counts requests and answer bytes per client)");
  cmd->add_option("--pivot", o.pivot_nats,
                  "NATS server of `causeway pivot` (nats://HOST:PORT): every process starts a "
                  "Pivot Tracing agent there (default: $CAUSEWAY_PIVOT_NATS, if set)");
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: every thread inherits the mask, and one thread per process
  // takes the stop signals (see process.h).
  causeway::demo::BlockStopSignals();
  signal(SIGPIPE, SIG_IGN);  // a peer that hangs up must not kill a service

  CLI::App app{
      "causeway-demo: a small multi-service application (frontend, customer, driver, route, "
      "and a load generator) with switchable faults, to show what Causeway explains.\n"
      "A request: load -> frontend /dispatch -> customer /customer, driver /drivers, and one "
      "route /route per nearby driver.\n\n"
      "  causeway-demo run                       no fault, 5 s of load, latency summary\n"
      "  causeway-demo run --fault lock          customer serializes its queries on one mutex\n"
      "  causeway-demo run --fault cpu           route in a cgroup with a 5% CPU quota (root)\n"
      "  causeway-demo run --fault disk          driver writes and fsyncs per request\n"
      "  causeway-demo run --fault net           route behind a 1 Mbit/s veth link (root)\n"
      "  causeway-demo run --format json         the summary as JSON\n"
      "  causeway-demo cleanup                   remove what a killed run left behind\n\n"
      "Run `causeway-demo COMMAND --help` for the options of a command; "
      "examples/demo/README.md tells more."};
  app.name("causeway-demo");
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);

  causeway::demo::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "Start the four services, run the load, stop everything and print the latency summary");
  AddLoadOptions(run_cmd, run.load);
  run_cmd
      ->add_option(
          "--fault", run.faults,
          "Fault to switch on; repeat for several. lock: customer holds one global "
          "mutex per query. cpu: route gets 5% of a CPU (cgroup, root). disk: driver "
          "writes + fsyncs 32 times per request. net: route behind a 1 Mbit/s link in its own "
          "network namespace (root)")
      ->check(CLI::IsMember(causeway::demo::kFaults));
  run_cmd->add_option("--tracing", run.tracing, "none: no tracer at all; spans: OTLP JSON spans")
      ->check(CLI::IsMember({"none", "spans"}));
  run_cmd->add_option(
      "--trace-dir", run.trace_dir,
      "Passed to the services as CAUSEWAY_TRACE_DIR; spans go to DIR/spans unless --spans-dir "
      "(default: $CAUSEWAY_TRACE_DIR)");
  run_cmd->add_option("--spans-dir", run.spans_dir,
                      "Where each process writes <service>.otlp.json (default: TRACE_DIR/spans, "
                      "else causeway-demo-out/spans)");
  run_cmd->add_option("--format", run.format, "Summary format")
      ->check(CLI::IsMember({"text", "json"}));
  run_cmd
      ->add_option("--base-port", run.base_port,
                   "Listen on P (frontend), P+1 (customer), P+2 (driver), P+3 (route); 0: free "
                   "ports chosen by the kernel")
      ->check(CLI::Range(0, 65532));
  run_cmd->add_option("--threads", run.threads, "Request threads per service")
      ->check(CLI::Range(1, 1024));
  run_cmd
      ->add_option("--db-wait-us", run.db_wait_us,
                   "customer: simulated database wait per query, µs")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  run_cmd->add_option("--route-cpu-us", run.route_cpu_us, "route: CPU per route, µs")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  run_cmd->add_option("--route-bytes", run.route_bytes, "route: size of each answer, bytes")
      ->check(CLI::Range(int64_t{64}, int64_t{10'000'000}));
  run_cmd
      ->add_option("--route-workers", run.route_workers,
                   "frontend: threads shared by all requests for the route calls")
      ->check(CLI::Range(1, 64));
  run_cmd
      ->add_option("--disk-dir", run.disk_dir,
                   "disk fault: directory on a real disk (not tmpfs) for the fsynced file")
      ->check(CLI::ExistingDirectory);
  run_cmd->add_option("--disk-write-kb", run.disk_write_kb, "disk fault: KiB written per fsync")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  run_cmd
      ->add_option("--disk-syncs", run.disk_syncs, "disk fault: write + fsync rounds per request")
      ->check(CLI::Range(1, 1000));
  run_cmd
      ->add_option("--cpu-quota-us", run.cpu_quota_us,
                   "cpu fault: CPU time route may use per 100000 µs period")
      ->check(CLI::Range(int64_t{1000}, int64_t{1'000'000}));
  run_cmd->add_option("--net-rate", run.net_rate,
                      "net fault: tbf rate on route's answers (tc syntax: 1mbit, 500kbit)");

  causeway::demo::LoadOptions load;
  std::string load_format = "text", load_spans;
  CLI::App* load_cmd = app.add_subcommand(
      "load", "Send /dispatch requests to a running frontend and print the latency summary");
  load_cmd->add_option("--url", load.url, "The frontend");
  AddLoadOptions(load_cmd, load);
  load_cmd->add_option("--format", load_format, "Summary format")
      ->check(CLI::IsMember({"text", "json"}));
  load_cmd->add_option("--spans-dir", load_spans,
                       "Write the root spans as OTLP JSON to DIR/load.otlp.json");

  causeway::demo::CustomerOptions customer;
  CLI::App* customer_cmd =
      app.add_subcommand("customer", "Serve GET /customer?id=ID from a simulated database");
  AddServiceOptions(customer_cmd, customer.service, 8081);
  customer_cmd->add_option("--db-cpu-us", customer.db_cpu_us, "CPU per query, µs")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  customer_cmd->add_option("--db-wait-us", customer.db_wait_us, "Database wait per query, µs")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  customer_cmd->add_flag("--lock", customer.lock,
                         "The lock fault: hold one global mutex for the whole query");

  causeway::demo::DriverOptions driver;
  CLI::App* driver_cmd = app.add_subcommand(
      "driver", "Serve GET /drivers?location=X,Y: the nearest drivers to a location");
  AddServiceOptions(driver_cmd, driver.service, 8082);
  driver_cmd->add_option("--drivers", driver.drivers, "Drivers returned")
      ->check(CLI::Range(1, 200));
  driver_cmd->add_option(
      "--disk-dir", driver.disk_dir,
      "The disk fault: write and fsync, --disk-syncs times per request, to a file in this "
      "directory (not tmpfs)");
  driver_cmd->add_option("--disk-write-kb", driver.disk_write_kb, "KiB written per fsync")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  driver_cmd->add_option("--disk-syncs", driver.disk_syncs, "Write + fsync rounds per request")
      ->check(CLI::Range(1, 1000));

  causeway::demo::RouteOptions route;
  CLI::App* route_cmd = app.add_subcommand(
      "route", "Serve GET /route?from=X,Y&to=X,Y: an ETA and a few KB of waypoints");
  AddServiceOptions(route_cmd, route.service, 8083);
  route_cmd->add_option("--cpu-us", route.cpu_us, "CPU per route, µs")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  route_cmd->add_option("--response-bytes", route.response_bytes, "Size of each answer, bytes")
      ->check(CLI::Range(int64_t{64}, int64_t{10'000'000}));

  causeway::demo::FrontendOptions frontend;
  CLI::App* frontend_cmd = app.add_subcommand(
      "frontend", "Serve GET /dispatch?customer=ID, calling customer, driver and route");
  AddServiceOptions(frontend_cmd, frontend.service, 8080);
  frontend_cmd->add_option("--customer-url", frontend.customer_url, "The customer service");
  frontend_cmd->add_option("--driver-url", frontend.driver_url, "The driver service");
  frontend_cmd->add_option("--route-url", frontend.route_url, "The route service");
  frontend_cmd
      ->add_option("--route-workers", frontend.route_workers,
                   "Threads shared by all requests for the route calls")
      ->check(CLI::Range(1, 64));

  CLI::App* cleanup_cmd = app.add_subcommand(
      "cleanup", "Remove the cw-demo-* namespace, links and cgroup that a killed run left (root)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any usage error exits 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (run_cmd->parsed()) return causeway::demo::RunDemo(run);
  if (customer_cmd->parsed()) return causeway::demo::RunCustomer(customer);
  if (driver_cmd->parsed()) return causeway::demo::RunDriver(driver);
  if (route_cmd->parsed()) return causeway::demo::RunRoute(route);
  if (frontend_cmd->parsed()) return causeway::demo::RunFrontend(frontend);
  if (cleanup_cmd->parsed()) return causeway::demo::CleanupLeftovers();
  if (load_cmd->parsed()) {
    if (auto s = causeway::demo::ValidateLoad(load); !s.ok()) {
      fmt::print(stderr, "causeway-demo load: {}\n", s.ToString());
      return 2;
    }
    if (auto s = causeway::demo::StartTracing("load", load_spans); !s.ok()) {
      fmt::print(stderr, "causeway-demo load: {}\n", s.ToString());
      return 1;
    }
    causeway::demo::StopSignalWatcher signals;
    causeway::demo::StartLoadPivot(load, "load");
    const auto result = causeway::demo::RunLoad(load, signals.stop());
    causeway::demo::StopPivot();
    causeway::demo::StopTracing();
    const auto summary = causeway::demo::Summarize(result.latencies_ms, result.wall_s);
    if (load_format == "json")
      fmt::print("{}\n", causeway::demo::SummaryJson(result, summary).dump(2));
    else
      fmt::print("{}", causeway::demo::SummaryText(result, summary, "url: " + load.url));
    if (signals.signal()) return 128 + signals.signal();
    return result.errors == 0 ? 0 : 1;
  }
  return 2;
}
