// `causeway requests` / `causeway request` on real recordings of the demo, one per fault:
// the injected fault must be named as the dominant cause of the slow requests (seed 000's
// case studies). Needs root and BTF (the recorder; the cpu and net faults); elsewhere each
// test skips with the reason.

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/recording.h"
#include "support/request_checks.h"
#include "support/test_util.h"

#ifdef CAUSEWAY_DEMO
namespace causeway {
namespace {

using nlohmann::json;
using testing::ExpectConsistent;
using testing::RunCli;
using testing::SlowestWithCause;
using testing::TempDir;

// The demo's faults: the cpu fault needs a cpu cgroup controller.
constexpr testing::RecordingNeeds kDemoFaults{.cpu_cgroup = true};

// Records the demo with `demo_args` and returns `causeway requests --format json`.
json RecordAndAnalyze(const TempDir& tmp, const std::string& demo_args, std::string* dir_out) {
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  auto rec = RunCli("record -o " + dir + " -- " + CAUSEWAY_DEMO + " run " + demo_args, &err);
  EXPECT_EQ(rec.exit_code, 0) << err;
  auto res = RunCli("requests " + dir + " --format json --limit -1", &err);
  EXPECT_EQ(res.exit_code, 0) << err;
  *dir_out = dir;
  json j = json::parse(res.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << res.out;
  return j;
}

TEST(RequestsCliTest, LockContentionIsBlockedByAnotherRequest) {
  SKIP_UNLESS_RECORDING_WORKS(kDemoFaults);
  // 30 ms queries under the lock: contention outweighs the CPU contention of a sanitizer
  // build on two cores, most of the time. But the two cores are shared with the recorder, the
  // demo's other services and, on a shared VM, its neighbours: one local run found the slowest
  // request preempted 74 ms on a customer thread, longer than it waited for the lock, and
  // rightly labelled "preempted". Such a recording says nothing about the lock diagnosis: a
  // starved request also pushes a second-in-burst request into the five slowest, whose wait
  // for the lock (one 30 ms query) and its own query (30 ms, "timer") are a tie (seen once).
  // So when one of the five slowest was preempted and the check fails, the demo is recorded
  // again (at most three recordings, as in FsyncIsDisk); a failure without CPU starvation
  // fails at once.
  std::unique_ptr<TempDir> tmp;
  std::string dir;
  json j;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    tmp = std::make_unique<TempDir>();
    j = RecordAndAnalyze(*tmp, "--requests 12 --rate 10 --burst 3 --db-wait-us 30000 --fault lock",
                         &dir);
    ExpectConsistent(j, 12);
    const int blocked = SlowestWithCause(j, 5, "blocked_by_request");
    const int preempted = SlowestWithCause(j, 5, "preempted");
    const bool slowest_blocked = SlowestWithCause(j, 1, "blocked_by_request") == 1;
    if ((blocked >= 4 && slowest_blocked) || preempted == 0 || attempt == 3) break;
    std::printf(
        "recording %d: %d of the 5 slowest requests (the slowest: %s) were preempted longer "
        "than they waited for the lock (CPU contention); recording again\n",
        attempt, preempted, j["requests"][0]["dominant_cause"].dump().c_str());
  }
  EXPECT_GE(SlowestWithCause(j, 5, "blocked_by_request"), 4) << j["requests"].dump(1);
  const json& slowest = j["requests"][0];
  ASSERT_FALSE(slowest["blocked_by_requests"].empty());
  // Named: the request in the way, and the lock holder's thread in the customer service.
  EXPECT_NE(slowest["diagnosis"].get<std::string>().find("blocked by request"), std::string::npos);
  EXPECT_NE(slowest["diagnosis"].get<std::string>().find("(customer)"), std::string::npos)
      << slowest["diagnosis"];

  // The request's own report: its path, pieces tiling its latency, through other requests.
  std::string err;
  auto one = RunCli("request " + dir + " " + slowest["trace_id"].get<std::string>().substr(0, 12) +
                        " --format json",
                    &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  json r = json::parse(one.out);
  int64_t at = r["start"].get<int64_t>();
  bool other = false;
  for (const json& p : r["path"]) {
    EXPECT_EQ(p["start"].get<int64_t>(), at);
    at = p["end"].get<int64_t>();
    if (p.contains("request")) {
      other = true;
      EXPECT_NE(p["request"], r["trace_id"]);
    }
  }
  EXPECT_EQ(at, r["end"].get<int64_t>());
  EXPECT_TRUE(other);
  // The HTML report holds every request (its rendering is checked in html_report_test.cc).
  auto html = RunCli("requests " + dir + " --format html -o " + tmp->path() + "/r.html", &err);
  ASSERT_EQ(html.exit_code, 0) << err;
  EXPECT_NE(html.out.find("(12 requests)"), std::string::npos) << html.out;
  std::ifstream page(tmp->path() + "/r.html");
  const std::string content((std::istreambuf_iterator<char>(page)),
                            std::istreambuf_iterator<char>());
  EXPECT_NE(content.find(slowest["trace_id"].get<std::string>()), std::string::npos);
  // Chrome Trace Event JSON for Perfetto UI: every span, every path piece, paired flows.
  auto exp = RunCli("export " + dir + " --format chrome -o " + tmp->path() + "/t.json", &err);
  ASSERT_EQ(exp.exit_code, 0) << err;
  std::ifstream chrome_in(tmp->path() + "/t.json");
  const json chrome = json::parse(chrome_in, nullptr, false);
  ASSERT_FALSE(chrome.is_discarded());
  std::map<std::string, int> count;
  std::map<uint64_t, int> flows;
  std::set<std::string> processes;
  for (const json& e : chrome["traceEvents"]) {
    count[e["ph"].get<std::string>() + "/" + e.value("cat", "")]++;
    if (e["ph"] == "s") flows[e["id"].get<uint64_t>()] += 1;
    if (e["ph"] == "f") flows[e["id"].get<uint64_t>()] += 10;
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"]);
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  }
  EXPECT_EQ(count["X/span"], j["counters"]["spans"].get<int>());
  EXPECT_GT(count["X/critical_path"], 12);
  // Every piece on a known thread is also drawn on that thread's track.
  EXPECT_GT(count["X/thread_state"], 0);
  EXPECT_LE(count["X/thread_state"], count["X/critical_path"]);
  EXPECT_GT(flows.size(), 0u);
  for (const auto& [id, v] : flows)
    EXPECT_EQ(v, 11) << "flow " << id << " is not a start/finish pair";
  for (const char* service : {"load", "frontend", "customer", "driver", "route"})
    EXPECT_TRUE(processes.count(service)) << service;
  auto text = RunCli("request " + dir + " " + slowest["span_id"].get<std::string>(), &err);
  ASSERT_EQ(text.exit_code, 0) << err;
  EXPECT_NE(text.out.find("Dominant cause: blocked by request"), std::string::npos) << text.out;
}

TEST(RequestsCliTest, CpuQuotaIsPreempted) {
  SKIP_UNLESS_RECORDING_WORKS(kDemoFaults);
  TempDir tmp;
  std::string dir;
  // Two requests a second, one at a time (as FsyncIsDisk): at 20 a second in bursts of two,
  // under ASan, the 12 requests queued behind route's 5% quota (3.2-3.6 s each) and the
  // slowest were "blocked by request" (whose time was 98% preempted) rather than preempted
  // themselves, in two CI runs in a row.
  // 2 ms of CPU per route (10 ms per request, five routes) is twice route's quota of 5 ms per
  // 100 ms period, so every request waits for the next period whatever the machine's speed:
  // with the default 100 us, the VM in a fast period (the demo's own CPU cheaper) kept most
  // requests within the quota, and only one of the three slowest was preempted (the others:
  // the customer's 10 ms query, "timer").
  json j = RecordAndAnalyze(tmp, "--requests 8 --rate 2 --burst 1 --route-cpu-us 2000 --fault cpu",
                            &dir);
  ExpectConsistent(j, 8);
  EXPECT_GE(SlowestWithCause(j, 3, "preempted"), 2) << j["requests"].dump(1);
  // The recorder saw the quota itself: the waits are named as throttling by route's cgroup,
  // not as run-queue competition.
  int throttled = 0;
  for (size_t i = 0; i < 3 && i < j["requests"].size(); ++i)
    if (j["requests"][i]["dominant_cause"] == "preempted")
      throttled += j["requests"][i]["diagnosis"].get<std::string>().find(
                       "preempted: throttled by cgroup quota (/cw-demo-route)") == 0;
  EXPECT_GE(throttled, 2) << j["requests"].dump(1);
}

TEST(RequestsCliTest, FsyncIsDisk) {
  SKIP_UNLESS_RECORDING_WORKS(kDemoFaults);
  // One request at a time, 256 fsyncs each (see RequestsRecordedTest.FsyncIsDisk, which
  // checks on the committed recording that the disk is the dominant cause). Live, the two
  // cores are shared with the recorder, the demo's other services and whatever else the
  // machine runs: a request that CPU contention preempted longer than it waited for the disk
  // is rightly labelled "preempted" (3 of the 3 slowest, twice, on a machine whose other
  // core was busy), so dominance depends on the load. What holds under any load: every
  // request's critical path goes through the disk, for a real share of its latency.
  TempDir tmp;
  std::string dir;
  json j =
      RecordAndAnalyze(tmp, "--requests 8 --rate 2 --burst 1 --disk-syncs 256 --fault disk", &dir);
  ExpectConsistent(j, 8);
  for (const json& r : j["requests"]) {
    const int64_t disk = r["by_cause"].value("disk", int64_t{0});
    EXPECT_GT(disk, 0) << r.dump(1);
    // 256 fsyncs are at least milliseconds of disk whatever else the request waited for.
    EXPECT_GE(disk, 1'000'000) << r.dump(1);
  }
}

TEST(RequestsCliTest, RateLimitedPeerIsNetworkAndThePathReachesThePeer) {
  SKIP_UNLESS_RECORDING_WORKS(kDemoFaults);
  TempDir tmp;
  std::string dir;
  json j = RecordAndAnalyze(tmp, "--requests 8 --rate 10 --burst 1 --fault net", &dir);
  ExpectConsistent(j, 8);
  EXPECT_GE(SlowestWithCause(j, 3, "network"), 2) << j["requests"].dump(1);
  // The route service's replies reach the frontend through the rate-limited link (route
  // runs in its own namespace): their segments are matched, network links from route.
  std::string err;
  auto one = RunCli(
      "request " + dir + " " + j["requests"][0]["trace_id"].get<std::string>() + " --format json",
      &err);
  ASSERT_EQ(one.exit_code, 0) << err;
  const json request = json::parse(one.out);
  const auto service = testing::ServiceOf;
  bool on_route = false;
  std::string path;  // for the failure messages: where the path went
  for (const json& p : request["path"]) {
    on_route |= service(p["thread"]) == "route";
    path += p.value("cause", "?") + "@" + service(p["thread"]) + " " +
            std::to_string((p["end"].get<int64_t>() - p["start"].get<int64_t>()) / 1000) + "us\n";
  }
  // A reply ends a network wait of a frontend thread (on the path, or off it). A reply sent
  // during a wait on the path: the wait is network time from the send on, and the path goes
  // on at route's thread before it. A reply sent before the wait began (the frontend, short
  // of CPU, still running or preempted while route answered, or a second segment already in
  // flight) leaves network time only: route's work then overlapped the frontend's, off its
  // critical path.
  int replies = 0, followed = 0, sent_before_wait = 0;
  for (const json& l : request["links"]) {
    if (l["kind"] != "network" || service(l["from"]) != "route" || service(l["to"]) != "frontend")
      continue;
    ++replies;
    const int64_t sent = l["from_ts"].get<int64_t>(), woken = l["to_ts"].get<int64_t>();
    for (const json& p : request["path"]) {
      if (p["state"] != "NETWORK" || p["end"].get<int64_t>() != woken) continue;
      const int64_t wait_from = p["start"].get<int64_t>();
      if (wait_from == sent) {
        ++followed;
      } else if (wait_from > sent) {
        ++sent_before_wait;
      } else {
        ADD_FAILURE() << "network time before the reply was sent at " << sent
                      << ", not followed to route:\n"
                      << path;
      }
    }
  }
  EXPECT_GE(replies, 1) << request["links"].dump(1);
  if (followed > 0) {
    EXPECT_TRUE(on_route) << request.value("diagnosis", "") << "\n" << path;
  } else {
    std::printf(
        "none of the %d replies from route was sent while the path waited for it (%d before "
        "the wait): the path is network time only\n",
        replies, sent_before_wait);
  }
}

// A service killed while appending to its span file leaves a last line without its newline:
// the analysis reads the whole lines, runs, and says what was lost (stderr and counters).
TEST(RequestsCliTest, ASpanFileCutShortIsReadUpToTheCutAndReported) {
  SKIP_UNLESS_RECORDING_WORKS(kDemoFaults);
  TempDir tmp;
  std::string dir;
  json j = RecordAndAnalyze(tmp, "--requests 6 --rate 20 --burst 1", &dir);
  ExpectConsistent(j, 6);
  EXPECT_EQ(j["counters"]["span_lines_cut_short"], 0);
  const std::string file = dir + "/spans/route.otlp.json";
  std::string first_line;
  {
    std::ifstream in(file);
    ASSERT_TRUE(std::getline(in, first_line)) << file;
  }
  {
    std::ofstream out(file, std::ios::app);
    out << first_line.substr(0, first_line.size() / 2);  // no newline: cut mid-write
  }
  std::string err;
  auto r = RunCli("requests " + dir + " --format json --limit -1", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(err.find("warning: span file " + file + ": line "), std::string::npos) << err;
  EXPECT_NE(err.find("is cut short"), std::string::npos) << err;
  const json cut = json::parse(r.out);
  EXPECT_EQ(cut["counters"]["span_lines_cut_short"], 1);
  EXPECT_EQ(cut["counters"]["spans"], j["counters"]["spans"]);
  EXPECT_EQ(cut["requests"].size(), j["requests"].size());
}

TEST(RequestsCliTest, ClearErrors) {
  TempDir tmp;
  std::string err;
  // No spans beside a trace.
  auto r =
      RunCli("requests " + std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/many-threads", &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("No spans: give --spans"), std::string::npos) << err;
  // A broken span file.
  const std::string bad = tmp.path() + "/bad.json";
  FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs(R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]})", f);
  std::fclose(f);
  r = RunCli(
      "requests " + std::string(CAUSEWAY_TEST_DATA) + "/traces/lttng/many-threads --spans " + bad,
      &err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(err.find("file=" + bad), std::string::npos) << err;
  EXPECT_NE(err.find("trace id 'xyz' is not hex"), std::string::npos) << err;
  // `request` needs an id after the traces.
  r = RunCli("request " + tmp.path(), &err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(err.find("then the request id"), std::string::npos) << err;
  r = RunCli("requests --format xml x", &err);
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace causeway
#endif  // CAUSEWAY_DEMO
