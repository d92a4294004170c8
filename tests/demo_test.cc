// The demo application end to end: real processes, real HTTP, real faults.
//
// Latency assertions compare effects that are large by construction (a burst of 8 queries
// serialized on one mutex, 20 KB per request through a 1 Mbit/s link), so a noisy, shared,
// sanitized machine does not flip them. The root-only faults are skipped, with the reason,
// when the tests do not run as root.
#ifdef CAUSEWAY_DEMO

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/test_util.h"

namespace causeway::testing {
namespace {

using nlohmann::json;

struct DemoResult {
  int exit_code = -1;
  std::string out, err;
};

DemoResult RunDemo(const std::string& args) {
  TempDir tmp;
  const std::string err_path = tmp.path() + "/err";
  CommandResult r = RunCommand(std::string(CAUSEWAY_DEMO) + " " + args, err_path);
  std::ifstream in(err_path);
  std::stringstream err;
  err << in.rdbuf();
  return {r.exit_code, r.out, err.str()};
}

json ParseSummary(const DemoResult& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << "\nstderr:\n" << r.err;
  return j.is_discarded() ? json::object() : j;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// What the demo's faults create; each must be gone after a run.
std::vector<std::string> DemoResources() {
  std::vector<std::string> found;
  for (const char* p : {"/run/netns/cw-demo-route", "/sys/class/net/cw-demo-veth0",
                        "/sys/fs/cgroup/cpu/cw-demo-route", "/sys/fs/cgroup/cw-demo-route"})
    if (Exists(p)) found.push_back(p);
  return found;
}

// Checks for leftovers while holding the demo's lock, so that a run of another test in
// parallel (ctest -j) is either finished and cleaned up or not started.
std::vector<std::string> DemoResourcesWhenIdle() {
  const int fd = open("/run/cw-demo.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) flock(fd, LOCK_EX);
  std::vector<std::string> found = DemoResources();
  if (fd >= 0) close(fd);
  return found;
}

// Why the root-only faults cannot run here, or "" if they can.
std::string RootFaultsUnavailable() {
  if (geteuid() != 0) return "the cpu and net faults need root (cgroups, namespaces, qdiscs)";
  if (!Exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") &&
      !Exists("/sys/fs/cgroup/cgroup.controllers"))
    return "no cpu cgroup controller";
  if (!HaveProgram("ip") && !Exists("/usr/sbin/ip") && !Exists("/sbin/ip"))
    return "ip (iproute2) is not installed";
  return "";
}

// A demo process in the background with its stdout and stderr on pipes.
class Background {
 public:
  explicit Background(std::vector<std::string> args) {
    int out[2], err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    args.insert(args.begin(), CAUSEWAY_DEMO);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      causeway::testing::EndWithParent(parent, SIGTERM);
      dup2(out[1], 1);
      dup2(err[1], 2);
      // The test runner may block signals; the demo must start with the default mask.
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~Background() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
    close(out_);
    close(err_);
  }

  // Reads `fd` until `needle` appears or 60 s pass; returns everything read.
  std::string ReadUntil(bool from_stderr, const std::string& needle) {
    std::string text;
    const int fd = from_stderr ? err_ : out_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (text.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      char buf[512];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    return text;
  }

  void Signal(int sig) { kill(pid_, sig); }

  // Waits for the process; returns its exit code, or 128 + the signal that killed it.
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;
};

TEST(DemoTest, NoFaultServesEveryRequestAndWritesLinkedSpans) {
  TempDir tmp;
  const std::string spans = tmp.path() + "/spans";
  DemoResult r =
      RunDemo("run --requests 12 --rate 40 --burst 4 --format json --spans-dir " + spans);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json s = ParseSummary(r);
  EXPECT_EQ(s["count"], 12);
  EXPECT_EQ(s["errors"], 0);
  EXPECT_EQ(s["first_error"], "");
  EXPECT_EQ(s["faults"], json::array());
  EXPECT_EQ(s["tracing"], "spans");
  EXPECT_EQ(s["spans_dir"], spans);
  EXPECT_EQ(s["interrupted"], false);
  EXPECT_GT(s["mean_ms"].get<double>(), 0);
  EXPECT_LE(s["p50_ms"].get<double>(), s["p99_ms"].get<double>());
  EXPECT_LE(s["p99_ms"].get<double>(), s["max_ms"].get<double>());
  EXPECT_GE(s["max_ms"].get<double>(), s["mean_ms"].get<double>());
  EXPECT_GT(s["throughput_rps"].get<double>(), 0);
  EXPECT_GT(s["duration_s"].get<double>(), 0);

  // Every process wrote its spans, under its own service name.
  struct SpanRow {
    std::string service, name, trace, parent;
    int kind;
  };
  std::map<std::string, SpanRow> by_id;
  for (const std::string service : {"load", "frontend", "customer", "driver", "route"}) {
    // OTLP JSON Lines: the client appends a line (or a few) at every flush interval.
    std::ifstream in(spans + "/" + service + ".otlp.json");
    ASSERT_TRUE(in) << "no spans file for " << service;
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
      ++lines;
      json doc = json::parse(line, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << service << " line " << lines;
      const json& rs = doc["resourceSpans"][0];
      EXPECT_EQ(rs["resource"]["attributes"][0]["key"], "service.name");
      EXPECT_EQ(rs["resource"]["attributes"][0]["value"]["stringValue"], service);
      for (const json& sp : rs["scopeSpans"][0]["spans"]) {
        EXPECT_LE(std::stoull(sp["startTimeUnixNano"].get<std::string>()),
                  std::stoull(sp["endTimeUnixNano"].get<std::string>()));
        by_id[sp["spanId"]] = {service, sp["name"], sp["traceId"], sp.value("parentSpanId", ""),
                               sp["kind"]};
      }
    }
    EXPECT_GT(lines, 0) << service;
  }
  // Per request: the load's root, the frontend's server span and its 7 calls (customer,
  // driver, 5 routes), and one server span in each callee.
  EXPECT_EQ(by_id.size(), 12u * 16);
  std::set<std::string> traces;
  std::map<std::string, int> per_service_and_name;
  for (const auto& [id, sp] : by_id) {
    traces.insert(sp.trace);
    ++per_service_and_name[sp.service + " " + sp.name + " kind " + std::to_string(sp.kind)];
    if (sp.service == "load") {
      EXPECT_EQ(sp.parent, "") << "the load generator's spans are the roots";
      continue;
    }
    auto parent = by_id.find(sp.parent);
    ASSERT_NE(parent, by_id.end()) << sp.service << " " << sp.name << " has no parent span";
    EXPECT_EQ(parent->second.trace, sp.trace);
    if (sp.kind == 2) {
      // A server span's parent is the caller's client span for the same operation.
      EXPECT_EQ(parent->second.kind, 3);
      EXPECT_EQ(parent->second.name, sp.name);
      EXPECT_NE(parent->second.service, sp.service);
    } else {
      EXPECT_EQ(sp.kind, 3);
      EXPECT_EQ(parent->second.service, sp.service) << "a call's parent is its server span";
      EXPECT_EQ(parent->second.kind, 2);
    }
  }
  EXPECT_EQ(traces.size(), 12u) << "one trace per request";
  const std::map<std::string, int> expected = {
      {"load GET /dispatch kind 3", 12},     {"frontend GET /dispatch kind 2", 12},
      {"frontend GET /customer kind 3", 12}, {"frontend GET /drivers kind 3", 12},
      {"frontend GET /route kind 3", 60},    {"customer GET /customer kind 2", 12},
      {"driver GET /drivers kind 2", 12},    {"route GET /route kind 2", 60}};
  EXPECT_EQ(per_service_and_name, expected);
}

TEST(DemoTest, LockFaultSerializesQueriesAndRaisesTheTail) {
  // Bursts of 8 and a 30 ms database wait: with the lock, the 8th query of a burst waits for
  // the 7 before it (>= 210 ms); without it they overlap and each request takes ~30 ms plus
  // overhead. Cheap routes and 8 route workers keep the rest of the request (slow under ASan)
  // from hiding the difference.
  const std::string args =
      "run --tracing none --format json --requests 24 --rate 40 --burst 8 --concurrency 8 "
      "--db-wait-us 30000 --route-cpu-us 0 --route-bytes 256 --route-workers 8";
  DemoResult none = RunDemo(args);
  DemoResult lock = RunDemo(args + " --fault lock");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  json a = ParseSummary(none), b = ParseSummary(lock);
  EXPECT_EQ(a["count"], 24);
  EXPECT_EQ(b["count"], 24);
  EXPECT_EQ(b["faults"], json::array({"lock"}));
  EXPECT_GE(a["p50_ms"].get<double>(), 30.0) << "every request waits for the database";
  EXPECT_GE(b["p99_ms"].get<double>(), 150.0) << lock.out;
  EXPECT_GT(b["p99_ms"].get<double>(), 2 * a["p99_ms"].get<double>()) << "none:\n"
                                                                      << none.out << "lock:\n"
                                                                      << lock.out;
  // With 24 requests p99 is the slowest one: the median shows that the lock's queue slows
  // most requests, not one (release build: 41 -> 184 ms).
  EXPECT_GT(b["p50_ms"].get<double>(), 1.5 * a["p50_ms"].get<double>()) << "none:\n"
                                                                        << none.out << "lock:\n"
                                                                        << lock.out;
}

// One test for everything that uses the root-only faults: they share fixed names, so a run
// killed on purpose here would be a leftover for a parallel test's checks.
TEST(DemoTest, RootFaultsWorkAndLeaveNothingBehind) {
  if (std::string why = RootFaultsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  {
    // 4 requests start together, each fetching 5 routes of 2 KB through 1 Mbit/s: 40 KB take
    // 320 ms, so the slowest request takes far more than 100 ms.
    DemoResult r =
        RunDemo("run --tracing none --format json --requests 8 --burst 4 --fault cpu --fault net");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json s = ParseSummary(r);
    EXPECT_EQ(s["count"], 8);
    EXPECT_EQ(s["errors"], 0);
    EXPECT_EQ(s["faults"], json::array({"cpu", "net"}));
    EXPECT_GE(s["p99_ms"].get<double>(), 100.0) << r.out;
    EXPECT_EQ(DemoResourcesWhenIdle(), std::vector<std::string>()) << r.err;
  }
  const std::vector<std::string> long_run = {"run", "--tracing", "none", "--duration",
                                             "60",  "--rate",    "5",    "--fault",
                                             "cpu", "--fault",   "net"};
  {
    // Ctrl-C: the summary of what ran, exit code 130, everything removed.
    Background run(long_run);
    const std::string err = run.ReadUntil(true, "services ready");
    ASSERT_NE(err.find("services ready"), std::string::npos) << err;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    run.Signal(SIGINT);
    const std::string summary = run.ReadUntil(false, "latency ms");
    EXPECT_EQ(run.Wait(), 130);
    EXPECT_NE(summary.find("latency ms"), std::string::npos) << summary;
    EXPECT_EQ(DemoResourcesWhenIdle(), std::vector<std::string>());
  }
  {
    // SIGKILL leaves the namespace and the cgroup; the services die with their parent
    // (PR_SET_PDEATHSIG), and the next run removes the rest before it starts.
    Background run(long_run);
    const std::string err = run.ReadUntil(true, "services ready");
    ASSERT_NE(err.find("services ready"), std::string::npos) << err;
    run.Signal(SIGKILL);
    EXPECT_EQ(run.Wait(), 128 + SIGKILL);
    EXPECT_FALSE(DemoResources().empty()) << "a killed run cannot clean up";
    DemoResult next = RunDemo("run --tracing none --requests 2 --fault net --fault cpu");
    EXPECT_EQ(next.exit_code, 0) << next.err;
    EXPECT_NE(next.err.find("removed network namespace cw-demo-route (left by a killed run)"),
              std::string::npos)
        << next.err;
    EXPECT_NE(next.err.find("removed cgroup"), std::string::npos) << next.err;
    EXPECT_EQ(DemoResourcesWhenIdle(), std::vector<std::string>());
  }
  DemoResult cleanup = RunDemo("cleanup");
  EXPECT_EQ(cleanup.exit_code, 0) << cleanup.err;
  EXPECT_NE(cleanup.err.find("nothing to clean up"), std::string::npos) << cleanup.err;
}

TEST(DemoTest, BadCommandLinesGetClearErrors) {
  struct Case {
    std::string args, message;
    int exit_code;
  } cases[] = {
      {"run --fault flood", "--fault: flood not in {lock,cpu,disk,net}", 2},
      {"run --requests 0 --duration 0", "the load would never end", 2},
      {"run --burst 20 --concurrency 4", "--burst 20 is more than --concurrency 4", 2},
      {"run --tracing verbose", "--tracing", 2},
      {"run --duration 2 --warmup 3", "--warmup 3 is not shorter than --duration 2", 2},
      {"load --url http://127.0.0.1:1 --requests 1 --rate 0",
       "request 0 to http://127.0.0.1:1: cannot connect", 1},
      {"run --clients web,,batch", "--clients has an empty name", 2},
      // An unreachable NATS server: said, and the process runs without its agent.
      {"load --url http://127.0.0.1:1 --requests 1 --rate 0 --pivot nats://127.0.0.1:1",
       "running without Pivot Tracing: Cannot connect to NATS at nats://127.0.0.1:1", 1},
      {"", "A subcommand is required", 2},
  };
  for (const auto& c : cases) {
    DemoResult r = RunDemo(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_NE((r.err + r.out).find(c.message), std::string::npos)
        << c.args << "\nstdout: " << r.out << "\nstderr: " << r.err;
  }
  // The disk fault refuses memory-backed directories, where fsync waits for nothing.
  struct statfs fs;
  if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
    DemoResult r = RunDemo("run --fault disk --disk-dir /dev/shm --requests 1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("disk fault directory /dev/shm is in memory (tmpfs)"), std::string::npos)
        << r.err;
  }
  DemoResult help = RunDemo("run --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--fault", "--tracing", "--format", "--rate", "--burst", "--trace-dir"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
}

TEST(DemoTest, ServicesAnswerBadRequestsWithReasons) {
  // Standalone services, reporting their port on stdout (--ready-fd 1).
  Background customer({"customer", "--port", "0", "--ready-fd", "1", "--db-wait-us", "0"});
  const int customer_port = std::atoi(customer.ReadUntil(false, "\n").c_str());
  ASSERT_GT(customer_port, 0);
  httplib::Client c("127.0.0.1", customer_port);
  auto bad = c.Get("/customer?id=abc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("id must be a positive integer, got 'abc'"), std::string::npos)
      << bad->body;
  auto missing = c.Get("/customer?id=999");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("no customer with id 999"), std::string::npos);
  auto good = c.Get("/customer?id=7");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, 200);
  EXPECT_EQ(json::parse(good->body)["id"], 7);

  // A frontend whose customer service is down answers 502 and names it.
  Background frontend(
      {"frontend", "--port", "0", "--ready-fd", "1", "--customer-url", "http://127.0.0.1:1"});
  const int frontend_port = std::atoi(frontend.ReadUntil(false, "\n").c_str());
  ASSERT_GT(frontend_port, 0);
  httplib::Client f("127.0.0.1", frontend_port);
  auto down = f.Get("/dispatch?customer=1");
  ASSERT_TRUE(down);
  EXPECT_EQ(down->status, 502);
  EXPECT_NE(down->body.find("customer service at http://127.0.0.1:1: cannot connect"),
            std::string::npos)
      << down->body;
  auto no_id = f.Get("/dispatch");
  ASSERT_TRUE(no_id);
  EXPECT_EQ(no_id->status, 400);
  EXPECT_NE(no_id->body.find("missing parameter 'customer'"), std::string::npos);

  // SIGTERM stops a service cleanly.
  customer.Signal(SIGTERM);
  EXPECT_EQ(customer.Wait(), 0);
  frontend.Signal(SIGTERM);
  EXPECT_EQ(frontend.Wait(), 0);
}

}  // namespace
}  // namespace causeway::testing

#endif  // CAUSEWAY_DEMO
