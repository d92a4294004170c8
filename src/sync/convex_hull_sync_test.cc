#include "sync/convex_hull_sync.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace causeway::sync {
namespace {

// The hand-computed example: A->B messages (0,6), (10,17); B->A messages (5,9), (15,18) in
// (A's clock, B's clock); then an A->B message (20,19) that no line can accept.
TEST(ConvexHullSyncTest, HandComputedPointsAfterEachMatch) {
  ConvexHullSync s;
  EXPECT_EQ(s.result().quality, SyncQuality::kAbsent);

  s.AddAToB(0, 6);  // one direction: y <= x + 6 is all we know
  EXPECT_EQ(s.result().quality, SyncQuality::kIncomplete);
  EXPECT_EQ(s.result().slope, 1);
  EXPECT_EQ(s.result().offset, 6);

  s.AddBToA(/*send_b=*/9, /*recv_a=*/5);  // y >= x + 4; only the min line exists (3/5)
  EXPECT_EQ(s.result().quality, SyncQuality::kApproximate);
  ASSERT_TRUE(s.result().min_line);
  EXPECT_FALSE(s.result().max_line);
  EXPECT_EQ(s.result().min_line->dy, 3);
  EXPECT_EQ(s.result().min_line->dx, 5);
  EXPECT_EQ(s.result().slope, 1);  // the middle of the slope-1 band [4, 6]
  EXPECT_EQ(s.result().offset, 5);
  EXPECT_EQ(s.result().accuracy_ns, 1);

  s.AddAToB(10, 17);  // min line 3/5 through (0,6), max line 8/5 through (5,9)
  {
    const SyncResult& r = s.result();
    EXPECT_EQ(r.quality, SyncQuality::kAccurate);
    ASSERT_TRUE(r.min_line && r.max_line);
    EXPECT_EQ(r.min_line->dy * 5, r.min_line->dx * 3);
    EXPECT_EQ(r.min_line->x0, 0);
    EXPECT_EQ(r.min_line->y0, 6);
    EXPECT_EQ(r.max_line->dy * 5, r.max_line->dx * 8);
    EXPECT_EQ(r.max_line->x0, 5);
    EXPECT_EQ(r.max_line->y0, 9);
    // Bisector through their intersection (5, 9).
    const long double a = std::tan((std::atan(0.6L) + std::atan(1.6L)) / 2);
    EXPECT_NEAR(static_cast<double>(r.slope), static_cast<double>(a), 1e-12);
    EXPECT_NEAR(static_cast<double>(r.offset), static_cast<double>(9 - a * 5), 1e-9);
    EXPECT_NEAR(static_cast<double>(r.accuracy_ns), 2.5, 1e-12);  // |1.6x+1 - (0.6x+6)|/2 at 0, 10
  }

  s.AddBToA(18, 15);  // min line becomes 4/5 through (0,6) and (15,18)
  const long double a4 = std::tan((std::atan(0.8L) + std::atan(1.6L)) / 2);
  {
    const SyncResult& r = s.result();
    EXPECT_EQ(r.quality, SyncQuality::kAccurate);
    EXPECT_EQ(r.min_line->dy * 5, r.min_line->dx * 4);
    EXPECT_EQ(r.max_line->dy * 5, r.max_line->dx * 8);
    // 0.8x + 6 = 1.6x + 1 at (6.25, 11).
    EXPECT_NEAR(static_cast<double>(r.slope), static_cast<double>(a4), 1e-12);
    EXPECT_NEAR(static_cast<double>(r.offset), static_cast<double>(11 - a4 * 6.25L), 1e-9);
    EXPECT_NEAR(static_cast<double>(r.accuracy_ns), 0.5 * std::max(5.0, 0.8 * 15 - 5), 1e-12);
    EXPECT_EQ(r.a_to_b, 2u);
    EXPECT_EQ(r.b_to_a, 2u);
  }

  s.AddAToB(20, 19);  // received "before" a B->A message sent later: no separating line
  const SyncResult& r = s.result();
  EXPECT_EQ(r.quality, SyncQuality::kFail);
  EXPECT_TRUE(r.kept_last_good);
  EXPECT_NEAR(static_cast<double>(r.slope), static_cast<double>(a4), 1e-12);
  EXPECT_NEAR(static_cast<double>(r.offset), static_cast<double>(11 - a4 * 6.25L), 1e-9);
}

TEST(ConvexHullSyncTest, OneDirectionOnlyIsIncompleteWithTheTightestBound) {
  ConvexHullSync s;
  s.AddAToB(1000, 1500);
  s.AddAToB(2000, 2300);  // the fastest message bounds the offset: y <= x + 300
  s.AddAToB(3000, 3900);
  EXPECT_EQ(s.result().quality, SyncQuality::kIncomplete);
  EXPECT_EQ(s.result().slope, 1);
  EXPECT_EQ(s.result().offset, 300);
  EXPECT_TRUE(std::isinf(s.result().accuracy_ns));
  EXPECT_EQ(s.result().b_to_a, 0u);
}

// Nanosecond timestamps around 1.8e18 with a drift of 1e-4 and an offset of 3 s: the
// transform recovered from 2000 messages undoes the skew to well within 1 us.
TEST(ConvexHullSyncTest, RecoversAKnownSkewAtRealTimestamps) {
  const long double drift = 1.0001L, skew_offset = 3e9L;
  const int64_t t0 = 1'795'337'846'000'000'000;
  auto b_of = [&](long double a_time) {
    return static_cast<int64_t>(std::llround(a_time * drift + skew_offset));
  };
  std::mt19937_64 rng(7);
  // One-way latency: a 5 us floor plus an exponential tail (mean 2 us), like a veth pair.
  // The band of lines consistent with the messages is as wide as the fastest round trip, so
  // the accuracy bound is about the latency floor; the bisector sits in its middle.
  std::exponential_distribution<double> tail(1.0 / 2'000);
  auto latency = [&](std::mt19937_64& g) { return 5'000 + static_cast<int64_t>(tail(g)); };
  ConvexHullSync s;
  for (int i = 0; i < 1000; ++i) {
    const int64_t a_send = t0 + i * 10'000'000LL;  // 10 s of traffic
    s.AddAToB(a_send, b_of(static_cast<long double>(a_send + latency(rng))));
    const int64_t a_recv = a_send + 5'000'000;
    s.AddBToA(b_of(static_cast<long double>(a_recv - latency(rng))), a_recv);
  }
  const SyncResult& r = s.result();
  ASSERT_EQ(r.quality, SyncQuality::kAccurate);
  // Slope error ~ (difference of the fastest messages near both ends) / 10 s.
  EXPECT_NEAR(static_cast<double>(r.slope - drift), 0.0, 5e-8);
  EXPECT_LT(r.accuracy_ns, 6000);
  EXPECT_LT(s.hull_points(), 100u) << "only hull points are kept";
  const ClockTransform to_a = s.BToA();
  for (int64_t a = t0; a <= t0 + 10'000'000'000LL; a += 250'000'000) {
    const int64_t back = to_a.Apply(b_of(static_cast<long double>(a)));
    EXPECT_LT(std::llabs(back - a), 1000) << "at A time " << a;
    EXPECT_LE(std::llabs(back - a), r.accuracy_ns + 2) << "error beyond the reported bound";
  }
}

}  // namespace
}  // namespace causeway::sync
