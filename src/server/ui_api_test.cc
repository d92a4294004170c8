// The UI's JSON on a committed demo recording (tests/data/recordings/demo-lock): the list
// slowest first and filtered, one request's view whose pieces tile the request at full
// resolution and shrink with the pixels, arrows between rows it has, thread lanes bounded
// by the pixels.
#include "server/ui_api.h"

#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "support/test_util.h"

namespace causeway::server {
namespace {

using nlohmann::json;

class UiApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new testing::TempDir();
    const std::string archive = std::string(CAUSEWAY_TEST_DATA) + "/recordings/demo-lock.tar.zst";
    const auto r =
        testing::RunCommand("tar --zstd -xf '" + archive + "' -C '" + tmp_->path() + "'");
    ASSERT_EQ(r.exit_code, 0) << "cannot unpack " << archive;
    auto a = analysis::AnalyzeRecording({tmp_->path() + "/lock"}, {});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    analysis_ = new analysis::RecordingAnalysis(std::move(*a));
  }
  static void TearDownTestSuite() {
    delete analysis_;
    delete tmp_;
  }
  static testing::TempDir* tmp_;
  static analysis::RecordingAnalysis* analysis_;
};
testing::TempDir* UiApiTest::tmp_ = nullptr;
analysis::RecordingAnalysis* UiApiTest::analysis_ = nullptr;

TEST_F(UiApiTest, ListsSlowestFirstAndFilters) {
  ASSERT_NE(analysis_, nullptr);
  const json all = UiRequestsJson(*analysis_, {});
  ASSERT_EQ(all["total"], 12);
  ASSERT_EQ(all["requests"].size(), 12u);
  for (size_t i = 1; i < all["requests"].size(); ++i)
    EXPECT_GE(all["requests"][i - 1]["latency"].get<int64_t>(),
              all["requests"][i]["latency"].get<int64_t>());
  EXPECT_EQ(all["requests"][0]["dominant_cause"], "blocked_by_request");
  ASSERT_FALSE(all["operations"].empty());

  const json blocked = UiRequestsJson(*analysis_, {.cause = "blocked_by_request"});
  EXPECT_GE(blocked["matched"].get<int>(), 4);
  for (const json& r : blocked["requests"]) EXPECT_EQ(r["dominant_cause"], "blocked_by_request");
  const std::string op = all["requests"][0]["service"].get<std::string>() + " " +
                         all["requests"][0]["operation"].get<std::string>();
  const json by_op = UiRequestsJson(*analysis_, {.operation = op, .limit = 2});
  EXPECT_LE(by_op["requests"].size(), 2u);
  for (const json& r : by_op["requests"])
    EXPECT_EQ(r["service"].get<std::string>() + " " + r["operation"].get<std::string>(), op);
  EXPECT_EQ(UiRequestsJson(*analysis_, {.cause = "disk"})["matched"], 0);
}

TEST_F(UiApiTest, RequestPiecesTileTheRequestAtFullResolutionAndMergeBelowAPixel) {
  ASSERT_NE(analysis_, nullptr);
  const json list = UiRequestsJson(*analysis_, {});
  const std::string id = list["requests"][0]["id"];
  const int64_t start = list["requests"][0]["start"], end = list["requests"][0]["end"];
  // One pixel per 100 ns over the request: every piece of the path longer than that.
  const json fine = *UiRequestJson(*analysis_, id, {start, end, 10000});
  std::set<std::string> rows;
  for (const json& row : fine["rows"]) rows.insert(row["key"].get<std::string>());
  EXPECT_TRUE(rows.count("r:" + id));
  std::map<std::string, int64_t> by_cause;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const json& p : fine["pieces"]) {
    EXPECT_TRUE(rows.count(p["row"].get<std::string>())) << p.dump();
    EXPECT_GE(p["start"].get<int64_t>(), start);
    EXPECT_LE(p["end"].get<int64_t>(), end);
    spans.push_back({p["start"], p["end"]});
    by_cause[p["cause"]] += p["end"].get<int64_t>() - p["start"].get<int64_t>();
  }
  // The path covers the request without a hole (pieces merged across rows' gaps narrower
  // than a pixel may overlap).
  std::sort(spans.begin(), spans.end());
  int64_t reached = start;
  for (const auto& [s, e] : spans) {
    EXPECT_LE(s, reached);
    reached = std::max(reached, e);
  }
  EXPECT_EQ(reached, end);
  EXPECT_GT(by_cause["blocked_by_request"], 0);
  EXPECT_EQ(fine["pie"]["blocked_by_request"].is_number(), true);
  EXPECT_FALSE(fine["blocked_by"].empty());
  bool blocked_arrow = false;
  for (const json& x : fine["arrows"]) {
    EXPECT_TRUE(rows.count(x["from"]["row"].get<std::string>())) << x.dump();
    EXPECT_TRUE(rows.count(x["to"]["row"].get<std::string>())) << x.dump();
    blocked_arrow |= x["kind"] == "blocked_by_request";
  }
  EXPECT_TRUE(blocked_arrow);
  EXPECT_TRUE(fine["report"].contains("by_cause")) << fine["report"].dump();
  EXPECT_FALSE(fine["report"].contains("path"));

  // Ten pixels: at most a few pieces per row, however many the path has.
  const json coarse = *UiRequestJson(*analysis_, id, {start, end, 10});
  std::map<std::string, int> per_row;
  for (const json& p : coarse["pieces"]) ++per_row[p["row"]];
  for (const auto& [row, n] : per_row) EXPECT_LE(n, 2 * 10 + 1) << row;
  EXPECT_LE(coarse["pieces"].size(), fine["pieces"].size());
  std::set<std::tuple<std::string, std::string, std::string, int64_t>> columns;
  for (const json& x : coarse["arrows"])
    EXPECT_TRUE(columns
                    .insert({x["kind"], x["from"]["row"], x["to"]["row"],
                             (x["to"]["t"].get<int64_t>() - start) * 10 / (end - start)})
                    .second);

  EXPECT_FALSE(UiRequestJson(*analysis_, "ffffffffffff", {}).ok());
}

TEST_F(UiApiTest, ThreadLanesAreBoundedByThePixels) {
  ASSERT_NE(analysis_, nullptr);
  const json list = UiRequestsJson(*analysis_, {});
  const json view = *UiRequestJson(*analysis_, list["requests"][0]["id"].get<std::string>(), {});
  std::vector<graph::WorkerId> workers;
  for (const json& row : view["rows"])
    if (row.contains("worker")) workers.push_back(row["worker"]);
  ASSERT_FALSE(workers.empty());
  // The whole recording in 50 pixels.
  const json lanes = UiThreadsJson(*analysis_, workers, {0, 0, 50});
  ASSERT_EQ(lanes["lanes"].size(), workers.size());
  for (const json& lane : lanes["lanes"]) {
    EXPECT_LE(lane["states"].size(), 2u * 50 + 2) << lane["label"];
    int64_t last = -1;
    for (const json& s : lane["states"]) {
      EXPECT_LT(s["start"].get<int64_t>(), s["end"].get<int64_t>());
      EXPECT_GE(s["start"].get<int64_t>(), last);
      last = s["end"];
    }
  }
}

}  // namespace
}  // namespace causeway::server
