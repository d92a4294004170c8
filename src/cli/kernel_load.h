// Builds the kernel execution graph for a CLI command, with a progress line on a terminal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/kernel_analysis.h"
#include "base/status.h"

namespace causeway::cli {

// --no-sync, --transforms FILE and --sync-reference HOST, shared by every kernel analysis.
struct ClockSyncFlags {
  bool no_sync = false;
  std::string transforms;
  std::string reference;
  analysis::ClockSyncOptions ToOptions() const;
};
void AddClockSyncFlags(CLI::App* cmd, ClockSyncFlags* flags);

// Synchronizes the hosts' clocks as the flags say (the note goes to stderr, so that JSON on
// stdout stays clean), then builds the graph.
StatusOr<std::unique_ptr<analysis::KernelAnalysis>> LoadKernelAnalysis(
    const std::vector<std::string>& traces, const ClockSyncFlags& sync = {});

// "N threads, V vertices, L links; repaired: ..." for the end of a text report, or an empty
// string when nothing needed repair.
std::string RepairNote(const analysis::KernelAnalysis& a);

}  // namespace causeway::cli
