// A per-host linear clock transform, t' = offset + (t - origin) * slope, applied to every
// timestamp of a host before analyses that span hosts. The slope is fixed point (2^-40
// resolution: under 1 ns over 1000 s) and the arithmetic is exact integer arithmetic, so
// the transform is monotonic. Apply() is the 128-bit reference; base/fast_transform.h
// computes the same values with 64-bit operations (within the int64 range, where Apply does
// not saturate).
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
  // Saturates at the int64 limits instead of wrapping (a time far from the origin, from a
  // wrong clock description, must not come out on the other side of the range).
  int64_t Apply(int64_t t) const {
    const int128 from_origin = static_cast<int128>(t) - origin;
    // Floor division by 2^40 (an arithmetic shift floors for negatives too).
    const int128 scaled = slope == kSlopeOne ? from_origin : (from_origin * slope) >> kSlopeShift;
    const int128 out = scaled + offset;
    if (out > INT64_MAX) return INT64_MAX;
    if (out < INT64_MIN) return INT64_MIN;
    return static_cast<int64_t>(out);
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
