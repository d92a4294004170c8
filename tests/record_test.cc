// `causeway record` on this machine, for real: eBPF probes on the running kernel, a known
// workload, and the trace checked with our reader, babeltrace2 and the critical path.
// Needs root and a kernel with BTF; elsewhere each test skips with the reason.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/reader/event_reader.h"
#include "support/read_all.h"
#include "support/recording.h"
#include "support/test_util.h"

extern char** environ;

namespace causeway {
namespace {

namespace fs = std::filesystem;
using testing::ReadInfo;
using testing::RunCli;
using testing::RunCommand;
using testing::TempDir;

struct Recording {
  std::string dir;  // the recording directory (DIR/kernel holds the trace)
  std::map<std::string, std::string> info;
  nlohmann::json summary;
};

// Records `causeway_workload MODE N` and returns what it wrote.
Recording RecordWorkload(const TempDir& tmp, const std::string& mode, int n) {
  Recording r;
  r.dir = tmp.path() + "/rec";
  const std::string info = tmp.path() + "/info";
  std::string err;
  auto res = RunCli("record -o " + r.dir + " --format json -- " + CAUSEWAY_WORKLOAD + " " + mode +
                        " " + std::to_string(n) + " " + info,
                    &err);
  EXPECT_EQ(res.exit_code, 0) << err;
  r.summary = nlohmann::json::parse(res.out, nullptr, false);
  EXPECT_FALSE(r.summary.is_discarded()) << res.out;
  r.info = ReadInfo(info);
  return r;
}

using Ev = testing::ReadEvent;

// babeltrace2 reads the whole trace without an error and sees as many events as we do.
void ExpectBabeltraceReads(const std::string& dir, size_t events) {
  if (!testing::HaveProgram("babeltrace2")) {
    ADD_FAILURE() << "babeltrace2 is not installed (scripts/setup.sh installs it)";
    return;
  }
  auto bt = RunCommand("bash -c 'set -o pipefail; babeltrace2 " + dir + " | wc -l'");
  ASSERT_EQ(bt.exit_code, 0) << "babeltrace2 failed on " << dir;
  EXPECT_EQ(std::stoul(bt.out), events);
}

// Per CPU, each sched_switch's next thread is the following one's previous thread. Some
// kernels never report the switch-out of a few threads (this machine's sandbox kernel hides
// those of its agent: ftrace shows them switched in, never out); a break right after such a
// thread was switched in is the kernel's, not ours, and is only printed.
int SwitchChainBreaks(const std::vector<Ev>& evs) {
  std::set<int64_t> switched_out;
  for (const Ev& e : evs)
    if (e.name == "sched_switch") switched_out.insert(e.num.at("prev_tid"));
  std::map<uint32_t, int64_t> next_of_cpu;
  int breaks = 0, hidden = 0;
  for (const Ev& e : evs) {
    if (e.name != "sched_switch") continue;
    auto it = next_of_cpu.find(e.cpu);
    if (it != next_of_cpu.end() && it->second != e.num.at("prev_tid")) {
      if (switched_out.count(it->second)) {
        ++breaks;
        ADD_FAILURE() << "cpu " << e.cpu << " at " << e.ts << ": switched to " << it->second
                      << ", next switch is out of " << e.num.at("prev_tid");
      } else {
        ++hidden;
      }
    }
    next_of_cpu[e.cpu] = e.num.at("next_tid");
  }
  if (hidden)
    std::printf("note: %d switches out of threads the kernel never reports switching out\n",
                hidden);
  return breaks;
}

// A cgroup v1 cpu cgroup with a CPU quota, for one test: removed on every way out (its
// tasks moved back to the root first), so a failed assertion leaves no cgroup behind.
class CpuQuotaCgroup {
 public:
  CpuQuotaCgroup(const std::string& name, int quota_us, int period_us)
      : dir_(std::string(kCpuRoot) + "/" + name) {
    if (mkdir(dir_.c_str(), 0755) != 0) {
      error_ = "mkdir " + dir_ + ": " + std::strerror(errno);
      return;
    }
    made_ = true;
    if (!Write(dir_ + "/cpu.cfs_period_us", std::to_string(period_us)) ||
        !Write(dir_ + "/cpu.cfs_quota_us", std::to_string(quota_us)))
      error_ = "cannot set the quota of " + dir_;
  }
  ~CpuQuotaCgroup() {
    if (!made_) return;
    for (int attempt = 0; attempt < 50; ++attempt) {
      std::ifstream procs(dir_ + "/cgroup.procs");
      for (std::string pid; std::getline(procs, pid);)
        Write(std::string(kCpuRoot) + "/cgroup.procs", pid);
      if (rmdir(dir_.c_str()) == 0 || errno == ENOENT) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "could not remove " << dir_ << ": " << std::strerror(errno);
  }
  const std::string& dir() const { return dir_; }
  const std::string& error() const { return error_; }
  static constexpr const char* kCpuRoot = "/sys/fs/cgroup/cpu";

 private:
  static bool Write(const std::string& path, const std::string& value) {
    std::ofstream f(path);
    f << value;
    f.flush();
    return static_cast<bool>(f);
  }
  std::string dir_, error_;
  bool made_ = false;
};

TEST(RecordTest, CpuQuotaThrottlingIsNamedWithItsCgroup) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!fs::exists(std::string(CpuQuotaCgroup::kCpuRoot) + "/cpu.cfs_quota_us"))
    GTEST_SKIP() << "Skipped: no cgroup v1 cpu controller at " << CpuQuotaCgroup::kCpuRoot
                 << " (this test sets a v1 quota)";
  TempDir tmp;
  const std::string name = "cw-test-quota-" + std::to_string(getpid());
  // 10 ms of CPU per 100 ms: a CPU-bound child is throttled about 90% of the time.
  CpuQuotaCgroup cgroup(name, 10'000, 100'000);
  ASSERT_TRUE(cgroup.error().empty()) << cgroup.error();
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  // The shell moves itself into the cgroup, then a child spins for a second.
  auto rec = RunCli("record -o " + dir + " -- sh -c 'echo $$ > " + cgroup.dir() +
                        "/cgroup.procs && timeout 1 sh -c \"while :; do :; done\"; true'",
                    &err);
  ASSERT_EQ(rec.exit_code, 0) << err;
  auto threads = RunCli("threads " + dir + " --format json --sort preempted", &err);
  ASSERT_EQ(threads.exit_code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(threads.out);
  EXPECT_GT(j["counters"]["cpu_throttles"].get<int64_t>(), 3) << j["counters"].dump();
  const std::string quota = "throttled by cgroup quota (/" + name + ")";
  int32_t spinner = -1;
  for (const auto& t : j["threads"]) {
    if (!t.contains("cpu_wait") || t["cpu_wait"].value("throttled_by", "") != quota) continue;
    // Most of its wait for a CPU was the quota: about 0.9 s of the second.
    EXPECT_GT(t["cpu_wait"]["throttled_ns"].get<int64_t>(), 300'000'000) << t.dump();
    spinner = t["tid"];
    break;
  }
  ASSERT_GT(spinner, 0) << "no thread throttled by " << quota << ": " << j["threads"].dump();
  auto path = RunCli("critpath " + dir + " --tid " + std::to_string(spinner), &err);
  ASSERT_EQ(path.exit_code, 0) << err;
  // Its throttled waits say so (the qualifier), with who had the CPU meanwhile; the
  // summary line leads with the quota only when throttling was most of the waiting, which
  // other load on the machine may change.
  EXPECT_NE(path.out.find(quota + "; CPU "), std::string::npos) << path.out;
}

TEST(RecordTest, PipePingPongBetweenTwoThreads) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const int kRoundTrips = 2000;
  Recording r = RecordWorkload(tmp, "pipe-pingpong", kRoundTrips);
  ASSERT_EQ(r.summary.value("lost", -1), 0) << "the ring buffer dropped records";
  const int64_t ping = std::stoll(r.info.at("ping_tid"));
  const int64_t pong = std::stoll(r.info.at("pong_tid"));
  const std::string kernel = r.dir + "/kernel";

