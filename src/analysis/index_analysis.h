// Pipeline assembly for the index: one pass of the recording's analysis (kernel, then the
// requests when there are spans) with the index's feeds (src/index) writing the state store
// beside the trace, and the test that tells a valid index from a missing, stale or damaged
// one (analysis/index_location.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/clock_sync.h"
#include "analysis/index_location.h"
#include "analysis/kernel_analysis.h"
#include "base/status.h"
#include "state/state_store.h"

namespace causeway::analysis {

// What an index is built from: the same fields make the same source key.
struct IndexSource {
  std::vector<std::string> traces;
  // Span files or folders; empty: DefaultSpans(traces). None at all: a kernel-only index.
  std::vector<std::string> span_paths;
  std::string host;  // the host whose threads ran the spans (empty: the first)
  ClockSyncOptions sync;
};

// The span files `source` names or the default ones, and its source key
// (RecordingSourceKey).
std::vector<std::string> IndexSpanPaths(const IndexSource& source);
std::string IndexSourceKey(const IndexSource& source);

struct IndexBuild {
  uint64_t intervals = 0;
  uint64_t attributes = 0;
  uint64_t store_bytes = 0;  // the store file's size
  uint64_t graph_bytes = 0;  // the kernel analysis file's (graph_path)
  uint64_t trace_bytes = 0;  // the kernel traces read
  uint64_t events = 0;       // read from them
  uint64_t requests = 0;     // 0 without spans
  uint64_t threads = 0;
  bool with_spans = false;
  double seconds = 0;  // the whole build: analysis and store
};

struct IndexBuildOptions {
  // Called every so often with (bytes consumed, total bytes, events read).
  std::function<void(uint64_t, uint64_t, uint64_t)> progress;
  // Called once the kernel pass is done (nullptr: it failed), as in AnalyzeRecording.
  std::function<void(const KernelAnalysis*)> on_kernel_done;
};

// Analyzes `source` once and writes the store to `where.store_path` (creating `where.dir`),
// with IndexSourceKey(source) as its source key. The store is written to a `.partial` file
// renamed once whole: a failed build leaves any previous store as it was.
StatusOr<IndexBuild> BuildIndex(const IndexSource& source, const IndexLocation& where,
                                const IndexBuildOptions& options = {});

// The store of `source`'s index when it is there, whole and built from the files as they
// are now; else a null store and the reason ("no index at …", "stale: …", or the store's
// own refusal of a damaged or foreign file).
struct ValidIndex {
  std::unique_ptr<state::StateStore> store;
  IndexLocation location;
  std::string reason;
};
ValidIndex OpenValidIndex(const IndexSource& source, const std::string& cache_dir = "");
ValidIndex OpenValidIndex(const std::vector<std::string>& traces,
                          const std::vector<std::string>& span_paths,
                          const std::string& cache_dir = "");

}  // namespace causeway::analysis
