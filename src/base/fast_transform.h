// FastTransform: ClockTransform::Apply computed with 64-bit operations (seed 004, Alg. 3).
//
// The product (t - origin) * slope needs 128 bits for nanosecond timestamps. Splitting
// t = w + d, with w the start of a 2^20 ns window, gives
//   floor(((w - origin) * slope + d * slope) / 2^40)
//     = hi(w) + floor((rem(w) + d * slope) / 2^40)
// where hi and rem (the quotient and remainder of the window's part) are computed once per
// window in 128 bits, and rem + d * slope < 2^40 + 2^20 * 2^41 fits in 64 bits. The result
// is therefore exactly the reference's, hence monotonic. Not thread-safe (window cache).
#pragma once

#include <cstdint>

#include "base/clock_transform.h"

namespace causeway {

class FastTransform {
 public:
  static constexpr int kWindowShift = 20;  // 1 ms windows: one 128-bit product per window

  explicit FastTransform(const ClockTransform& t)
      : t_(t),
        in_range_(t.slope > 0 && t.slope < (int64_t{1} << (ClockTransform::kSlopeShift + 1))) {}

  int64_t Apply(int64_t t) {
    if (t_.slope == ClockTransform::kSlopeOne) return t - t_.origin + t_.offset;
    if (!in_range_) [[unlikely]]
      return t_.Apply(t);  // slope outside (0, 2): the 64-bit bound does not hold
    const uint64_t d = static_cast<uint64_t>(t) - static_cast<uint64_t>(window_);
    if (d >= (uint64_t{1} << kWindowShift)) [[unlikely]] {
      Rescale(t);
      return Apply(t);
    }
    return hi_ + static_cast<int64_t>((rem_ + d * static_cast<uint64_t>(t_.slope)) >>
                                      ClockTransform::kSlopeShift);
  }

 private:
  void Rescale(int64_t t) {
    window_ = t & ~((int64_t{1} << kWindowShift) - 1);
    const int128 scaled = static_cast<int128>(window_ - t_.origin) * t_.slope;
    const int128 q = scaled >> ClockTransform::kSlopeShift;  // floor
    hi_ = static_cast<int64_t>(q) + t_.offset;
    rem_ = static_cast<uint64_t>(scaled - (q << ClockTransform::kSlopeShift));
  }

  ClockTransform t_;
  bool in_range_;
  int64_t window_ = INT64_MIN;  // forces a rescale on first use (d is then huge)
  int64_t hi_ = 0;
  uint64_t rem_ = 0;
};

}  // namespace causeway
