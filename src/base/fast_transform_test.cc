#include "base/fast_transform.h"

#include <random>

#include <gtest/gtest.h>

namespace causeway {
namespace {

// Every timestamp gives exactly the 128-bit reference's value: sequential timestamps across
// window boundaries, random jumps (forward and back), the extremes of the range, and slopes
// just below 2, near 1 and tiny.
TEST(FastTransformTest, ExactlyTheReferenceOverTheWholeRange) {
  std::mt19937_64 rng(3);
  const std::vector<long double> slopes = {1.0001L, 0.9999L, 1.0L + 1e-12L, 1.999L, 0.001L};
  for (long double a : slopes) {
    const ClockTransform ref = ClockTransform::FromLine(a, -3e9L, 1'795'337'846'000'000'000);
    FastTransform fast(ref);
    int64_t t = 1'795'337'846'000'000'000 - 5'000'000;
    int64_t prev = INT64_MIN;
    for (int i = 0; i < 200'000; ++i, t += 977) {  // crosses ~190 windows
      const int64_t v = fast.Apply(t);
      ASSERT_EQ(v, ref.Apply(t)) << "t=" << t;
      ASSERT_GE(v, prev) << "not monotonic at t=" << t;
      prev = v;
    }
    std::uniform_int_distribution<int64_t> any(-(int64_t{1} << 61), int64_t{1} << 61);
    for (int i = 0; i < 100'000; ++i) {
      const int64_t x = any(rng) + 1'795'337'846'000'000'000 / 2;
      ASSERT_EQ(fast.Apply(x), ref.Apply(x)) << "t=" << x << " slope " << static_cast<double>(a);
    }
  }
}

TEST(FastTransformTest, IdentityAndOffsetOnly) {
  FastTransform id{ClockTransform{}};
  EXPECT_EQ(id.Apply(123456789), 123456789);
  ClockTransform shift;
  shift.offset = 1000;
  EXPECT_EQ(FastTransform(shift).Apply(5), 1005);
}

}  // namespace
}  // namespace causeway
