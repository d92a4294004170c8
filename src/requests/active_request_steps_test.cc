#include "requests/active_request_steps.h"

#include <random>

#include <gtest/gtest.h>

namespace causeway::requests {
namespace {

size_t UpperBound(const std::vector<Step>& steps, int64_t t) {
  return static_cast<size_t>(std::upper_bound(steps.begin(), steps.end(), t,
                                              [](int64_t x, const Step& s) { return x < s.ts; }) -
                             steps.begin());
}

TEST(StepAfter, EqualsABinarySearchFromAnyHint) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    // Sorted times with repeats (a request ending as another starts), some rounds empty.
    std::vector<Step> steps(rng() % 40);
    int64_t ts = 0;
    for (Step& s : steps) {
      ts += static_cast<int64_t>(rng() % 3) * 10;
      s = {ts, static_cast<int32_t>(rng() % 5) - 1};
    }
    size_t hint = rng() % (steps.size() + 3);  // past the end too: a stale hint
    for (int q = 0; q < 50; ++q) {
      const int64_t t = static_cast<int64_t>(rng() % (static_cast<uint64_t>(ts) + 30)) - 10;
      const size_t from = hint;
      ASSERT_EQ(StepAfter(steps, &hint, t), UpperBound(steps, t))
          << "round " << round << ", t " << t << ", hint " << from << ", " << steps.size()
          << " steps";
      EXPECT_EQ(hint, UpperBound(steps, t));
    }
  }
}

TEST(StepAfter, FindsTheStepInForceAcrossLongJumps) {
  std::vector<Step> steps;
  for (int64_t i = 0; i < 100000; ++i) steps.push_back({i * 10, static_cast<int32_t>(i % 7)});
  size_t hint = 0;
  EXPECT_EQ(StepAfter(steps, &hint, 999'995), 100000u);  // after the last step
  EXPECT_EQ(StepAfter(steps, &hint, 5), 1u);             // all the way back
  EXPECT_EQ(StepAfter(steps, &hint, 10), 2u);            // on a step: the one after it
  EXPECT_EQ(StepAfter(steps, &hint, -1), 0u);            // before the first
  EXPECT_EQ(StepAfter(steps, &hint, 500'000), 50001u);
  EXPECT_EQ(StepAfter(steps, &hint, 499'999), 50000u);
}

}  // namespace
}  // namespace causeway::requests
