// The kernel analysis from the index instead of the traces: AnalyzeKernel's first step when
// KernelIndexOptions::use is set.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/kernel_analysis.h"

namespace causeway::analysis {

// The analysis cached in the index of `paths` (options.index.cache_dir, or beside the
// traces) when its key says it was built from the same files with the same clock options;
// else nullptr, after a note through options.index.note saying why the traces will be read
// (stale, damaged, another version). No index: nullptr, no note.
std::unique_ptr<KernelAnalysis> LoadIndexedKernelAnalysis(const std::vector<std::string>& paths,
                                                          const KernelAnalysisOptions& options);

// The paths stored in `a` (trace folders, stream files) re-expressed under `paths`, when the
// analysis was built from the same recording named differently (relative or absolute, or
// moved with its index): reports then print the paths as this run was given them.
void RebaseTracePaths(KernelAnalysis* a, const std::vector<std::string>& paths);

}  // namespace causeway::analysis
