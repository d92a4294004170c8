#include "raw_clock.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "causeway/detail/raw_clock.h"

namespace causeway::client {

namespace detail {
std::atomic<bool> g_raw_clock_is_tsc{false};
}  // namespace detail

namespace {

bool HasInvariantTsc() {
#if defined(__x86_64__)
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    return line.find(" constant_tsc") != std::string::npos &&
           line.find(" nonstop_tsc") != std::string::npos;
  }
#endif
  return false;
}

}  // namespace

void RawClockInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* forced = std::getenv("CAUSEWAY_CLIENT_CLOCK");
    const bool monotonic = forced && std::strcmp(forced, "monotonic") == 0;
    detail::g_raw_clock_is_tsc.store(!monotonic && HasInvariantTsc(), std::memory_order_relaxed);
  });
}

void ClockCalibration::Sample() {
  Pair best{};
  if (!detail::g_raw_clock_is_tsc.load(std::memory_order_relaxed)) {
    const uint64_t now = detail::MonotonicNs();
    best = {now, now};
  } else {
    // Bracket clock_gettime between two raw readings; keep the tightest bracket of a few
    // tries (an interrupt in the middle widens it).
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
      const uint64_t r0 = detail::RawNow();
      const uint64_t mono = detail::MonotonicNs();
      const uint64_t r1 = detail::RawNow();
      if (r1 - r0 < best_width) {
        best_width = r1 - r0;
        best = {r0 + (r1 - r0) / 2, mono};
      }
    }
  }
  std::lock_guard lock(mutex_);
  if (!pairs_.empty() && (best.raw <= pairs_.back().raw || best.mono <= pairs_.back().mono))
    return;  // keeps both columns strictly increasing
  // Append only: a raw time, once converted, must convert the same way later (spans are
  // converted from raw times when they are exported, and must agree with the user-space
  // events to the nanosecond). The cost is 16 bytes per sample; the tracer samples at most
  // every flush interval (100 ms), about 0.6 MB per hour.
  pairs_.push_back(best);
}

uint64_t ClockCalibration::ToMonotonic(uint64_t raw) const {
  if (!detail::g_raw_clock_is_tsc.load(std::memory_order_relaxed)) return raw;
  std::lock_guard lock(mutex_);
  if (pairs_.empty()) return raw;
  if (pairs_.size() == 1) return pairs_[0].mono;  // no rate yet; only happens before 2 samples
  // The segment [a, b] holding raw; before the first pair or after the last one, the nearest
  // segment extended.
  auto it = std::upper_bound(pairs_.begin(), pairs_.end(), raw,
                             [](uint64_t r, const Pair& p) { return r < p.raw; });
  size_t hi = static_cast<size_t>(it - pairs_.begin());
  hi = std::clamp<size_t>(hi, 1, pairs_.size() - 1);
  const Pair& a = pairs_[hi - 1];
  const Pair& b = pairs_[hi];
  const long double rate =
      static_cast<long double>(b.mono - a.mono) / static_cast<long double>(b.raw - a.raw);
  const long double delta = static_cast<long double>(static_cast<int64_t>(raw - a.raw));
  const long double mono = static_cast<long double>(a.mono) + delta * rate;
  return mono <= 0 ? 0 : static_cast<uint64_t>(mono + 0.5L);
}

size_t ClockCalibration::samples() const {
  std::lock_guard lock(mutex_);
  return pairs_.size();
}

}  // namespace causeway::client
