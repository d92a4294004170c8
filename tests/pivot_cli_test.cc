// Pivot Tracing end to end: a real nats-server, the real `causeway pivot` command and the real
// demo (five processes per run, each with its agent). The queries' totals must equal what the
// load generator counted on its own side, exactly.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pivot/nats_test_server.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using nlohmann::json;
using testing::RunCommand;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `causeway pivot` in the background, stopped with Ctrl-C (SIGINT) as a user would.
class PivotCommand {
 public:
  PivotCommand(const std::string& dir, const std::string& name, const std::string& nats,
               const std::string& query)
      : out_(dir + "/" + name + ".out"), err_(dir + "/" + name + ".err") {
    const std::string cmd = std::string("exec ") + CAUSEWAY_CLI + " pivot " + Quote(query) +
                            " --nats " + nats + " --interval 200 --format jsonl >" + out_ + " 2>" +
                            err_;
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      causeway::testing::EndWithParent(parent, SIGKILL);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
  }
  ~PivotCommand() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // Waits for "installed on N agent(s)" on stderr.
  bool WaitInstalled() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ReadFile(err_).find("installed on") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // Ctrl-C; returns the exit code and the last JSON line (type final).
  int Stop(json* final) {
    kill(pid_, SIGINT);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    std::string last;
    for (const std::string& line : testing::SplitLines(ReadFile(out_))) {
      if (!line.empty()) last = line;
    }
    *final = json::parse(last, nullptr, false);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err() const { return ReadFile(err_); }

 private:
  std::string out_, err_;
  pid_t pid_ = -1;
};

// One demo run as host `host`: its JSON summary.
json RunDemo(const std::string& nats, const std::string& host, int requests,
             const std::string& clients) {
  const std::string cmd = "CAUSEWAY_HOST=" + host + " " + CAUSEWAY_DEMO +
                          " run --tracing none --rate 40 --burst 2 --duration 60 --requests " +
                          std::to_string(requests) + " --clients " + clients + " --pivot " + nats +
                          " --format json";
  const auto r = RunCommand(cmd);
  EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.out;
  return json::parse(r.out, nullptr, false);
}

TEST(PivotCli, LiveQueriesAcrossProcessesMatchWhatTheLoadCounted) {
  pivot::testing::NatsTestServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  TempDir dir;
  // Q1's shape: a count per host (and service) at one tracepoint.
  PivotCommand per_host(dir.path(), "q1", nats.url(),
                        "From r In demo:request GroupBy r.host, r.service "
                        "Select r.host, r.service, COUNT");
  // Q2's shape: a happened-before join. The frontend's answer bytes, grouped by the load's
  // client whose request caused them: that client tuple crosses a process in the baggage.
  PivotCommand by_client(dir.path(), "q2", nats.url(),
                         "From b In demo:bytes_written\n"
                         "Join c In First(demo:client_request) On c -> b\n"
                         "Where b.service == \"frontend\"\n"
                         "GroupBy c.client Select c.client, SUM(b.bytes), COUNT");
  ASSERT_TRUE(per_host.WaitInstalled()) << per_host.err();
  ASSERT_TRUE(by_client.WaitInstalled()) << by_client.err();

  // Two "hosts" (CAUSEWAY_HOST), one after the other, with different clients.
  const json a = RunDemo(nats.url(), "host-a", 24, "web,mobile");
  const json b = RunDemo(nats.url(), "host-b", 15, "web,batch");
  ASSERT_TRUE(a.is_object() && b.is_object());
  ASSERT_EQ(a["errors"], 0);
  ASSERT_EQ(b["errors"], 0);

  json q1, q2;
  ASSERT_EQ(per_host.Stop(&q1), 0) << per_host.err();
  ASSERT_EQ(by_client.Stop(&q2), 0) << by_client.err();
  ASSERT_TRUE(q1.is_object()) << per_host.err();
  ASSERT_TRUE(q2.is_object()) << by_client.err();
  EXPECT_EQ(q1["type"], "final");
  EXPECT_TRUE(q1["missing_agents"].empty()) << q1.dump();
  EXPECT_TRUE(q2["missing_agents"].empty()) << q2.dump();
  EXPECT_EQ(q1["agents"].size(), 10u) << q1.dump();  // 2 runs x (load + 4 services)

  // Per host: each /dispatch is one request at frontend, customer and driver, and one per
  // considered driver (5) at route.
  std::map<std::pair<std::string, std::string>, int64_t> got1, want1;
  for (const json& row : q1["rows"]) got1[{row["r.host"], row["r.service"]}] = row["count"];
  for (const auto& [host, run] : {std::pair{"host-a", &a}, std::pair{"host-b", &b}}) {
    const int64_t n = (*run)["count"];
    want1[{host, "frontend"}] = n;
    want1[{host, "customer"}] = n;
    want1[{host, "driver"}] = n;
    want1[{host, "route"}] = 5 * n;
  }
  EXPECT_EQ(got1, want1) << q1.dump();

  // Per client: the answer bytes the load read, and the requests.
  std::map<std::string, std::pair<int64_t, int64_t>> got2, want2;
  for (const json& row : q2["rows"]) got2[row["c.client"]] = {row["sum_bytes"], row["count"]};
  for (const json* run : {&a, &b}) {
    for (const auto& [client, c] : (*run)["clients"].items()) {
      want2[client].first += c["bytes"].get<int64_t>();
      want2[client].second += c["ok"].get<int64_t>();
    }
  }
  EXPECT_EQ(want2.size(), 3u);  // web, mobile, batch
  EXPECT_EQ(got2, want2) << q2.dump();
  EXPECT_EQ(q2["stats"]["type_errors"], 0);
  EXPECT_EQ(q2["stats"]["dropped_tuples"], 0);
}

// With the demo's five agents running, `causeway pivot` says the query is installed on
// five: it said one, the first to acknowledge.
TEST(PivotCli, InstalledCountsEveryAgentThatAcknowledged) {
  pivot::testing::NatsTestServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  TempDir dir;
  const std::string demo = std::string("exec ") + CAUSEWAY_DEMO +
                           " run --tracing none --rate 10 --burst 1 --duration 120 --requests "
                           "1200 --pivot " +
                           nats.url() + " --format json >" + dir.path() + "/demo.out 2>&1";
  const pid_t parent = getpid();
  const pid_t demo_pid = fork();
  if (demo_pid == 0) {
    causeway::testing::EndWithParent(parent, SIGTERM);
    execl("/bin/sh", "sh", "-c", demo.c_str(), nullptr);
    _exit(127);
  }
  // Until every agent runs (a query of one interval lists the agents that answered).
  const std::string query = "From r In demo:request GroupBy r.service Select r.service, COUNT";
  size_t agents = 0;
  for (int attempt = 0; attempt < 30 && agents < 5; ++attempt) {
    std::string err;
    const auto r = testing::RunCli("pivot " + Quote(query) + " --nats " + nats.url() +
                                       " --interval 200 --duration 0.5 --format jsonl",
                                   &err);
    std::string last;
    for (const std::string& line : testing::SplitLines(r.out))
      if (!line.empty()) last = line;
    const json final = json::parse(last, nullptr, false);
    if (final.is_object()) agents = final["agents"].size();
  }
  ASSERT_EQ(agents, 5u) << "the demo's agents did not all start";
  PivotCommand pivot(dir.path(), "q", nats.url(), query);
  ASSERT_TRUE(pivot.WaitInstalled()) << pivot.err();
  EXPECT_NE(pivot.err().find("installed on 5 agent(s)"), std::string::npos) << pivot.err();
  json final;
  EXPECT_EQ(pivot.Stop(&final), 0) << pivot.err();
  kill(demo_pid, SIGINT);
  int status = 0;
  waitpid(demo_pid, &status, 0);
}

TEST(PivotCli, ExplainShowsTheAdviceOfAJoin) {
  std::string err;
  const auto r = testing::RunCli(
      "pivot --explain 'From b In demo:bytes_written Join c In First(demo:client_request) "
      "On c -> b GroupBy c.client Select c.client, SUM(b.bytes)'",
      &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  // The client tracepoint packs its first tuple (only the field used: projection); the bytes
  // tracepoint unpacks it and emits the grouped sum.
  EXPECT_NE(r.out.find("at demo:client_request:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PACK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FIRST"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UNPACK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("EMIT"), std::string::npos) << r.out;
}

TEST(PivotCli, BadQueriesAndUnreachableServersAreClearErrors) {
  std::string err;
  auto r = testing::RunCli("pivot 'From x In demo:request\nGroupBy x.service Select'", &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("Cannot parse query"), std::string::npos) << err;
  EXPECT_NE(err.find("line 2, column"), std::string::npos) << err;
  r = testing::RunCli("pivot 'From x In demo:request Select COUNT' --nats nats://127.0.0.1:1",
                      &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("Cannot connect to NATS at nats://127.0.0.1:1"), std::string::npos) << err;
  r = testing::RunCli("pivot 'From x In demo:request Select COUNT' --interval 1", &err);
  EXPECT_EQ(r.exit_code, 2) << err;
}

}  // namespace
}  // namespace causeway
