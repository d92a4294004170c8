// The thread time graph's views, written as text, on a committed demo recording: the bytes
// are those nlohmann's dump() writes for the same model (the TSP client and the UI parse
// either), and the model is what the view asked for.
#include "server/thread_timegraph.h"

#include <cstdint>
#include <map>

#include <gtest/gtest.h>

#include "server/experiments.h"
#include "support/test_util.h"

namespace causeway::server {
namespace {

using nlohmann::json;

class ThreadTimeGraphTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new testing::TempDir();
    data_ = new ExperimentData();
    const std::string dir = testing::UnpackDemoRecording(*tmp_, "lock");
    auto a = analysis::AnalyzeRecording({dir}, {});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    data_->recording = std::move(*a);
    data_->begin = data_->recording.kernel->begin;
    data_->end = data_->recording.kernel->end;
  }
  static void TearDownTestSuite() {
    delete data_;
    delete tmp_;
  }
  static json Range(int64_t start, int64_t end, int samples) {
    return {{"start", start}, {"end", end}, {"nbTimes", samples}};
  }
  static testing::TempDir* tmp_;
  static ExperimentData* data_;
};
testing::TempDir* ThreadTimeGraphTest::tmp_ = nullptr;
ExperimentData* ThreadTimeGraphTest::data_ = nullptr;

TEST_F(ThreadTimeGraphTest, TreeTextIsNlohmannsDumpWithEveryThreadUnderItsProcess) {
  const auto output = MakeThreadTimeGraph();
  auto text = output->TreeText(*data_, json::object());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const json tree = json::parse(*text);
  EXPECT_EQ(*text, tree.dump());
  const graph::ExecutionGraph& g = data_->recording.kernel->graph;
  std::map<int64_t, json> by_id;
  size_t threads = 0;
  for (const json& e : tree["entries"]) {
    EXPECT_TRUE(by_id.emplace(e["id"].get<int64_t>(), e).second) << "id twice: " << e;
    threads += e["hasData"].get<bool>();
  }
  EXPECT_EQ(threads, g.num_workers());
  for (uint32_t w = 0; w < g.num_workers(); ++w) {
    const json& e = by_id[ThreadEntryId(w)];
    ASSERT_TRUE(e.is_object()) << "no entry for worker " << w;
    EXPECT_EQ(e["labels"][0], g.worker(w).name);
    EXPECT_EQ(e["metadata"]["tid"][0], g.worker(w).tid);
    // Its parent is its process (or its host), named.
    const json& parent = by_id[e["parentId"].get<int64_t>()];
    ASSERT_TRUE(parent.is_object()) << e;
    if (g.worker(w).pid >= 0) {
      EXPECT_EQ(parent["labels"][1], std::to_string(g.worker(w).pid));
    }
  }
  EXPECT_EQ(tree["headers"].size(), 2u);
}

TEST_F(ThreadTimeGraphTest, StatesTextIsNlohmannsDumpOfTheAskedRowsInTheRange) {
  const auto output = MakeThreadTimeGraph();
  const int64_t b = data_->begin, e = data_->end;
  const int64_t mid = b + (e - b) / 2;
  int labelled = 0, merged = 0;
  for (const json& range : {Range(b, e, 200), Range(mid, mid + (e - b) / 50, 500)}) {
    SCOPED_TRACE(range.dump());
    const json p = {{"requested_timerange", range}, {"requested_items", {1, 2, 3, 5, 8, 13, 21}}};
    auto text = output->StatesText(*data_, p);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    const json model = json::parse(*text);
    EXPECT_EQ(*text, model.dump());
    ASSERT_EQ(model["rows"].size(), 7u);
    EXPECT_EQ(model["rows"][3]["entryId"], 5);
    for (const json& row : model["rows"]) {
      // In order, each overlapping the range (a state is sent whole, not clipped).
      int64_t previous_end = INT64_MIN;
      for (const json& s : row["states"]) {
        EXPECT_GE(s["start"].get<int64_t>(), previous_end);
        EXPECT_LT(s["start"].get<int64_t>(), s["end"].get<int64_t>());
        EXPECT_LT(s["start"].get<int64_t>(), range["end"].get<int64_t>());
        EXPECT_GT(s["end"].get<int64_t>(), range["start"].get<int64_t>());
        previous_end = s["end"];
        EXPECT_EQ(s["style"]["values"], json::object());
        const std::string key = s["style"]["parentKey"];
        merged += key.ends_with(",MULTIPLE");
        labelled += s.contains("label");
      }
    }
  }
  EXPECT_GT(labelled, 0);
  EXPECT_GT(merged, 0);
}

TEST_F(ThreadTimeGraphTest, ArrowsTextIsNlohmannsDumpAndMergesAPairsArrowsWithinAStep) {
  const auto output = MakeThreadTimeGraph();
  const int64_t b = data_->begin, e = data_->end;
  const size_t threads = data_->recording.kernel->graph.num_workers();
  size_t previous = SIZE_MAX;
  for (int samples : {10000, 1000, 10}) {
    SCOPED_TRACE(samples);
    auto text = output->ArrowsText(*data_, {{"requested_timerange", Range(b, e, samples)}});
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    const json arrows = json::parse(*text);
    EXPECT_EQ(*text, arrows.dump());
    ASSERT_GT(arrows.size(), 0u);
    // Fewer pixels, fewer arrows: a pair's arrows less than a step apart are one.
    EXPECT_LE(arrows.size(), previous);
    previous = arrows.size();
    for (const json& a : arrows) {
      EXPECT_GE(a["sourceId"].get<int64_t>(), 1);
      EXPECT_LE(a["targetId"].get<size_t>(), threads);
      EXPECT_LE(a["start"].get<int64_t>(), a["end"].get<int64_t>());
      const std::string kind = a["style"]["parentKey"];
      EXPECT_TRUE(kind == "WAKEUP" || kind == "PACKET" || kind == "FORK") << kind;
    }
  }
}

}  // namespace
}  // namespace causeway::server
