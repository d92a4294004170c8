// `causeway requests` on a committed recording of the OpenTelemetry test services
// (tests/data/recordings/otel.tar.zst: tests/otel's Node.js frontend and backend with the
// official OpenTelemetry JS SDK and no Causeway code, recorded by `causeway record`): the
// same checks as otel_live_test.cc, on any machine (no root, no BTF, no timing luck), and
// strictly.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/otel_checks.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::CliJson;
using testing::RunCommand;
using testing::TempDir;

std::string Unpack(const TempDir& tmp) {
  const std::string archive = std::string(CAUSEWAY_TEST_DATA) + "/recordings/otel.tar.zst";
  const auto r = RunCommand("tar --zstd -xf '" + archive + "' -C '" + tmp.path() + "'");
  EXPECT_EQ(r.exit_code, 0) << "cannot unpack " << archive << " (tar and zstd installed?)";
  return tmp.path() + "/otel";
}

TEST(OtelRecordedTest, UnmodifiedOpenTelemetryServicesAreExplained) {
  TempDir tmp;
  testing::OtelExpectations want;
  // In one /api/cpu request of this recording the frontend's loop, waiting for the backend,
  // woke up for a timer of its own 1 ms before the answer came: a thread-centric critical
  // path takes that wake-up as the end of the wait, and the request reads "timer" (the
  // limit written in src/requests/README.md).
  want.cpu_running_on_backend_at_least = 9;
  testing::ExpectOtelDiagnoses(Unpack(tmp), want);
}

TEST(OtelRecordedTest, FsyncsOnTheBackendsThreadPoolAreDisk) {
  // /api/disk writes 1 MiB and fsyncs it, 8 times, through fs.promises: libuv's thread pool
  // does the I/O while both event loops wait.
  TempDir tmp;
  const nlohmann::json j = CliJson("requests " + Unpack(tmp) + " --format json --limit -1");
  int disk = 0, count = 0;
  for (const nlohmann::json& r : j["requests"]) {
    if (r["operation"] != "GET /api/disk") continue;
    ++count;
    disk += r["dominant_cause"] == "disk";
  }
  EXPECT_EQ(count, 10);
  EXPECT_GE(disk, 8) << j["requests"].dump(1);
}

TEST(OtelRecordedTest, TheHttpMessagesAreInTheKernelTrace) {
  TempDir tmp;
  const std::string dir = Unpack(tmp);
  std::string err;
  const auto r =
      testing::RunCli("events " + dir + "/kernel --name http_message --format jsonl", &err);
  ASSERT_EQ(r.exit_code, 0) << err;
  size_t requests_with_context = 0, lines = 0;
  for (size_t at = 0; at < r.out.size();) {
    const size_t nl = r.out.find('\n', at);
    const nlohmann::json e = nlohmann::json::parse(r.out.substr(at, nl - at));
    at = nl == std::string::npos ? r.out.size() : nl + 1;
    ++lines;
    const std::string tp = e["fields"].value("traceparent", "");
    requests_with_context += !tp.empty();
  }
  // Every frontend-to-backend request, seen sent and received: 2 x 80.
  EXPECT_EQ(requests_with_context, 160u) << r.out.substr(0, 2000);
  EXPECT_GE(lines, 4u * 80u);
}

}  // namespace
}  // namespace causeway
