// A worker's active request over time, as steps: request `req` from `ts` until the next
// step (seed 000 Alg. 1's innermost request per thread), and the search that finds the step
// in force at a time for every segment of every request's critical path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace causeway::requests {

struct Step {
  int64_t ts;
  int32_t req;  // -1: none
};

// The first step after `t` (std::upper_bound by time), galloping from `*hint`, the answer
// of the worker's previous search, which is then moved to this one. A request's segments
// come in time order, and requests that share a thread mostly so: the answer is usually a
// step or two from the last one, where a binary search over a busy thread's thousands of
// steps takes a dozen dependent loads per segment.
inline size_t StepAfter(const std::vector<Step>& steps, size_t* hint, int64_t t) {
  const size_t n = steps.size();
  const size_t i = std::min(*hint, n);
  size_t lo, hi;  // the answer is in [lo, hi]
  if (i == 0 || steps[i - 1].ts <= t) {
    // At or after i: the window moves forward, doubling, while steps[hi] is at or before t.
    lo = hi = i;
    for (size_t step = 1; hi < n && steps[hi].ts <= t; step *= 2) {
      lo = hi + 1;
      hi = std::min(n, hi + step);
    }
  } else {
    // Before i: steps[hi] is after t while the window doubles backward.
    hi = i - 1;
    lo = hi;
    for (size_t step = 1; lo > 0 && steps[lo - 1].ts > t; step *= 2) {
      hi = lo - 1;
      lo = hi > step ? hi - step : 0;
    }
  }
  const auto it = std::upper_bound(steps.begin() + static_cast<std::ptrdiff_t>(lo),
                                   steps.begin() + static_cast<std::ptrdiff_t>(hi), t,
                                   [](int64_t x, const Step& st) { return x < st.ts; });
  *hint = static_cast<size_t>(it - steps.begin());
  return *hint;
}

}  // namespace causeway::requests
