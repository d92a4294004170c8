#include "server/resolution.h"

#include <tuple>

#include <gtest/gtest.h>

namespace causeway::server {
namespace {

using State = std::tuple<int64_t, int64_t, size_t, bool>;  // start, end, edge, merged

std::vector<State> At(const std::vector<int64_t>& ts, int64_t end, int64_t from, int64_t to,
                      int64_t step) {
  std::vector<State> out;
  ForEachStateAtResolution(ts, end, from, to, step, [&](int64_t s, int64_t e, size_t edge, bool m) {
    out.emplace_back(s, e, edge, m);
  });
  return out;
}

TEST(ResolutionTest, LongEdgesWholeShortOnesMerged) {
  // Edges: [0,100) [100,101) [101,102) [102,103) [103,300) [300,400)
  const std::vector<int64_t> ts = {0, 100, 101, 102, 103, 300};
  EXPECT_EQ(At(ts, 400, 0, 400, 1), (std::vector<State>{{0, 100, 0, false},
                                                        {100, 101, 1, false},
                                                        {101, 102, 2, false},
                                                        {102, 103, 3, false},
                                                        {103, 300, 4, false},
                                                        {300, 400, 5, false}}));
  // At 10 ns a step, the three 1-ns edges are one merged state, ending where the long one
  // starts; its hint is the longest of them (the first, on a tie).
  EXPECT_EQ(
      At(ts, 400, 0, 400, 10),
      (std::vector<State>{
          {0, 100, 0, false}, {100, 103, 1, true}, {103, 300, 4, false}, {300, 400, 5, false}}));
  // A view inside one edge: that edge alone.
  EXPECT_EQ(At(ts, 400, 150, 160, 1), (std::vector<State>{{103, 300, 4, false}}));
  // A view after the end, or a reversed one: nothing.
  EXPECT_TRUE(At(ts, 400, 500, 600, 1).empty());
  EXPECT_TRUE(At(ts, 400, 300, 200, 1).empty());
}

TEST(ResolutionTest, StatesBoundedBySamples) {
  // 100000 edges of 1 ns: at 100 steps over them, at most ~2 states a step.
  std::vector<int64_t> ts(100000);
  for (size_t i = 0; i < ts.size(); ++i) ts[i] = static_cast<int64_t>(i);
  const auto states = At(ts, 100000, 0, 100000, 1000);
  EXPECT_LE(states.size(), 202u);
  // They tile the view in order.
  int64_t at = 0;
  for (const auto& [s, e, edge, merged] : states) {
    EXPECT_EQ(s, at);
    at = e;
  }
  EXPECT_EQ(at, 100000);
}

}  // namespace
}  // namespace causeway::server
