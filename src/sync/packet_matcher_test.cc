#include "sync/packet_matcher.h"

#include <gtest/gtest.h>

namespace causeway::sync {
namespace {

const SegmentKey kA{100, 7, 0x18}, kB{200, 7, 0x18};

TEST(PacketMatcherTest, PairsHalvesAcrossHostsInEitherOrder) {
  HostSync hs;
  PacketMatcher m(&hs, {"a", "b"}, 0);
  m.Add(/*send=*/true, 0, kA, 1000, 1000);  // a -> b, send first
  m.Add(false, 1, kA, 5000, 5000);
  m.Add(false, 0, kB, 9000, 2000);  // b -> a, receive merged first
  m.Add(true, 1, kB, 8000, 8000);
  EXPECT_EQ(m.matched_across_hosts(), 2u);
  EXPECT_EQ(m.pending(), 0u);
  EXPECT_EQ(m.peak_pending(), 1u);
  const auto pairs = hs.Pairs();
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].result.a_to_b, 1u);
  EXPECT_EQ(pairs[0].result.b_to_a, 1u);
}

TEST(PacketMatcherTest, LoopbackIsCountedButTeachesNothing) {
  HostSync hs;
  PacketMatcher m(&hs, {"a", "b"}, 0);
  m.Add(true, 0, kA, 1000, 1000);
  m.Add(false, 0, kA, 1500, 1500);
  EXPECT_EQ(m.matched_same_host(), 1u);
  EXPECT_EQ(m.matched_across_hosts(), 0u);
  EXPECT_TRUE(hs.Pairs().empty());
}

TEST(PacketMatcherTest, OneKeySeveralTimesPairsInOrder) {
  HostSync hs;
  PacketMatcher m(&hs, {"a", "b"}, 0);
  m.Add(true, 0, kA, 1000, 1000);  // a segment and its retransmission
  m.Add(true, 0, kA, 3000, 3000);
  EXPECT_EQ(m.pending(), 2u);
  m.Add(false, 1, kA, 2000, 2000);
  m.Add(false, 1, kA, 4000, 4000);
  EXPECT_EQ(m.matched_across_hosts(), 2u);
  EXPECT_EQ(m.pending(), 0u);
  // (1000 -> 2000) and (3000 -> 4000): both 1000 ns, so the A->B lower hull holds both.
  EXPECT_EQ(hs.Pairs()[0].result.a_to_b, 2u);
}

TEST(PacketMatcherTest, HalvesUnmatchedAfterTheExpiryDelayAreDropped) {
  HostSync hs;
  PacketMatcher m(&hs, {"a", "b"}, /*expiry_ns=*/10'000);
  m.Add(true, 0, kA, 1000, 1000);  // its receive comes too late
  m.Add(true, 0, kB, 8000, 8000);
  m.Add(false, 1, kB, 10'500, 10'500);  // matched in time
  EXPECT_EQ(m.matched_across_hosts(), 1u);
  EXPECT_EQ(m.pending(), 1u);
  m.Add(false, 1, kA, 11'500, 11'500);  // 10.5 µs after kA's send: expired first
  EXPECT_EQ(m.expired(), 1u);
  EXPECT_EQ(m.matched_across_hosts(), 1u);
  EXPECT_EQ(m.pending(), 1u);  // the late receive now waits in turn
  m.Add(true, 0, SegmentKey{300, 1, 0x10}, 30'000, 30'000);
  EXPECT_EQ(m.expired(), 2u);
  EXPECT_EQ(m.pending(), 1u);
  EXPECT_GT(m.peak_bytes(), 0u);
}

TEST(PacketMatcherTest, WithoutExpiryEverythingWaits) {
  HostSync hs;
  PacketMatcher m(&hs, {"a", "b"}, 0);
  for (uint64_t i = 0; i < 100; ++i)
    m.Add(true, 0, SegmentKey{i, 0, 0x18}, static_cast<int64_t>(i), static_cast<int64_t>(i));
  for (uint64_t i = 0; i < 100; ++i)
    m.Add(false, 1, SegmentKey{i, 0, 0x18}, static_cast<int64_t>(i + 1'000'000'000'000),
          static_cast<int64_t>(i + 1'000'000'000'000));
  EXPECT_EQ(m.peak_pending(), 100u);
  EXPECT_EQ(m.matched_across_hosts(), 100u);
  EXPECT_EQ(m.expired(), 0u);
}

TEST(HostSyncTest, ConnectedWithinNeedsEveryHostLinkedPrecisely) {
  HostSync hs;
  hs.AddHost("a", 0);
  hs.AddHost("b", 0);
  hs.AddHost("c", 0);
  EXPECT_FALSE(hs.ConnectedWithin(0.01));
  // a <-> b: delays 100 ns each way, every 1 ms, for 10 ms: the slope is known to ~2e-5.
  for (int i = 0; i < 10; ++i) {
    const int64_t t = i * 1'000'000LL;
    hs.AddMessage("a", t, "b", t + 100);
    hs.AddMessage("b", t + 500'000, "a", t + 500'100);
  }
  EXPECT_FALSE(hs.ConnectedWithin(0.01)) << "c is not linked yet";
  hs.AddMessage("b", 0, "c", 100);  // one direction only: a bound, not accurate
  EXPECT_FALSE(hs.ConnectedWithin(0.01));
  for (int i = 0; i < 10; ++i) {
    const int64_t t = i * 1'000'000LL + 200'000;
    hs.AddMessage("b", t, "c", t + 100);
    hs.AddMessage("c", t + 500'000, "b", t + 500'100);
  }
  EXPECT_TRUE(hs.ConnectedWithin(0.01));
  EXPECT_FALSE(hs.ConnectedWithin(1e-6)) << "the slopes are not known that well";
}

}  // namespace
}  // namespace causeway::sync
