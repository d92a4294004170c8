// The request diagnoses on the demo recordings committed as test data (tests/data/recordings,
// one per fault, made by `causeway record`): what requests_cli_test.cc checks on recordings
// it makes live, here on fixed ones, so on any machine (no root, no BTF, no timing luck), and
// more strictly: each injected fault must be the dominant cause of the slowest requests.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/request_checks.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using nlohmann::json;
using testing::ExpectConsistent;
using testing::RunCli;
using testing::ServiceOf;
using testing::SlowestWithCause;
using testing::TempDir;
using testing::UnpackDemoRecording;

json Requests(const std::string& dir) {
  std::string err;
  const auto res = RunCli("requests " + dir + " --format json --limit -1", &err);
  EXPECT_EQ(res.exit_code, 0) << err;
  json j = json::parse(res.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << res.out;
  return j;
}

json RequestReport(const std::string& dir, const std::string& id) {
  std::string err;
  const auto res = RunCli("request " + dir + " " + id + " --format json", &err);
  EXPECT_EQ(res.exit_code, 0) << err;
  json j = json::parse(res.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << res.out;
  return j;
}

// The report's pieces tile the request's span; returns how many ran on `service`'s threads.
int PiecesOnService(const json& report, const std::string& service) {
  int64_t at = report["start"].get<int64_t>();
  int on = 0;
  for (const json& p : report["path"]) {
    EXPECT_EQ(p["start"].get<int64_t>(), at);
    at = p["end"].get<int64_t>();
    on += ServiceOf(p["thread"]) == service;
  }
  EXPECT_EQ(at, report["end"].get<int64_t>());
  return on;
}

TEST(RequestsRecordedTest, LockContentionIsBlockedByAnotherRequestAndTheLockHolder) {
  TempDir tmp;
  const std::string dir = UnpackDemoRecording(tmp, "lock");
  const json j = Requests(dir);
  ExpectConsistent(j, 12);
  // Bursts of three behind one lock: the last two of each burst wait for the others' queries.
  EXPECT_GE(SlowestWithCause(j, 5, "blocked_by_request"), 4) << j["requests"].dump(1);
  const json& slowest = j["requests"][0];
  EXPECT_EQ(slowest["dominant_cause"], "blocked_by_request");
  ASSERT_FALSE(slowest["blocked_by_requests"].empty());
  // Named: the request in the way, and the lock holder's thread in the customer service.
  const std::string diagnosis = slowest["diagnosis"];
  EXPECT_NE(diagnosis.find("blocked by request"), std::string::npos) << diagnosis;
  EXPECT_NE(diagnosis.find("(customer)"), std::string::npos) << diagnosis;
  const json report = RequestReport(dir, slowest["trace_id"]);
  PiecesOnService(report, "customer");
  bool other = false;
  for (const json& p : report["path"]) {
    if (!p.contains("request")) continue;
    other = true;
    EXPECT_NE(p["request"], report["trace_id"]);  // never blocked by itself
  }
  EXPECT_TRUE(other);
}

TEST(RequestsRecordedTest, CpuQuotaIsPreemptedOnTheThrottledService) {
  TempDir tmp;
  const std::string dir = UnpackDemoRecording(tmp, "cpu");
  const json j = Requests(dir);
  ExpectConsistent(j, 8);
  EXPECT_EQ(SlowestWithCause(j, 8, "preempted"), 8) << j["requests"].dump(1);
  const std::string diagnosis = j["requests"][0]["diagnosis"];
  EXPECT_NE(diagnosis.find("(route)"), std::string::npos) << diagnosis;
  const json report = RequestReport(dir, j["requests"][0]["trace_id"]);
  EXPECT_GT(PiecesOnService(report, "route"), 0);
}

TEST(RequestsRecordedTest, FsyncIsDisk) {
  TempDir tmp;
  const std::string dir = UnpackDemoRecording(tmp, "disk");
  const json j = Requests(dir);
  ExpectConsistent(j, 8);
  EXPECT_EQ(SlowestWithCause(j, 3, "disk"), 3) << j["requests"].dump(1);
  for (int i = 0; i < 3; ++i) {
    const std::string diagnosis = j["requests"][i]["diagnosis"];
    EXPECT_EQ(diagnosis.rfind("disk I/O", 0), 0u) << diagnosis;
  }
}

TEST(RequestsRecordedTest, RateLimitedPeerIsNetworkAndThePathReachesThePeer) {
  TempDir tmp;
  const std::string dir = UnpackDemoRecording(tmp, "net");
  const json j = Requests(dir);
  ExpectConsistent(j, 8);
  EXPECT_EQ(SlowestWithCause(j, 3, "network"), 3) << j["requests"].dump(1);
  // Both sides are traced: the route service's replies through the rate-limited link are
  // matched to the frontend's waits, and the path goes on at route's threads.
  for (int i = 0; i < 3; ++i) {
    const json report = RequestReport(dir, j["requests"][i]["trace_id"]);
    EXPECT_GT(PiecesOnService(report, "route"), 0) << report["diagnosis"];
    int replies = 0;
    for (const json& l : report["links"])
      replies += l["kind"] == "network" && ServiceOf(l["from"]) == "route" &&
                 ServiceOf(l["to"]) == "frontend";
    EXPECT_GT(replies, 0) << report["links"].dump(1);
  }
}

}  // namespace
}  // namespace causeway