  const testing::ReadAllResult read = testing::ReadAllExpectOk(kernel);
  EXPECT_EQ(read.discarded_events, 0u);
  const std::vector<Ev>& evs = read.events;
  ASSERT_EQ(evs.size(), r.summary["events"].get<size_t>());
  EXPECT_EQ(SwitchChainBreaks(evs), 0);

  // Both threads switch in and out, wake each other, and the statedump names the recorder.
  int ping_runs = 0, pong_runs = 0, wakes_of_pong = 0, wakes_of_ping = 0, statedump = 0;
  std::map<uint32_t, int64_t> current;  // per CPU, from sched_switch
  for (const Ev& e : evs) {
    if (e.name == "sched_switch") {
      current[e.cpu] = e.num.at("next_tid");
      ping_runs += e.num.at("next_tid") == ping;
      pong_runs += e.num.at("next_tid") == pong;
    } else if (e.name == "sched_waking") {
      const auto cur = current.find(e.cpu);
      if (cur == current.end()) continue;
      wakes_of_pong += e.num.at("tid") == pong && cur->second == ping;
      wakes_of_ping += e.num.at("tid") == ping && cur->second == pong;
    } else if (e.name == "lttng_statedump_process_state") {
      ++statedump;
    }
  }
  EXPECT_GT(statedump, 10);
  EXPECT_GE(ping_runs, kRoundTrips / 4);
  EXPECT_GE(pong_runs, kRoundTrips / 4);
  EXPECT_GE(wakes_of_pong, kRoundTrips / 4);
  EXPECT_GE(wakes_of_ping, kRoundTrips / 4);

