// The OpenTelemetry test services (tests/otel: Node.js, the official OpenTelemetry JS SDK,
// no Causeway code) recorded on this machine by `causeway record` and explained by
// `causeway requests`: what otel_requests_test.cc checks on a committed recording, live.
// Needs root and BTF (the recorder) and the services' npm packages (scripts/setup.sh);
// elsewhere it skips with the reason.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/otel_checks.h"
#include "support/recording.h"
#include "support/test_util.h"

namespace causeway {
namespace {

using testing::RunCli;
using testing::TempDir;

const std::string kOtelDir = std::string(CAUSEWAY_TEST_DATA) + "/../otel";

TEST(OtelLiveTest, UnmodifiedOpenTelemetryServicesAreExplained) {
  SKIP_UNLESS_RECORDING_WORKS();
  if (!std::filesystem::exists(kOtelDir + "/node_modules/@opentelemetry/sdk-node"))
    GTEST_SKIP() << "Skipped: the OpenTelemetry packages are not installed (scripts/setup.sh "
                    "runs npm ci in tests/otel)";
  TempDir tmp;
  const std::string dir = tmp.path() + "/rec";
  std::string err;
  const auto rec =
      RunCli("record -o " + dir + " -- " + kOtelDir + "/run.sh " + dir + "/spans", &err);
  ASSERT_EQ(rec.exit_code, 0) << err;
  // The recorder's summary counts the HTTP messages it captured, none dropped.
  const std::string summary = rec.out + err;
  EXPECT_NE(summary.find("HTTP messages: "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" 0 dropped"), std::string::npos) << summary;
  // Live, on two shared cores: a burst's requests may reach the backend's lock one by one.
  testing::OtelExpectations want;
  want.lock_blocked_at_least = 5;
  want.lock_blocked_on_backend_at_least = 3;
  want.cpu_running_on_backend_at_least = 5;
  want.sleep_timer_share = 0.8;
  testing::ExpectOtelDiagnoses(dir, want);
}

}  // namespace
}  // namespace causeway
