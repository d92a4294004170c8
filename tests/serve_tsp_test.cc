// `causeway serve` through the real Trace Server Protocol client, tsp-typescript-client from
// npm (tests/tsp/check_tsp.js), on a committed demo recording: what a Trace Compass user's
// viewer would get must be the analysis the CLI prints.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/serve_process.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string WhyNoTspClient() {
  if (!testing::HaveProgram("node")) return "node is not installed";
  if (!fs::exists(std::string(CAUSEWAY_SOURCE_DIR) +
                  "/tests/tsp/node_modules/tsp-typescript-client"))
    return "tsp-typescript-client is not installed (npm ci --prefix tests/tsp)";
  return "";
}

TEST(ServeTspTest, TspClientSeesTheRecordingsAnalysis) {
  if (const std::string why = WhyNoTspClient(); !why.empty()) {
    if (const char* ci = std::getenv("CI"); ci && std::string(ci) == "true")
      FAIL() << "CI must run the TSP client test: " << why << " (scripts/setup.sh installs it)";
    GTEST_SKIP() << "Skipped: " << why;
  }
  testing::TempDir tmp;
  const std::string archive = std::string(CAUSEWAY_TEST_DATA) + "/recordings/demo-lock.tar.zst";
  ASSERT_EQ(
      testing::RunCommand("tar --zstd -xf '" + archive + "' -C '" + tmp.path() + "'").exit_code, 0);
  const std::string dir = tmp.path() + "/lock";

  std::string err;
  const auto cli = testing::RunCli("requests " + dir + " --format json --limit -1", &err);
  ASSERT_EQ(cli.exit_code, 0) << err;
  const json requests = json::parse(cli.out)["requests"];
  ASSERT_GE(requests.size(), 2u);

  testing::ServeProcess serve({dir, "--port", "0"});
  ASSERT_TRUE(serve.started()) << serve.output();
  EXPECT_EQ(serve.host(), "127.0.0.1");
  const auto r = testing::RunCommand("node " + std::string(CAUSEWAY_SOURCE_DIR) +
                                     "/tests/tsp/check_tsp.js " + serve.base() + "/tsp/api " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json j = json::parse(r.out.substr(r.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  EXPECT_EQ(j["health"], "UP");

  // The experiment: the trace opened again through the API is the one analysed at start.
  EXPECT_EQ(j["experiment"]["traces"], 1);
  EXPECT_GT(j["experiment"]["nbEvents"].get<int64_t>(), 1000);
  for (const char* o : {"causeway.threads:TIME_GRAPH", "causeway.critical_path:TIME_GRAPH",
                        "causeway.cpu_usage:TREE_TIME_XY", "causeway.requests:DATA_TREE",
                        "causeway.thread_times:DATA_TREE", "causeway.events:TABLE"})
    EXPECT_NE(std::find(j["outputs"].begin(), j["outputs"].end(), o), j["outputs"].end()) << o;

  // Threads: every thread a row; at 200 samples no row gets more than about two states a
  // sample, and the rows' states are in order; zoomed in, they stay in the view.
  const json& t = j["threads"];
  EXPECT_GT(t["threads"].get<int>(), 50);
  EXPECT_EQ(t["rows"], t["threads"]);
  EXPECT_LE(t["maxStatesPerRow"].get<int>(), 2 * t["nbTimes"].get<int>() + 2);
  EXPECT_GT(t["merged"].get<int>(), 0);  // edges shorter than a step were merged
  EXPECT_TRUE(t["ordered"].get<bool>());
  EXPECT_TRUE(t["zoomStatesInRange"].get<bool>());
  EXPECT_GT(t["arrows"].get<int>(), 10);
  EXPECT_TRUE(t["arrowsBetweenKnownRows"].get<bool>());
  EXPECT_NE(std::find(t["arrowKinds"].begin(), t["arrowKinds"].end(), "WAKEUP"),
            t["arrowKinds"].end());

  // Requests: slowest first, the slowest the CLI's.
  const json& slowest = requests[0];
  EXPECT_EQ(j["requests"]["count"].get<size_t>(), requests.size());
  EXPECT_TRUE(j["requests"]["sorted"].get<bool>());
  EXPECT_EQ(j["requests"]["slowestTrace"], slowest["trace_id"]);
  EXPECT_EQ(j["requests"]["slowestLatency"], std::to_string(slowest["latency_ns"].get<int64_t>()));
  EXPECT_EQ(j["requests"]["slowestCause"], slowest["dominant_cause"]);

  // Its critical path: the request row covers the whole latency, with arrows where it was
  // blocked by another request (the demo's lock fault).
  const json& cp = j["critpath"];
  EXPECT_EQ(cp["latency"], std::to_string(slowest["latency_ns"].get<int64_t>()));
  EXPECT_EQ(cp["requestRowCovered"], cp["latency"]);
  EXPECT_GE(cp["rows"].get<int>(), 3);
  EXPECT_GE(cp["blockedArrows"].get<int>(), 1);
  EXPECT_TRUE(cp["byCause"].contains("BLOCKED_BY_REQUEST")) << cp.dump();

  // CPU usage: a series per CPU, 100 points of 0-100 %, some busy.
  const json& xy = j["xy"];
  EXPECT_GE(xy["cpus"].get<int>(), 1);
  EXPECT_EQ(xy["series"], xy["cpus"]);
  for (const json& n : xy["points"]) EXPECT_EQ(n, 100);
  EXPECT_GE(xy["min"].get<double>(), 0.0);
  EXPECT_LE(xy["max"].get<double>(), 100.0);
  EXPECT_GT(xy["max"].get<double>(), 1.0);

  // Events: two pages of 50 lines, indexes 0..99, times in order; the table's size is the
  // experiment's event count.
  const json& table = j["table"];
  EXPECT_EQ(table["lines"], 100);
  EXPECT_TRUE(table["indexes"].get<bool>());
  EXPECT_TRUE(table["timesOrdered"].get<bool>());
  EXPECT_EQ(table["size"], j["experiment"]["nbEvents"]);
  EXPECT_EQ(table["columns"].size(), 5u);

  EXPECT_EQ(serve.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace causeway
