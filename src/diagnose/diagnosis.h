// Top-down diagnosis of a recording's requests (seed 003 Alg. 1): per operation a latency
// baseline and the mean time its normal requests spend in each category of each level;
// every abnormal request with its levels, to be read beside those means. README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "diagnose/baseline.h"
#include "diagnose/levels.h"
#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "spans/span_model.h"
#include "state/state_store.h"

namespace causeway::diagnose {

// Baseline requests whose levels are averaged, per operation, at most: evenly spread over
// them, so that a recording of a million requests costs a bounded number of paths.
inline constexpr int64_t kMaxProfiledRequests = 1000;

// One analysed recording, as the diagnosis reads it (all must outlive the calls).
struct RecordingView {
  const graph::ExecutionGraph* graph = nullptr;
  const spans::SpanSet* spans = nullptr;  // indexed by Request::root
  const requests::RequestAnalysis* requests = nullptr;
  const state::StateStore* store = nullptr;  // null: no syscall or page cache level
};

struct OperationBaseline {
  OperationKey key;
  LatencyStats latency;  // of its baseline requests
  // Of those, how many had their levels computed, and the mean ns per request of each
  // category (Categories(): "syscall/fsync", "state/BLOCK_DEVICE", ...).
  int64_t profiled = 0;
  std::map<std::string, int64_t> mean_ns;
  int64_t Mean(const std::string& category) const {
    auto it = mean_ns.find(category);
    return it == mean_ns.end() ? 0 : it->second;
  }
};

struct Baselines {
  bool from_other_recording = false;
  bool syscalls_recorded = false;  // in the baseline recording's store
  bool page_cache_recorded = false;
  std::vector<OperationBaseline> operations;  // by key
  const OperationBaseline* Find(const OperationKey& key) const;
};

// The baselines of `normal`'s operations (`only`: of that one alone). `own`: `normal` is also
// the recording diagnosed, and each operation's baseline leaves out its slow requests
// (NormalPart).
Baselines MakeBaselines(const RecordingView& normal, bool own, const OperationKey* only = nullptr);

OperationKey OperationOf(const RecordingView& r, size_t request);

struct Finding {
  size_t request = 0;  // in the recording's RequestAnalysis
  OperationKey operation;
  Judgement judgement;
  RequestLevels levels;
};

// One request judged against its operation's baseline, with its levels.
Finding Examine(const RecordingView& r, size_t request, const Baselines& baselines);

struct OperationVerdicts {
  OperationKey key;
  int64_t requests = 0;
  int64_t abnormal = 0;
  LatencyStats latency;  // of all its requests in the recording diagnosed
};

struct Diagnosis {
  Baselines baselines;
  std::vector<OperationVerdicts> operations;  // of the recording diagnosed, by key
  int64_t abnormal_requests = 0;
  // The abnormal requests, slowest first, at most `limit` of them with their levels.
  std::vector<Finding> findings;
  bool syscalls_recorded = false;  // in the diagnosed recording's store
  bool page_cache_recorded = false;
};

// One step of the top-down walk: at a level, the category whose time exceeds the baseline's
// mean the most.
struct Step {
  int level = 0;     // 2 system call, 3 kernel state, 4 below the kernel
  std::string name;  // "fsync", "BLOCK_DEVICE", "block device"
  int64_t ns = 0;
  int64_t normal_ns = 0;  // the baseline's mean per request (0 without a baseline)
};

// Request -> system call -> kernel state (inside that call, when calls were recorded) ->
// below (when the state is the block layer's or the network's; block queue against device
// time). Steps whose excess is not positive end the walk.
std::vector<Step> Walk(const Finding& f, const OperationBaseline* baseline);

// `baseline`: a normal recording, or null for `subject` to be its own. `limit` < 0: every
// abnormal request gets its levels.
Diagnosis Diagnose(const RecordingView& subject, const RecordingView* baseline, long limit);

}  // namespace causeway::diagnose
