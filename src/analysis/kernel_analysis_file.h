// The whole kernel analysis in one cache file (the index's graph file, `causeway index`):
// what AnalyzeKernel returns, so that a later command loads it instead of reading the
// trace again.
//
// Layout: a fixed header (magic "CWKGRAPH", format version, byte-order mark, build time,
// the sizes of the key and of the body, the body's checksum), then the body: the source key
// (what the analysis was built from, analysis/index_location.h), the execution graph
// (graph/graph_file.h) and the rest of KernelAnalysis (counters, trace folders, stream
// statistics, HTTP messages, clock transforms, time range). Written to FILE.partial and
// renamed. On reading, the key is compared before the body is read (another key: stale,
// not an error); then the body's checksum, then every count and index as it is parsed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "analysis/kernel_analysis.h"
#include "base/status.h"

namespace causeway::analysis {

// Bumped whenever the layout or what a field means changes.
inline constexpr uint32_t kKernelAnalysisFileVersion = 1;

Status WriteKernelAnalysisFile(const KernelAnalysis& a, const std::string& path,
                               const std::string& key);

struct KernelAnalysisFileInfo {
  int64_t built_unix_s = 0;  // when the file was written
  std::string key;           // the key it was built with
  uint64_t bytes = 0;        // the file's size
};

// The analysis the file holds; nullptr (with OK) when its key is not `expected_key` (the
// traces or the options changed: a stale file). NotFound when there is no such file;
// DataLoss (naming the path and the reason) when it is of another version, cut short,
// damaged or inconsistent. `info`, when given, is filled as far as the header was read.
StatusOr<std::unique_ptr<KernelAnalysis>> ReadKernelAnalysisFile(
    const std::string& path, const std::string& expected_key,
    KernelAnalysisFileInfo* info = nullptr);

}  // namespace causeway::analysis