  ExpectBabeltraceReads(kernel, evs.size());

  // The graph sees it too: ping's critical path runs through pong.
  std::string err;
  auto cp = RunCli("critpath " + r.dir + " --tid " + std::to_string(ping) + " --format json", &err);
  ASSERT_EQ(cp.exit_code, 0) << err;
  auto j = nlohmann::json::parse(cp.out);
  bool through_pong = false;
  for (const auto& s : j["segments"]) through_pong |= s["tid"] == pong && s["state"] == "RUNNING";
  EXPECT_TRUE(through_pong) << cp.out.substr(0, 2000);
}

TEST(RecordTest, TcpPingPongBetweenTwoProcesses) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const int kRoundTrips = 500;
  Recording r = RecordWorkload(tmp, "tcp-pingpong", kRoundTrips);
  ASSERT_EQ(r.summary.value("lost", -1), 0) << "the ring buffer dropped records";
  const int64_t port = std::stoll(r.info.at("port"));
  const std::string kernel = r.dir + "/kernel";
  const std::vector<Ev> evs = testing::ReadAllExpectOk(kernel).events;
  EXPECT_EQ(SwitchChainBreaks(evs), 0);

  using Key = std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, std::vector<uint64_t>> sent;
  std::map<Key, std::vector<uint64_t>> received;
  for (const Ev& e : evs) {
    if (e.name != "net_dev_queue" && e.name != "netif_receive_skb") continue;
    if (e.num.at("sport") != port && e.num.at("dport") != port) continue;
    EXPECT_EQ(e.str.at("name"), "lo");
    EXPECT_EQ(e.str.at("saddr"), "127.0.0.1");
    Key k{e.str.at("saddr"), e.str.at("daddr"),   e.num.at("sport"), e.num.at("dport"),
          e.num.at("seq"),   e.num.at("ack_seq"), e.num.at("flags")};
    (e.name == "net_dev_queue" ? sent : received)[k].push_back(e.ts);
  }
  size_t segments = 0;
  for (const auto& [k, times] : sent) {
    segments += times.size();
    auto it = received.find(k);
    ASSERT_NE(it, received.end()) << "segment sent on loopback never received: seq "
                                  << std::get<4>(k) << " flags " << std::get<6>(k);
    EXPECT_EQ(it->second.size(), times.size());
    EXPECT_GE(it->second.front(), times.front()) << "received before it was sent";
  }
  EXPECT_EQ(received.size(), sent.size());
  EXPECT_GE(segments, 2u * kRoundTrips);  // a request and a reply per round trip, at least
  // Traffic that is not HTTP gives no http_message (the kernel side filters it out).
  for (const Ev& e : evs) {
    if (e.name != "http_message") continue;
    EXPECT_TRUE(e.num.at("lport") != port && e.num.at("rport") != port) << "at " << e.ts;
  }

