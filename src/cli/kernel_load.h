// Builds the kernel execution graph for a CLI command, with a progress line on a terminal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/kernel_analysis.h"
#include "base/status.h"

namespace causeway::cli {

StatusOr<std::unique_ptr<analysis::KernelAnalysis>> LoadKernelAnalysis(
    const std::vector<std::string>& traces);

// "N threads, V vertices, L links; repaired: ..." for the end of a text report, or an empty
// string when nothing needed repair.
std::string RepairNote(const analysis::KernelAnalysis& a);

}  // namespace causeway::cli
