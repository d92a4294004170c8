#include "diagnose/baseline.h"

#include <algorithm>

namespace causeway::diagnose {
namespace {

// The nearest-rank percentile p (0..100] of sorted values: the smallest value with at least
// p% of the values at or below it.
int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  const size_t n = sorted.size();
  size_t rank = (n * static_cast<size_t>(p) + 99) / 100;  // ceil(n * p / 100)
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

}  // namespace

LatencyStats StatsOf(std::vector<int64_t> latencies) {
  LatencyStats s;
  if (latencies.empty()) return s;
  std::sort(latencies.begin(), latencies.end());
  s.count = static_cast<int64_t>(latencies.size());
  s.median = Percentile(latencies, 50);
  s.p95 = Percentile(latencies, 95);
  s.max = latencies.back();
  return s;
}

std::vector<bool> NormalPart(const std::vector<int64_t>& latencies) {
  const int64_t median = StatsOf(latencies).median;
  std::vector<bool> normal(latencies.size());
  for (size_t i = 0; i < latencies.size(); ++i)
    normal[i] = static_cast<double>(latencies[i]) < kOutlierFactor * static_cast<double>(median) ||
                median == 0;
  return normal;
}

Judgement Judge(const LatencyStats& baseline, int64_t latency) {
  Judgement j;
  if (baseline.count == 0) return j;
  j.few_baseline = baseline.count < kMinBaselineRequests;
  j.ratio_to_median =
      baseline.median > 0 ? static_cast<double>(latency) / static_cast<double>(baseline.median) : 0;
  const bool abnormal =
      latency > baseline.p95 &&
      static_cast<double>(latency) >= kAbnormalFactor * static_cast<double>(baseline.median);
  j.verdict = abnormal ? Verdict::kAbnormal : Verdict::kNormal;
  return j;
}

}  // namespace causeway::diagnose
