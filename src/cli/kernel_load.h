// The kernel analysis as the CLI runs it: flags to options, a progress line on a terminal,
// the clock note on stderr (so that JSON on stdout stays clean).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "analysis/kernel_analysis.h"
#include "base/status.h"
#include "cli/progress.h"

namespace causeway::cli {

// --no-sync, --transforms FILE and --sync-reference HOST, shared by every kernel analysis.
struct ClockSyncFlags {
  bool no_sync = false;
  std::string transforms;
  std::string reference;
  analysis::ClockSyncOptions ToOptions() const;
};
void AddClockSyncFlags(CLI::App* cmd, ClockSyncFlags* flags);

// --cache DIR and --no-index, shared by every command that builds the graph: where the
// index `causeway index` built is, and whether to use it (a valid one replaces reading the
// trace; the outputs are the same).
struct IndexFlags {
  std::string cache;
  bool no_index = false;
};
void AddIndexFlags(CLI::App* cmd, IndexFlags* flags);

// What a command shows while a kernel analysis runs, wherever it is assembled.
class KernelAnalysisDisplay {
 public:
  KernelAnalysisDisplay() = default;
  KernelAnalysisDisplay(const KernelAnalysisDisplay&) = delete;  // its callback points here
  KernelAnalysisDisplay& operator=(const KernelAnalysisDisplay&) = delete;

  // The analysis options the flags ask for, with a progress line on a terminal and the
  // index's note on stderr.
  analysis::KernelAnalysisOptions Options(const ClockSyncFlags& sync, const IndexFlags& index = {});
  // Ends the progress line and prints which clocks were synchronized (`a`: the analysis,
  // nullptr when it failed).
  void Done(const analysis::KernelAnalysis* a);

 private:
  std::optional<Progress> progress_;
};

// Synchronizes the hosts' clocks as the flags say, then builds the graph.
StatusOr<std::unique_ptr<analysis::KernelAnalysis>> LoadKernelAnalysis(
    const std::vector<std::string>& traces, const ClockSyncFlags& sync = {},
    const IndexFlags& index = {});

// Timestamps the reader clamped (a damaged stream went back in time): how many, the largest
// step back and the stream it was in. Every kernel command reports them.
struct ClampedTimestamps {
  uint64_t count = 0;
  uint64_t max_backward_ns = 0;
  std::string worst_stream;
};
ClampedTimestamps ClampedTimestampsOf(const analysis::KernelAnalysis& a);
// {"clamped_timestamps": N, "max_backward_ns": B}, for the JSON counters.
nlohmann::json ClampedTimestampsJson(const analysis::KernelAnalysis& a);

// "N threads, V vertices, L links; repaired: ..." for the end of a text report, or an empty
// string when nothing needed repair.
std::string RepairNote(const analysis::KernelAnalysis& a);

}  // namespace causeway::cli
