// A per-host linear clock transform, t' = offset + (t - origin) * slope, applied to every
// timestamp of a host before analyses that span hosts. The slope is fixed point (2^-40
// resolution: under 1 ns over 1000 s) and the arithmetic is exact integer arithmetic, so
// the transform is monotonic. Apply() is the 128-bit reference; base/fast_transform.h
// computes the same values with 64-bit operations.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/int128.h"

namespace causeway {

struct ClockTransform {
  static constexpr int kSlopeShift = 40;
  static constexpr int64_t kSlopeOne = int64_t{1} << kSlopeShift;
  int64_t origin = 0;
  int64_t slope = kSlopeOne;  // (0, 2) in fixed point
  int64_t offset = 0;         // t' at t = origin

  bool identity() const { return slope == kSlopeOne && offset == origin; }
  int64_t Apply(int64_t t) const {
    if (slope == kSlopeOne) return t - origin + offset;
    const int128 scaled = static_cast<int128>(t - origin) * slope;
    // Floor division by 2^40 (an arithmetic shift floors for negatives too).
    return static_cast<int64_t>(scaled >> kSlopeShift) + offset;
  }

  // t' = a * t + b with a real slope, anchored at `origin` (pick a time inside the trace).
  static ClockTransform FromLine(long double a, long double b, int64_t origin) {
    ClockTransform c;
    c.origin = origin;
    c.slope = static_cast<int64_t>(std::llround(a * static_cast<long double>(kSlopeOne)));
    c.offset = static_cast<int64_t>(std::llround(a * static_cast<long double>(origin) + b));
    return c;
  }
};

}  // namespace causeway
