#include "cli/kernel_load.h"

#include <fmt/format.h>

#include "report/critpath_format.h"

namespace causeway::cli {

analysis::ClockSyncOptions ClockSyncFlags::ToOptions() const {
  analysis::ClockSyncOptions o;
  o.reference = reference;
  if (no_sync) {
    o.mode = analysis::ClockSyncMode::kOff;
  } else if (!transforms.empty()) {
    o.mode = analysis::ClockSyncMode::kFile;
    o.file = transforms;
  }
  return o;
}

void AddClockSyncFlags(CLI::App* cmd, ClockSyncFlags* flags) {
  auto* no = cmd->add_flag("--no-sync", flags->no_sync,
                           "Use every host's own clock (by default, traces of several hosts are "
                           "synchronized from the TCP segments they exchanged, as `causeway "
                           "sync` does)");
  auto* file = cmd->add_option("--transforms", flags->transforms,
                               "Clock transforms from a file written by `causeway sync --format "
                               "json` instead of synchronizing again");
  auto* ref = cmd->add_option("--sync-reference", flags->reference,
                              "Host whose clock the others are mapped to (default: first name "
                              "in lexical order)");
  no->excludes(file);
  no->excludes(ref);
  file->excludes(ref);
}

void AddIndexFlags(CLI::App* cmd, IndexFlags* flags) {
  cmd->add_option("--cache", flags->cache,
                  "Where the index built by `causeway index --cache DIR` is (default: beside "
                  "the trace)");
  cmd->add_flag("--no-index", flags->no_index,
                "Read the trace even when a valid index holds its graph");
}

analysis::KernelAnalysisOptions KernelAnalysisDisplay::Options(const ClockSyncFlags& sync,
                                                               const IndexFlags& index) {
  analysis::KernelAnalysisOptions options;
  options.sync = sync.ToOptions();
  options.index.use = !index.no_index;
  options.index.cache_dir = index.cache;
  options.index.note = [](const std::string& note) { fmt::print(stderr, "causeway: {}\n", note); };
  if (StderrIsInteractive()) {
    options.progress = [this](uint64_t done, uint64_t total, uint64_t events) {
      if (!progress_) progress_.emplace("Building graph", total, true);
      progress_->Update(done, events);
    };
  }
  return options;
}

void KernelAnalysisDisplay::Done(const analysis::KernelAnalysis* a) {
  if (progress_) progress_->Finish();
  if (a && a->clocks.applied) fmt::print(stderr, "{}\n", a->clocks.Note());
}

StatusOr<std::unique_ptr<analysis::KernelAnalysis>> LoadKernelAnalysis(
    const std::vector<std::string>& traces, const ClockSyncFlags& sync, const IndexFlags& index) {
  KernelAnalysisDisplay display;
  auto result = analysis::AnalyzeKernel(traces, display.Options(sync, index));
  display.Done(result.ok() ? result->get() : nullptr);
  return result;
}

ClampedTimestamps ClampedTimestampsOf(const analysis::KernelAnalysis& a) {
  ClampedTimestamps c;
  for (const auto& s : a.streams) {
    c.count += s.clamped_events;
    if (s.clamped_events && s.max_backward_ns >= c.max_backward_ns) {
      c.max_backward_ns = s.max_backward_ns;
      c.worst_stream = s.path;
    }
  }
  return c;
}

nlohmann::json ClampedTimestampsJson(const analysis::KernelAnalysis& a) {
  const ClampedTimestamps c = ClampedTimestampsOf(a);
  return {{"clamped_timestamps", c.count}, {"max_backward_ns", c.max_backward_ns}};
}

std::string RepairNote(const analysis::KernelAnalysis& a) {
  const kernel::ModelCounters& c = a.counters;
  uint64_t discarded = 0;
  for (const auto& s : a.streams) discarded += s.discarded_events;
  std::string note;
  auto add = [&note](uint64_t n, const char* what) {
    if (n) note += fmt::format("{}{} {}", note.empty() ? "" : ", ", n, what);
  };
  add(discarded, "events discarded by the tracer (their time is UNKNOWN)");
  const ClampedTimestamps clamped = ClampedTimestampsOf(a);
  if (clamped.count)
    note += fmt::format(
        "{}{} timestamps went back in time and were clamped (a damaged stream, {}; largest step "
        "back {}: the times after it, and the trace's end, may be late by up to that much)",
        note.empty() ? "" : ", ", clamped.count, clamped.worst_stream,
        report::FormatDuration(static_cast<int64_t>(clamped.max_backward_ns)));
  add(c.lost_window_waits,
      "waits made UNKNOWN during a window of lost events (a thread queued on the lossy CPU, or "
      "asleep while its waker could have run there)");
  add(c.missing_wakeups, "waits ended without a wake-up in the trace (UNKNOWN)");
  add(c.missing_switch_ins, "switch-outs without a switch-in (UNKNOWN)");
  add(c.wakeups_unknown_source, "wake-ups from an unknown task");
  add(c.wakers_corrected,
      "wake-ups credited to the task the CPU's next switch named (a switch-out was missing)");
  add(c.interrupt_mismatches, "unbalanced interrupt entries/exits");
  add(c.unnamed_qualifiers,
      "states left unnamed (over 16,777,215 distinct irq, disk and vector names)");
  return note.empty() ? note : "Repaired: " + note + "\n";
}

}  // namespace causeway::cli
