// `causeway diagnose TRACE_DIR... [--baseline DIR]`: the abnormal requests, top-down.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/diagnose_analysis.h"
#include "cli/commands.h"
#include "cli/recording_load.h"
#include "report/diagnosis_format.h"

namespace causeway::cli {
namespace {

struct DiagnoseOptions {
  std::vector<std::string> traces;
  RecordingFlags recording;
  std::string baseline;
  std::vector<std::string> baseline_spans;
  std::string format = "text";
  long limit = 10;
};

int RunDiagnose(const DiagnoseOptions& o) {
  if (o.limit < -1)
    return fmt::print(stderr, "causeway diagnose: --limit must be -1 (all) or more\n"), 2;
  KernelAnalysisDisplay display, baseline_display;
  analysis::DiagnoseAnalysisOptions options;
  options.recording = RecordingOptions(o.recording, /*keep_paths=*/false, &display);
  if (!o.baseline.empty()) {
    options.baseline_traces = {o.baseline};
    RecordingFlags baseline_flags = o.recording;
    baseline_flags.spans = o.baseline_spans;
    options.baseline = RecordingOptions(baseline_flags, /*keep_paths=*/false, &baseline_display);
  }
  options.limit = o.limit;
  // The index first: once built, the analyses below load the kernel analysis from it.
  const std::unique_ptr<state::StateStore> store =
      OpenRecordingStore(o.traces, o.recording, "diagnose", /*build_when_missing=*/true);
  std::unique_ptr<state::StateStore> baseline_store;
  if (!o.baseline.empty()) {
    RecordingFlags baseline_flags = o.recording;
    baseline_flags.spans = o.baseline_spans;
    baseline_store =
        OpenRecordingStore({o.baseline}, baseline_flags, "diagnose", /*build_when_missing=*/true);
  }
  options.store = store.get();
  options.baseline_store = baseline_store.get();
  auto d = analysis::AnalyzeDiagnosis(o.traces, options);
  if (!d.ok()) return fmt::print(stderr, "causeway diagnose: {}\n", d.status().ToString()), 1;
  const report::BaselineSource source{o.baseline};
  if (o.format == "json") {
    std::puts(report::DiagnosisJson(d->diagnosis, d->view(), source).dump(2).c_str());
  } else {
    const std::string text = report::DiagnosisText(d->diagnosis, d->view(), source);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      return fmt::print(stderr, "causeway diagnose: cannot write the output\n"), 1;
  }
  return 0;
}

}  // namespace

Runner RegisterDiagnose(CLI::App& app) {
  auto o = std::make_shared<DiagnoseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose", "Abnormal requests against their operation's baseline, explained top-down");
  cmd->footer(
      "Per operation (the root span's service and name), a latency baseline: the median and\n"
      "p95 of its normal requests, from a recording given as normal (--baseline DIR: all its\n"
      "requests) or from this one (its requests under 1.5 x the operation's median). A request\n"
      "is abnormal when it is above the baseline's p95 and at least 1.5 x its median; with\n"
      "fewer than 5 baseline requests the verdict is given and said to rest on few.\n\n"
      "Each abnormal request, slowest first, is then explained level by level down its\n"
      "critical path (as `causeway request ID` prints it), every figure beside the mean of\n"
      "the baseline's requests of the same operation:\n"
      "  1 request       its latency against the baseline's median and p95\n"
      "  2 system calls  time on the path by the system call its thread was in (needs a\n"
      "                  recording made with --syscalls and its index); 'not in a syscall'\n"
      "  3 kernel        time by state: RUNNING, PREEMPTED (and who held the CPU),\n"
      "                  BLOCKED(qualifier), BLOCK_QUEUE, BLOCK_DEVICE, NETWORK, TIMER, ...\n"
      "  4 below         block queue wait against device time (and the disks), network,\n"
      "                  page cache misses of the reads of the processes on the path\n"
      "The last line of each walks down: the system call most above normal, the kernel state\n"
      "most above normal inside it, then the block layer or the network below it.\n\n"
      "Examples:\n"
      "  causeway diagnose causeway-demo-out/2026-11-22T10-00-00-disk\n"
      "  causeway diagnose slow-recording --baseline normal-recording --limit 3\n"
      "  causeway diagnose TRACE_DIR --format json | jq '.abnormal[0].summary'");
  cmd->add_option("traces", o->traces, "Trace directories (a recording directory, or its kernel/)")
      ->required();
  AddRecordingFlags(cmd, &o->recording);
  AddIndexFlags(cmd, &o->recording.index);
  cmd->add_option("--baseline", o->baseline,
                  "A recording of normal operation: each operation's baseline is all its "
                  "requests there (default: this recording's own normal requests)");
  cmd->add_option("--baseline-spans", o->baseline_spans,
                  "The baseline recording's span files or directories (default: DIR/spans)");
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--limit", o->limit, "Abnormal requests explained, slowest first (-1: all)")
      ->capture_default_str();
  return [o] { return RunDiagnose(*o); };
}

}  // namespace causeway::cli