  ExpectBabeltraceReads(kernel, evs.size());

  // The model matches every segment, and the client's critical path crosses to the server.
  std::string err;
  auto th = RunCli("threads " + r.dir + " --format json --limit 1", &err);
  ASSERT_EQ(th.exit_code, 0) << err;
  auto counters = nlohmann::json::parse(th.out)["counters"];
  EXPECT_GE(counters["packets_matched"].get<int64_t>(), static_cast<int64_t>(segments));
  // Which side shows the packet as the waker depends on where the receiving softirq ran
  // (in the sender's send call, or later in ksoftirqd), so the network link is looked for
  // on both ends' paths; the client's path must reach the server either way.
  const int64_t server = std::stoll(r.info.at("server_tid"));
  bool network_link = false, through_server = false;
  for (const std::string& tid : {r.info.at("client_tid"), r.info.at("server_tid")}) {
    auto cp = RunCli("critpath " + r.dir + " --tid " + tid + " --format json", &err);
    ASSERT_EQ(cp.exit_code, 0) << err;
    auto j = nlohmann::json::parse(cp.out);
    for (const auto& l : j["links"]) network_link |= l["kind"] == "network";
    if (tid == r.info.at("client_tid"))
      for (const auto& s : j["segments"]) through_server |= s["tid"] == server;
  }
  EXPECT_TRUE(network_link);
  EXPECT_TRUE(through_server);
}

// A server (Python's http.server, one thread per request) and curl, under the recorder: the
// script writes what it knows of the exchange (port, the handler's tid, curl's pid) to `info`.
constexpr char kHttpExchangeScript[] = R"(
import http.server, json, os, subprocess, sys, threading
tids = []
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_GET(self):
        tids.append(threading.get_native_id())
        body = b'hello\n'
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
curl = subprocess.Popen(['curl', '-sS', '-o', '/dev/null', '-H', 'traceparent: ' + sys.argv[2],
                         'http://127.0.0.1:%d/hello' % port])
curl.wait()
server.shutdown()
server.server_close()
with open(sys.argv[1], 'w') as f:
    json.dump({'port': port, 'server_pid': os.getpid(), 'server_tid': tids[0] if tids else 0,
               'curl_pid': curl.pid, 'curl_exit': curl.returncode}, f)
)";

