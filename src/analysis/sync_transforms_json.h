// `causeway sync --format json`: the writer of that document and the reader of the clock
// transforms in it (`--transforms FILE` of the kernel analyses), side by side so that what
// one writes the other reads. The transforms travel as exact integers (ClockTransform:
// origin_ns, slope_q40, offset_ns); the floating-point slope, offset and accuracy beside
// them are for people and plots.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/sync_analysis.h"
#include "base/status.h"
#include "sync/host_sync.h"

namespace causeway::analysis {

// The whole document: hosts (with "transform" for the connected ones), pairs and the steps'
// counters, indented by 2, without a final newline.
std::string SyncAnalysisJson(const SyncAnalysis& r);

// The hosts of such a document. `source` names it in the errors (a file's path), which say
// what is wrong and where ("hosts[1].transform.slope_q40: missing or not an integer").
StatusOr<std::vector<sync::HostTransform>> ParseTransformsJson(std::string_view text,
                                                               const std::string& source);
// ParseTransformsJson of a file's contents.
StatusOr<std::vector<sync::HostTransform>> LoadTransformsFile(const std::string& path);

}  // namespace causeway::analysis
