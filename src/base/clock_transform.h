// A per-host linear clock transform, t' = t * slope + offset, applied to every timestamp of
// a host before analyses that span hosts. The identity until trace synchronization
// computes real ones; the slope is fixed point (kSlopeOne = 1.0) so the transform is
// exact integer arithmetic.
#pragma once

#include <cstdint>

#include "base/int128.h"

namespace causeway {

struct ClockTransform {
  static constexpr int kSlopeShift = 62;
  static constexpr int64_t kSlopeOne = int64_t{1} << kSlopeShift;
  int64_t slope = kSlopeOne;
  int64_t offset = 0;

  bool identity() const { return slope == kSlopeOne && offset == 0; }
  int64_t Apply(int64_t t) const {
    if (slope == kSlopeOne) return t + offset;
    return static_cast<int64_t>((static_cast<int128>(t) * slope) >> kSlopeShift) + offset;
  }
};

}  // namespace causeway
