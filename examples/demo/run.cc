// The orchestrator: faults up, services up, load, everything down, summary.
#include "run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <httplib.h>

#include "demo_tracing.h"
#include "faults.h"
#include "process.h"
#include "service.h"

namespace causeway::demo {
namespace {

using std::chrono::milliseconds;

// Everything a run creates. The destructor takes it down in the safe order on every path:
// the services (frontend first, so no call is cut in the middle), then the faults'
// resources (a namespace or cgroup cannot go while route is inside), then the lock.
struct Demo {
  std::unique_ptr<FaultLock> lock;
  std::unique_ptr<CpuQuota> cpu;
  std::unique_ptr<RouteNetwork> net;
  std::vector<Child> services;  // in start order; the frontend is last

  // Returns false if a service did not exit cleanly (the reason is printed).
  bool StopServices() {
    bool ok = true;
    for (auto it = services.rbegin(); it != services.rend(); ++it) {
      if (it->pid <= 0) continue;
      // Generous: at exit each service writes every span it served (seconds for 100,000s).
      const std::string how = StopChild(*it, milliseconds(60000));
      if (how != "exited with 0") {
        fmt::print(stderr, "causeway-demo: the {} {}\n", it->name, how);
        ok = false;
      }
    }
    return ok;
  }

  // Returns false if a resource could not be removed (the reason is printed).
  bool RemoveFaults() {
    bool ok = true;
    for (Status s : {net ? net->Remove() : Status::Ok(), cpu ? cpu->Remove() : Status::Ok()}) {
      if (!s.ok()) {
        fmt::print(stderr, "causeway-demo: {}\n", s.ToString());
        ok = false;
      }
    }
    net.reset();
    cpu.reset();
    return ok;
  }

