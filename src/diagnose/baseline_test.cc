// Latency baselines and the abnormal rule on hand-made latencies.
#include "diagnose/baseline.h"

#include <gtest/gtest.h>

namespace causeway::diagnose {
namespace {

TEST(BaselineTest, NearestRankMedianAndP95) {
  // 1..20: the median is the 10th value, the p95 the 19th.
  std::vector<int64_t> v;
  for (int64_t i = 20; i >= 1; --i) v.push_back(i);
  const LatencyStats s = StatsOf(v);
  EXPECT_EQ(s.count, 20);
  EXPECT_EQ(s.median, 10);
  EXPECT_EQ(s.p95, 19);
  EXPECT_EQ(s.max, 20);
  // One value: all of them.
  const LatencyStats one = StatsOf({7});
  EXPECT_EQ(one.median, 7);
  EXPECT_EQ(one.p95, 7);
  EXPECT_EQ(StatsOf({}).count, 0);
}

TEST(BaselineTest, OwnBaselineLeavesOutTheSlowRequests) {
  // Median 10: 15 and more are left out of the baseline.
  const std::vector<int64_t> v = {9, 10, 10, 10, 40, 15, 14};
  const std::vector<bool> normal = NormalPart(v);
  EXPECT_EQ(normal, (std::vector<bool>{true, true, true, true, false, false, true}));
}

TEST(BaselineTest, AbnormalAboveP95AndOneAndAHalfTimesTheMedian) {
  const LatencyStats b = StatsOf({10, 10, 10, 10, 10, 10, 10, 10, 10, 12});  // p95 12
  EXPECT_EQ(Judge(b, 40).verdict, Verdict::kAbnormal);
  EXPECT_DOUBLE_EQ(Judge(b, 40).ratio_to_median, 4.0);
  EXPECT_FALSE(Judge(b, 40).few_baseline);
  // Above the p95 but under 1.5 x the median: normal.
  EXPECT_EQ(Judge(b, 14).verdict, Verdict::kNormal);
  EXPECT_EQ(Judge(b, 15).verdict, Verdict::kAbnormal);
  // At least 1.5 x the median but not above the p95: normal.
  const LatencyStats wide = StatsOf({10, 10, 10, 10, 10, 10, 10, 10, 10, 30});
  EXPECT_EQ(Judge(wide, 30).verdict, Verdict::kNormal);
  EXPECT_EQ(Judge(wide, 31).verdict, Verdict::kAbnormal);
}

TEST(BaselineTest, FewOrNoBaselineRequestsAreSaid) {
  const Judgement few = Judge(StatsOf({10, 11}), 100);
  EXPECT_EQ(few.verdict, Verdict::kAbnormal);
  EXPECT_TRUE(few.few_baseline);
  EXPECT_EQ(Judge(StatsOf({}), 100).verdict, Verdict::kNoBaseline);
}

}  // namespace
}  // namespace causeway::diagnose
