// Benchmark: the fast 64-bit timestamp transform (seed 004 Alg. 3) against the 128-bit
// reference path and a naive long double path, on 49 M increasing nanosecond timestamps
// around 1.8e18 (a skewed host: slope 1.0001, offset -3 s).
//
//   transform_bench [--runs N]
//
// Prints ns per timestamp (median of N runs) for each path, the fast/128-bit ratio, and
// checks on the way that the fast path equals the reference and that the long double path
// is not exact (the paper's reason for integer arithmetic).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/clock_transform.h"
#include "base/fast_transform.h"

namespace {

using causeway::ClockTransform;
using causeway::FastTransform;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: transform_bench [--runs N]\n");
      return 2;
    }
  }
  const int64_t t0 = 1'795'337'846'000'000'000;
  // The timestamps of a decoded packet are in cache when they are transformed: a 16 K block
  // (128 KB) is generated once and transformed again and again, shifted forward each pass.
  const size_t block = 16384, passes = 3000, n = block * passes;
  std::vector<int64_t> ts(block);
  uint64_t x = 88172645463325252ull;
  int64_t t = t0;
  for (size_t i = 0; i < block; ++i) {  // events 0-400 ns apart, like a busy trace
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t += static_cast<int64_t>(x % 400);
    ts[i] = t;
  }
  const int64_t span = t - t0 + 1;  // each pass continues where the previous one ended
  const long double a = 1.0001L, b = -3e9L;
  const ClockTransform ref = ClockTransform::FromLine(a, b, t0);

  auto time = [&](auto&& fn) {
    std::vector<double> ns;
    int64_t sink = 0;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      sink += fn();
      const auto end = std::chrono::steady_clock::now();
      ns.push_back(std::chrono::duration<double, std::nano>(end - start).count() / n);
    }
    if (sink == 42) std::puts("");  // keeps the work alive
    return Median(ns);
  };
  const double ref_ns = time([&] {
    int64_t s = 0;
    for (size_t p = 0; p < passes; ++p)
      for (int64_t v : ts) s += ref.Apply(v + static_cast<int64_t>(p) * span);
    return s;
  });
  const double fast_ns = time([&] {
    FastTransform f(ref);
    int64_t s = 0;
    for (size_t p = 0; p < passes; ++p)
      for (int64_t v : ts) s += f.Apply(v + static_cast<int64_t>(p) * span);
    return s;
  });
  const double ld_ns = time([&] {
    int64_t s = 0;
    for (size_t p = 0; p < passes; ++p)
      for (int64_t v : ts)
        s += static_cast<int64_t>(a * static_cast<long double>(v + static_cast<int64_t>(p) * span) +
                                  b);
    return s;
  });
  const double dbl_ns = time([&] {
    int64_t s = 0;
    for (size_t p = 0; p < passes; ++p)
      for (int64_t v : ts)
        s += static_cast<int64_t>(1.0001 * static_cast<double>(v + static_cast<int64_t>(p) * span) -
                                  3e9);
    return s;
  });

  FastTransform f(ref);
  size_t mismatches = 0, double_backwards = 0;
  int64_t prev_d = INT64_MIN;
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = ts[i % block] + static_cast<int64_t>(i / block) * span;
    mismatches += f.Apply(v) != ref.Apply(v);
    const int64_t d = static_cast<int64_t>(1.0001 * static_cast<double>(v) - 3e9);
    double_backwards += d < prev_d;
    prev_d = d;
  }
  std::printf("%zu timestamps, median of %d runs, ns per timestamp:\n", n, runs);
  std::printf("  128-bit reference (ClockTransform::Apply)  %6.3f ns\n", ref_ns);
  std::printf("  fast 64-bit (FastTransform, Alg. 3)        %6.3f ns   %.2fx the 128-bit path\n",
              fast_ns, ref_ns / fast_ns);
  std::printf("  long double                                %6.3f ns\n", ld_ns);
  std::printf(
      "  double (inexact)                           %6.3f ns   %zu timestamps went backwards\n",
      dbl_ns, double_backwards);
  std::printf("fast == 128-bit reference on every timestamp: %s (%zu mismatches)\n",
              mismatches == 0 ? "yes" : "NO", mismatches);
  return mismatches == 0 ? 0 : 1;
}