// The http_message events of a recording, as `causeway events --format jsonl` prints them.
std::vector<nlohmann::json> HttpMessages(const std::string& kernel) {
  std::string err;
  auto r = RunCli("events " + kernel + " --name http_message --format jsonl", &err);
  EXPECT_EQ(r.exit_code, 0) << err;
  std::vector<nlohmann::json> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

struct HttpRun {
  std::string kernel;
  nlohmann::json summary;
  nlohmann::json info;
};

HttpRun RecordHttpExchange(const TempDir& tmp, const std::string& traceparent,
                           const std::string& flags) {
  std::ofstream(tmp.path() + "/exchange.py") << kHttpExchangeScript;
  HttpRun run;
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  auto res = RunCli("record -o " + dir + " --format json " + flags + " -- python3 " + tmp.path() +
                        "/exchange.py " + tmp.path() + "/info.json " + traceparent,
                    &err);
  EXPECT_EQ(res.exit_code, 0) << err;
  run.kernel = dir + "/kernel";
  run.summary = nlohmann::json::parse(res.out, nullptr, false);
  run.info = nlohmann::json::parse(std::ifstream(tmp.path() + "/info.json"), nullptr, false);
  return run;
}

TEST(RecordTest, HttpExchangeBecomesHttpMessagesOnTheRightThreads) {
  SKIP_UNLESS_RECORDING_WORKS();
  for (const char* program : {"python3", "curl"})
    if (!testing::HaveProgram(program)) GTEST_SKIP() << "Skipped: " << program << " missing";
  TempDir tmp;
  const std::string traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  HttpRun run = RecordHttpExchange(tmp, traceparent, "");
  ASSERT_FALSE(run.info.is_discarded()) << "the exchange script did not finish";
  ASSERT_EQ(run.info["curl_exit"], 0);
  ASSERT_TRUE(run.summary["http"]["captured"].get<bool>()) << run.summary.dump();
  EXPECT_GE(run.summary["http"]["messages"].get<int64_t>(), 4);
  const int64_t port = run.info["port"], server_pid = run.info["server_pid"];
  const int64_t server_tid = run.info["server_tid"], curl_pid = run.info["curl_pid"];

  // The exchange's four messages, by who moved them and which way.
  std::map<std::pair<int64_t, int64_t>, std::vector<nlohmann::json>> by_side;  // (pid, direction)
  for (const nlohmann::json& e : HttpMessages(run.kernel)) {
    const nlohmann::json& f = e["fields"];
    if (f["lport"] != port && f["rport"] != port) continue;  // other traffic on the machine
    by_side[{f["pid"].get<int64_t>(), f["direction"].get<int64_t>()}].push_back(e);
  }
  auto one = [&](int64_t pid, int direction) -> nlohmann::json {
    const auto& v = by_side[{pid, direction}];
    EXPECT_EQ(v.size(), 1u) << "pid " << pid << " direction " << direction;
    return v.empty() ? nlohmann::json::object() : v[0];
  };
  const nlohmann::json curl_sent = one(curl_pid, 1), server_received = one(server_pid, 0);
  const nlohmann::json server_sent = one(server_pid, 1), curl_received = one(curl_pid, 0);
  ASSERT_FALSE(curl_sent.empty() || server_received.empty() || server_sent.empty() ||
               curl_received.empty());

  const nlohmann::json& request = server_received["fields"];
  EXPECT_EQ(request["tid"], server_tid) << "the request is read by the handler's thread";
  EXPECT_EQ(request["first_line"], "GET /hello HTTP/1.1");
  EXPECT_EQ(request["traceparent"], traceparent);
  EXPECT_EQ(request["lport"], port);
  EXPECT_EQ(request["family"], 4);
  EXPECT_EQ(request["laddr"], nlohmann::json({127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(request["raddr"], request["laddr"]);
  EXPECT_EQ(request["truncated"], 0);
  EXPECT_EQ(request["captured"], request["size"]) << "a small request is copied whole";

  const nlohmann::json& sent = curl_sent["fields"];
  EXPECT_EQ(sent["tid"], curl_pid);
  EXPECT_EQ(sent["first_line"], "GET /hello HTTP/1.1");
  EXPECT_EQ(sent["traceparent"], traceparent);
  EXPECT_EQ(sent["rport"], port);
  EXPECT_EQ(sent["lport"], request["rport"]) << "both ends name the same connection";
  EXPECT_EQ(sent["size"], request["size"]);
  EXPECT_LE(curl_sent["timestamp"], server_received["timestamp"]);

  const nlohmann::json& response = server_sent["fields"];
  EXPECT_EQ(response["tid"], server_tid);
  EXPECT_EQ(response["first_line"], "HTTP/1.1 200 OK");
  EXPECT_EQ(response["traceparent"], "");
  EXPECT_EQ(response["rport"], request["rport"]);
  const nlohmann::json& answer = curl_received["fields"];
  EXPECT_EQ(answer["tid"], curl_pid);
  EXPECT_EQ(answer["first_line"], "HTTP/1.1 200 OK");
  EXPECT_EQ(answer["lport"], sent["lport"]);
  EXPECT_GE(answer["size"], response["size"]) << "headers, and maybe the body with them";
  EXPECT_LE(server_sent["timestamp"], curl_received["timestamp"]);
  EXPECT_LE(server_received["timestamp"], server_sent["timestamp"]);

  // babeltrace2 reads the same events. (babeltrace2 2.0 may print an empty string field with
  // an earlier event's value, so only the filled fields are compared.)
  auto bt = RunCommand("babeltrace2 " + run.kernel + " | grep http_message");
  ASSERT_EQ(bt.exit_code, 0);
  EXPECT_NE(bt.out.find("tid = " + std::to_string(server_tid) +
                        ", pid = " + std::to_string(server_pid) + ", direction = 0, family = 4"),
            std::string::npos)
      << bt.out;
  EXPECT_NE(bt.out.find("lport = " + std::to_string(port)), std::string::npos);
  EXPECT_NE(bt.out.find("first_line = \"GET /hello HTTP/1.1\", traceparent = \"" + traceparent),
            std::string::npos);
  EXPECT_NE(bt.out.find("first_line = \"HTTP/1.1 200 OK\""), std::string::npos);
}

// Node.js (libuv): the client writes the request with write(), the server reads it with
// read() and answers a chunked response with one writev() (headers in the first buffer), all
// on the one event-loop thread.
constexpr char kNodeExchangeScript[] = R"(
const http = require('http');
const fs = require('fs');
const server = http.createServer((req, res) => {
  res.write('part one;');
  res.end('part two');
});
server.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  const agent = new http.Agent({keepAlive: false});
  http.get({host: '127.0.0.1', port, path: '/chunks', agent,
            headers: {traceparent: process.argv[3]}}, (res) => {
    res.resume();
    res.on('end', () => {
      fs.writeFileSync(process.argv[2], JSON.stringify({port, pid: process.pid}));
      server.close();
    });
  });
});
)";

TEST(RecordTest, NodeEventLoopReadsAndWritesHttpMessages) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!testing::HaveProgram("node")) GTEST_SKIP() << "Skipped: node missing";
  TempDir tmp;
  const std::string traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  std::ofstream(tmp.path() + "/exchange.js") << kNodeExchangeScript;
  std::string err;
  auto res = RunCli("record -o " + tmp.path() + "/rec --format json -- node " + tmp.path() +
                        "/exchange.js " + tmp.path() + "/info.json " + traceparent,
                    &err);
  ASSERT_EQ(res.exit_code, 0) << err;
  const nlohmann::json info =
      nlohmann::json::parse(std::ifstream(tmp.path() + "/info.json"), nullptr, false);
  ASSERT_FALSE(info.is_discarded()) << "the exchange script did not finish";
  const int64_t port = info["port"], pid = info["pid"];
  std::vector<nlohmann::json> mine;
  for (const nlohmann::json& e : HttpMessages(tmp.path() + "/rec/kernel"))
    if (e["fields"]["pid"] == pid) mine.push_back(e["fields"]);
  ASSERT_EQ(mine.size(), 4u);
  // In time order: request written, read; response written, read.
  const int64_t sent_port = mine[0]["lport"];
  const struct {
    int direction;
    const char* first_line;
    int64_t lport;
  } expected[] = {{1, "GET /chunks HTTP/1.1", sent_port},
                  {0, "GET /chunks HTTP/1.1", port},
                  {1, "HTTP/1.1 200 OK", port},
                  {0, "HTTP/1.1 200 OK", sent_port}};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(mine[i].dump());
    EXPECT_EQ(mine[i]["tid"], pid) << "Node's event loop is its main thread";
    EXPECT_EQ(mine[i]["direction"], expected[i].direction);
    EXPECT_EQ(mine[i]["first_line"], expected[i].first_line);
    EXPECT_EQ(mine[i]["lport"], expected[i].lport);
    EXPECT_EQ(mine[i]["rport"], i == 0 || i == 3 ? port : sent_port);
    EXPECT_LE(mine[i]["captured"], mine[i]["size"]);
  }
  EXPECT_EQ(mine[0]["traceparent"], traceparent);
  EXPECT_EQ(mine[1]["traceparent"], traceparent);
  EXPECT_EQ(mine[0]["size"], mine[1]["size"]);
  // writev: the headers' buffer is copied, the body's buffers are not.
  EXPECT_LT(mine[2]["captured"], mine[2]["size"]);
  EXPECT_GE(mine[3]["size"], mine[2]["size"]);
}

