// The clock of causeway-client's events, read on the hot path (internal; see client/README.md).
//
// On x86-64 with an invariant TSC (constant_tsc and nonstop_tsc), a raw time is the TSC:
// about half the cost of clock_gettime(CLOCK_MONOTONIC) through the vDSO. The background
// thread pairs TSC readings with CLOCK_MONOTONIC and converts raw times piecewise-linearly
// when it writes them. Elsewhere a raw time is CLOCK_MONOTONIC in nanoseconds.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace causeway::client::detail {

// Set once, before any event, by RawClockInit().
extern std::atomic<bool> g_raw_clock_is_tsc;

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

[[gnu::always_inline]] inline uint64_t RawNow() {
#if defined(__x86_64__)
  if (g_raw_clock_is_tsc.load(std::memory_order_relaxed)) [[likely]]
    return __rdtsc();
#endif
  return MonotonicNs();
}

}  // namespace causeway::client::detail