  ~Demo() {
    StopServices();
    RemoveFaults();
  }
};

// Polls GET /health until it answers 200; services under ASan take a moment to start.
Status WaitHealthy(const std::string& name, const std::string& url, const std::atomic<bool>& stop) {
  httplib::Client client(url);
  client.set_connection_timeout(std::chrono::seconds(1));
  client.set_read_timeout(std::chrono::seconds(2));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string last = "no answer";
  while (!stop) {
    httplib::Result r = client.Get("/health");
    if (r && r->status == 200) return Status::Ok();
    last = r ? fmt::format("HTTP {}", r->status) : DescribeHttpError(r.error());
    if (std::chrono::steady_clock::now() > deadline)
      return IoError(fmt::format("the {} at {} does not answer /health: {}", name, url, last));
    std::this_thread::sleep_for(milliseconds(50));
  }
  return Status(StatusCode::kInternal, "interrupted");
}

std::string ResolveSpansDir(const RunOptions& o) {
  if (o.tracing != "spans") return "";
  if (!o.spans_dir.empty()) return o.spans_dir;
  if (!o.trace_dir.empty()) return o.trace_dir + "/spans";
  return "causeway-demo-out/spans";
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

int RunDemo(const RunOptions& in) {
  RunOptions o = in;
  std::vector<std::string> faults;  // known ones, once each, in the README's order
  for (const auto& f : o.faults) {
    if (!Has(kFaults, f)) {
      fmt::print(stderr, "causeway-demo run: unknown fault '{}' (faults: lock, cpu, disk, net)\n",
                 f);
      return 2;
    }
  }
  for (const auto& f : kFaults)
    if (Has(o.faults, f)) faults.push_back(f);
  if (Status s = ValidateLoad(o.load); !s.ok()) {
    fmt::print(stderr, "causeway-demo run: {}\n", s.ToString());
    return 2;
  }
  const bool lock = Has(faults, "lock"), cpu = Has(faults, "cpu"), disk = Has(faults, "disk"),
             net = Has(faults, "net");
  auto fail = [](const Status& s) {
    fmt::print(stderr, "causeway-demo run: {}\n", s.ToString());
    return 1;
  };
  if ((cpu || net) && geteuid() != 0)
    return fail(InvalidArgument(fmt::format(
        "the {} fault needs root: it creates {}; run as root or leave the fault out",
        cpu ? "cpu" : "net",
        cpu ? fmt::format("cgroup {}", kCgroup) : fmt::format("network namespace {}", kNetns))));
  if (disk)
    if (Status s = CheckRealDisk(o.disk_dir); !s.ok()) return fail(s);
  if (o.trace_dir.empty())
    if (const char* env = std::getenv("CAUSEWAY_TRACE_DIR"); env) o.trace_dir = env;
  const std::string spans_dir = ResolveSpansDir(o);
  // A connection holds a request thread while it is served: the frontend needs one per
  // request in flight, and the back ends as many as the frontend makes calls at once.
  o.threads = std::max(o.threads, o.load.concurrency + 4);
  const std::string exe = SelfExe();
  if (exe.empty()) return fail(IoError("cannot find my own executable in /proc/self/exe"));

  // From here on every exit path goes through ~Demo, then ~SignalWatcher.
  StopSignalWatcher signals;
  Demo demo;
  auto stopped = [&] { return signals.stop().load(); };
  auto exit_code = [&](int otherwise) {
    return signals.signal() ? 128 + signals.signal() : otherwise;
  };
  auto fail_run = [&](const Status& s) {
    if (!stopped()) fmt::print(stderr, "causeway-demo run: {}\n", s.ToString());
    StopPivot();
    return exit_code(1);
  };

  if (cpu || net) {
    auto l = FaultLock::Acquire(120, &signals.stop());
    if (!l.ok()) return fail_run(l.status());
    demo.lock = std::move(*l);
    auto removed = RemoveLeftovers();
    if (!removed.ok())
      return fail_run(removed.status().WithContext("cannot remove a killed run's leftovers"));
    for (const auto& r : *removed)
      fmt::print(stderr, "causeway-demo: removed {} (left by a killed run)\n", r);
    if (cpu) {
      auto q = CpuQuota::Create(o.cpu_quota_us, 100000);
      if (!q.ok()) return fail_run(q.status().WithContext("cannot set up the cpu fault"));
      demo.cpu = std::move(*q);
    }
    if (net) {
      auto n = RouteNetwork::Create(o.net_rate);
      if (!n.ok()) return fail_run(n.status());
      demo.net = std::move(*n);
    }
  }
  if (Status s = StartTracing("load", spans_dir); !s.ok()) return fail_run(s);
  StartLoadPivot(o.load, "load");  // before the services start: they inherit --pivot

  std::vector<std::string> env;
  if (!o.trace_dir.empty()) env.push_back("CAUSEWAY_TRACE_DIR=" + o.trace_dir);
  auto port_arg = [&](int offset) {
    return std::to_string(o.base_port ? o.base_port + offset : 0);
  };
  auto common = [&](const char* service, int offset, const std::string& host) {
    std::vector<std::string> argv = {exe,          service,
                                     "--host",     host,
                                     "--port",     port_arg(offset),
                                     "--ready-fd", "3",
                                     "--threads",  std::to_string(o.threads)};
    if (!spans_dir.empty()) argv.insert(argv.end(), {"--spans-dir", spans_dir});
    return argv;
  };

  SpawnOptions customer{"customer service", common("customer", 1, "127.0.0.1"), env};
  customer.argv.insert(customer.argv.end(), {"--db-wait-us", std::to_string(o.db_wait_us)});
  if (lock) customer.argv.push_back("--lock");
  SpawnOptions driver{"driver service", common("driver", 2, "127.0.0.1"), env};
  if (disk)
    driver.argv.insert(driver.argv.end(), {"--disk-dir", o.disk_dir, "--disk-write-kb",
                                           std::to_string(o.disk_write_kb), "--disk-syncs",
                                           std::to_string(o.disk_syncs)});
  const std::string route_host = net ? kRouteAddress : "127.0.0.1";
  SpawnOptions route{"route service", common("route", 3, route_host), env};
  route.argv.insert(route.argv.end(), {"--cpu-us", std::to_string(o.route_cpu_us),
                                       "--response-bytes", std::to_string(o.route_bytes)});
  if (demo.net) route.netns_fd = demo.net->netns_fd();
  if (demo.cpu) route.cgroup_procs = demo.cpu->procs_file();

  // The three back ends start together; the frontend needs their ports.
  std::vector<std::string> urls;
  for (SpawnOptions* s : {&customer, &driver, &route}) {
    auto child = Spawn(*s);
    if (!child.ok()) return fail_run(child.status());
    demo.services.push_back(*child);
  }
  for (size_t i = 0; i < demo.services.size(); ++i) {
    auto port = WaitForPort(demo.services[i], milliseconds(20000), signals.stop());
    if (!port.ok()) return fail_run(port.status());
    urls.push_back(fmt::format("http://{}:{}", i == 2 ? route_host : "127.0.0.1", *port));
  }
  SpawnOptions frontend{"frontend", common("frontend", 0, "127.0.0.1"), env};
  frontend.argv.insert(frontend.argv.end(),
                       {"--customer-url", urls[0], "--driver-url", urls[1], "--route-url", urls[2],
                        "--route-workers", std::to_string(o.route_workers)});
  auto front = Spawn(frontend);
  if (!front.ok()) return fail_run(front.status());
  demo.services.push_back(*front);
  auto front_port = WaitForPort(demo.services.back(), milliseconds(20000), signals.stop());
  if (!front_port.ok()) return fail_run(front_port.status());
  urls.push_back(fmt::format("http://127.0.0.1:{}", *front_port));
  for (size_t i = 0; i < urls.size(); ++i)
    if (Status s = WaitHealthy(demo.services[i].name, urls[i], signals.stop()); !s.ok())
      return fail_run(s);

  const std::string fault_list =
      faults.empty() ? "none" : fmt::format("{}", fmt::join(faults, ", "));
  fmt::print(stderr,
             "causeway-demo: services ready: frontend {}, customer {}, driver {}, route {}; "
             "faults: {}\n",
             urls[3], urls[0], urls[1], urls[2], fault_list);
  o.load.url = urls[3];
  const LoadResult result = RunLoad(o.load, signals.stop());
  StopPivot();
  StopTracing();
  const bool services_ok = demo.StopServices();
  const bool faults_ok = demo.RemoveFaults();
  demo.lock.reset();

  const LatencySummary summary = Summarize(result.latencies_ms, result.wall_s);
  if (o.format == "json") {
    nlohmann::json j = SummaryJson(result, summary);
    j["faults"] = faults;
    j["tracing"] = o.tracing;
    j["spans_dir"] = spans_dir;
    j["interrupted"] = signals.signal() != 0;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", SummaryText(result, summary,
                                 fmt::format("faults: {}; tracing: {}", fault_list, o.tracing)));
  }
  std::fflush(stdout);
  if (!spans_dir.empty()) fmt::print(stderr, "causeway-demo: spans in {}/\n", spans_dir);
  return exit_code(result.errors == 0 && services_ok && faults_ok ? 0 : 1);
}

int CleanupLeftovers() {
  if (geteuid() != 0) {
    const auto found = ExistingResources();
    if (found.empty()) {
      fmt::print(stderr, "causeway-demo cleanup: nothing to clean up\n");
      return 0;
    }
    fmt::print(stderr, "causeway-demo cleanup: removing {} needs root\n", fmt::join(found, ", "));
    return 1;
  }
  auto lock = FaultLock::Acquire(0);
  if (!lock.ok()) {
    fmt::print(stderr,
               "causeway-demo cleanup: a run is in progress (it removes its own resources "
               "when it ends): {}\n",
               lock.status().ToString());
    return 1;
  }
  auto removed = RemoveLeftovers();
  if (!removed.ok()) {
    fmt::print(stderr, "causeway-demo cleanup: {}\n", removed.status().ToString());
    return 1;
  }
  for (const auto& r : *removed) fmt::print(stderr, "causeway-demo cleanup: removed {}\n", r);
  if (removed->empty()) fmt::print(stderr, "causeway-demo cleanup: nothing to clean up\n");
  return 0;
}

}  // namespace causeway::demo