TEST(RecordTest, NoHttpRecordsNoHttpMessages) {
  SKIP_UNLESS_RECORDING_WORKS();
  for (const char* program : {"python3", "curl"})
    if (!testing::HaveProgram(program)) GTEST_SKIP() << "Skipped: " << program << " missing";
  TempDir tmp;
  HttpRun run = RecordHttpExchange(tmp, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                                   "--no-http");
  ASSERT_FALSE(run.info.is_discarded());
  EXPECT_FALSE(run.summary["http"]["captured"].get<bool>());
  EXPECT_EQ(run.summary["http"]["messages"], 0);
  EXPECT_TRUE(HttpMessages(run.kernel).empty());
}

#ifdef CAUSEWAY_DEMO
// The demo under causeway record: every service writes its user-space trace beside the
// kernel trace, and its span events carry exactly the ids, operations and times of the spans
// it exported, on the kernel trace's time scale.
TEST(RecordTest, DemoSpanEventsMatchTheExportedSpans) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  auto res = RunCli("record -o " + dir + " --format json -- " + CAUSEWAY_DEMO +
                        " run --requests 20 --rate 40 --burst 4",
                    &err);
  ASSERT_EQ(res.exit_code, 0) << err;

  // Exported spans: <dir>/spans/<service>.otlp.json (the demo's default under a recorder).
  struct Exported {
    std::string trace, name;
    uint64_t parent = 0, start = 0, end = 0;
    int64_t tid = 0;
  };
  std::map<uint64_t, Exported> spans;
  for (const auto& f : fs::directory_iterator(dir + "/spans")) {
    // OTLP JSON Lines: one document per line.
    std::ifstream in(f.path());
    int lines = 0;
    for (std::string line; std::getline(in, line); ++lines) {
      nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << f.path() << " line " << lines + 1;
      for (const auto& sp : doc["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
        Exported x;
        x.trace = sp["traceId"];
        x.name = sp["name"];
        if (sp.contains("parentSpanId"))
          x.parent = std::stoull(sp["parentSpanId"].get<std::string>(), nullptr, 16);
        x.start = std::stoull(sp["startTimeUnixNano"].get<std::string>());
        x.end = std::stoull(sp["endTimeUnixNano"].get<std::string>());
        for (const auto& a : sp["attributes"]) {
          if (a["key"] == "thread.id")
            x.tid = std::stoll(a["value"]["intValue"].get<std::string>());
        }
        spans[std::stoull(sp["spanId"].get<std::string>(), nullptr, 16)] = x;
      }
    }
    EXPECT_GE(lines, 1) << f.path();
  }
  ASSERT_GE(spans.size(), 20u * 4);

  // The kernel trace's time range.
  uint64_t kernel_first = UINT64_MAX, kernel_last = 0;
  for (const Ev& e : testing::ReadAllExpectOk(dir + "/kernel").events) {
    kernel_first = std::min(kernel_first, e.ts);
    kernel_last = std::max(kernel_last, e.ts);
  }

  std::set<uint64_t> started, ended;
  size_t ust_traces = 0;
  for (const auto& t : fs::directory_iterator(dir + "/ust")) {
    ++ust_traces;
    auto reader = ctf::EventReader::Open({t.path().string()});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    size_t events = 0;
    while (const ctf::Event* e = (*reader)->Next()) {
      ASSERT_NE(e->plan, nullptr) << "events lost in " << t.path();
      ++events;
      const std::string name(e->name());
      if (name != "jaeger_ust:start_span" && name != "jaeger_ust:end_span") continue;
      const auto& plan = *e->plan;
      const uint64_t id = e->GetUnsigned(plan.FieldIndex("span_id"));
      auto it = spans.find(id);
      ASSERT_NE(it, spans.end()) << name << " of a span nobody exported: " << id;
      const Exported& x = it->second;
      char trace[33];
      std::snprintf(
          trace, sizeof(trace), "%016llx%016llx",
          static_cast<unsigned long long>(e->GetUnsigned(plan.FieldIndex("trace_id_high"))),
          static_cast<unsigned long long>(e->GetUnsigned(plan.FieldIndex("trace_id_low"))));
      EXPECT_EQ(x.trace, trace);
      EXPECT_EQ(e->GetUnsigned(plan.FieldIndex("parent_span_id")), x.parent);
      EXPECT_EQ(e->GetString(plan.FieldIndex("op_name")), x.name);
      const bool start = name == "jaeger_ust:start_span";
      EXPECT_EQ(e->timestamp, start ? x.start : x.end) << name << " " << x.name;
      if (!start) {
        EXPECT_EQ(e->GetSigned(plan.FieldIndex("tid")), x.tid);
      }
      // One time scale: the user-space events fall inside the kernel recording.
      EXPECT_GE(e->timestamp, kernel_first);
      EXPECT_LE(e->timestamp, kernel_last);
      (start ? started : ended).insert(id);
    }
    EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    ExpectBabeltraceReads(t.path().string(), events);
  }
  EXPECT_GE(ust_traces, 5u);  // load generator and four services
  EXPECT_EQ(started.size(), spans.size());
  EXPECT_EQ(ended.size(), spans.size());
}
// Flight recorder: a span slower than --trigger-latency makes the client ask the recorder
// for a snapshot; nothing else is written.
TEST(RecordTest, ASlowDemoSpanTriggersASnapshot) {
  SKIP_UNLESS_RECORDING_WORKS();
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  // The lock fault serializes the customer's 10 ms queries: bursts of 4 make spans of 30 ms+.
  auto res = RunCli("record -o " + dir + " --snapshot --trigger-latency 25ms --format json -- " +
                        CAUSEWAY_DEMO +
                        " run --requests 24 --rate 40 --burst 4 --fault lock --format json",
                    &err);
  ASSERT_EQ(res.exit_code, 0) << err;
  nlohmann::json sum;
  std::istringstream in(res.out);
  while (in >> std::ws && in.peek() != EOF) {
    nlohmann::json j;
    in >> j;
    if (j.contains("snapshots")) sum = j;
  }
  ASSERT_TRUE(sum.contains("snapshots")) << res.out;
  ASSERT_GE(sum["snapshots"].size(), 1u) << res.out << err;
  EXPECT_FALSE(fs::exists(dir + "/kernel")) << "snapshot mode writes only when triggered";
  const std::string first = sum["snapshots"][0];
  EXPECT_EQ(first, dir + "/snapshot-1/kernel");
  size_t switches = 0;
  for (const Ev& e : testing::ReadAllExpectOk(first).events) switches += e.name == "sched_switch";
  EXPECT_GT(switches, 0u);
}
#endif  // CAUSEWAY_DEMO

}  // namespace
}  // namespace causeway
