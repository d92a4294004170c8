// Where a recording's index lives (the state store and the cached execution graph), and the
// keys that tell a valid index from a stale one: what the index was built from.
#pragma once

#include <string>
#include <vector>

#include "analysis/clock_sync.h"
#include "base/status.h"

namespace causeway::analysis {

// Bumped whenever what an index holds changes meaning (the attributes the feeds write, the
// graph the model builds): an index of another version is stale. The store and graph files
// also carry their own format versions, checked when they are opened.
inline constexpr int kIndexContentVersion = 1;

struct IndexLocation {
  std::string dir;         // created by the index build
  std::string store_path;  // dir + "/state.cws"
  std::string graph_path;  // dir + "/graph.cwg"
};

// The folder holding the index of `trace_paths`: `<first trace path>/.causeway` (its parent's
// when the path is a file), or, when `cache_dir` is given, a subfolder of it named by the
// first trace's name and a hash of the absolute trace paths, so that several recordings can
// share one cache. Creates nothing; fails when no trace path is given or the first does not
// exist.
StatusOr<IndexLocation> LocateIndex(const std::vector<std::string>& trace_paths,
                                    const std::string& cache_dir = "");

// What a kernel analysis is built from, as text: the content version, every file under the
// trace paths (path relative to its trace path, size, modification time in ns; the index
// folders `.causeway` left out) and the options that change the result (clock
// synchronization, and the transforms file's size and time). Two calls give the same text
// exactly when nothing the analysis reads has changed; another key means a stale index.
// Relative paths let a recording be moved with its index (`cp -a`, `mv`).
std::string KernelSourceKey(const std::vector<std::string>& trace_paths,
                            const ClockSyncOptions& sync);

// A recording's key: the kernel key, then the span files or folders (walked like the
// traces; absolute paths, since they may lie anywhere) and the host the spans ran on.
std::string RecordingSourceKey(const std::string& kernel_key,
                               const std::vector<std::string>& span_paths,
                               const std::string& span_host = "");

}  // namespace causeway::analysis
