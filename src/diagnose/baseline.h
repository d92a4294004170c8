// Latency baselines per operation and the rule that flags a request abnormal (README.md).
//
// A baseline is the latency distribution of one operation's normal requests: those of a
// recording given as normal (`--baseline`), or, when the recording is its own baseline,
// its requests of that operation under kOutlierFactor x the operation's median (the slow
// ones would otherwise set the p95 they are judged against). A request is abnormal when its
// latency is above the baseline's p95 and at least kAbnormalFactor x its median.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace causeway::diagnose {

inline constexpr double kAbnormalFactor = 1.5;
// A recording that is its own baseline leaves out of it its requests of at least this
// factor x the operation's median.
inline constexpr double kOutlierFactor = kAbnormalFactor;
// Fewer baseline requests than this: the verdicts are given, and said to rest on few.
inline constexpr int64_t kMinBaselineRequests = 5;

struct OperationKey {
  std::string service, operation;
  auto operator<=>(const OperationKey&) const = default;
};

// Nearest-rank percentiles of a set of latencies (ns); all zero for an empty set.
struct LatencyStats {
  int64_t count = 0;
  int64_t median = 0;
  int64_t p95 = 0;
  int64_t max = 0;
};
LatencyStats StatsOf(std::vector<int64_t> latencies);

// Which of `latencies` (one operation's requests of a recording that is its own baseline)
// make its baseline: those under kOutlierFactor x their median.
std::vector<bool> NormalPart(const std::vector<int64_t>& latencies);

enum class Verdict : uint8_t {
  kNormal,
  kAbnormal,    // above the baseline's p95 and at least kAbnormalFactor x its median
  kNoBaseline,  // the baseline recording has no request of this operation
};

struct Judgement {
  Verdict verdict = Verdict::kNoBaseline;
  bool few_baseline = false;   // judged on fewer than kMinBaselineRequests requests
  double ratio_to_median = 0;  // latency / baseline median (0 without one)
};
Judgement Judge(const LatencyStats& baseline, int64_t latency);

}  // namespace causeway::diagnose
