// Raw client times (include/causeway/detail/raw_clock.h) to CLOCK_MONOTONIC nanoseconds.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace causeway::client {

// Decides once per process whether raw times are TSC readings (x86-64 with constant_tsc and
// nonstop_tsc in /proc/cpuinfo) or already nanoseconds. CAUSEWAY_CLIENT_CLOCK=monotonic
// forces nanoseconds.
void RawClockInit();

// Pairs of (raw, monotonic) readings taken by the background thread. A raw time is converted
// by linear interpolation between the two pairs around it, so conversion is monotonic and
// exact at the pairs; the invariant TSC runs at a constant rate, so the error between pairs
// is the jitter of one clock_gettime call. Thread-safe.
class ClockCalibration {
 public:
  // Takes one more pair now. Every raw time read before this call can then be converted by
  // interpolation.
  void Sample();
  uint64_t ToMonotonic(uint64_t raw) const;
  size_t samples() const;

 private:
  struct Pair {
    uint64_t raw;
    uint64_t mono;
  };
  mutable std::mutex mutex_;
  std::vector<Pair> pairs_;  // increasing in both
};

}  // namespace causeway::client
