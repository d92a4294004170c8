#include "cli/recording_load.h"

#include <fmt/format.h>

#include "analysis/index_analysis.h"
#include "analysis/index_location.h"

namespace causeway::cli {

void AddRecordingFlags(CLI::App* cmd, RecordingFlags* flags) {
  cmd->add_option("--spans", flags->spans,
                  "Span files or directories (OTLP JSON, Jaeger JSON; default: TRACE_DIR/spans)");
  AddClockSyncFlags(cmd, &flags->sync);
  cmd->add_option("--host", flags->host,
                  "The host whose threads ran the spans (default: the first)");
}

analysis::RecordingAnalysisOptions RecordingOptions(const RecordingFlags& flags, bool keep_paths,
                                                    KernelAnalysisDisplay* display) {
  analysis::RecordingAnalysisOptions options;
  options.span_paths = flags.spans;
  options.host = flags.host;
  options.keep_paths = keep_paths;
  options.kernel = display->Options(flags.sync, flags.index);
  options.on_kernel_done = [display](const analysis::KernelAnalysis* a) { display->Done(a); };
  options.on_spans_read = [](const spans::SpanSet& s) {
    for (const std::string& w : s.warnings) fmt::print(stderr, "causeway: warning: {}\n", w);
  };
  return options;
}

StatusOr<analysis::RecordingAnalysis> LoadRecording(const std::vector<std::string>& traces,
                                                    const RecordingFlags& flags, bool keep_paths) {
  KernelAnalysisDisplay display;
  return analysis::AnalyzeRecording(traces, RecordingOptions(flags, keep_paths, &display));
}

std::unique_ptr<state::StateStore> OpenRecordingStore(const std::vector<std::string>& traces,
                                                      const RecordingFlags& flags,
                                                      const char* command,
                                                      bool build_when_missing) {
  if (flags.index.no_index) return nullptr;
  analysis::IndexSource source;
  source.traces = traces;
  source.span_paths = flags.spans;
  source.host = flags.host;
  source.sync = flags.sync.ToOptions();
  analysis::ValidIndex valid = analysis::OpenValidIndex(source, flags.index.cache);
  if (valid.store) return std::move(valid.store);
  if (!build_when_missing) {
    // No index at all is the usual case and not worth a line; a stale or damaged one is.
    if (valid.reason.rfind("no index at ", 0) == 0) return nullptr;
    fmt::print(stderr,
               "causeway {}: note: {}: no system call or page cache level (`causeway index` "
               "builds it)\n",
               command, valid.reason);
    return nullptr;
  }
  auto where = analysis::LocateIndex(traces, flags.index.cache);
  if (!where.ok()) {
    fmt::print(stderr, "causeway {}: note: no index ({}): no system call or page cache level\n",
               command, where.status().ToString());
    return nullptr;
  }
  fmt::print(stderr, "causeway {}: note: {}: building the index in {} (--no-index skips it)\n",
             command, valid.reason, where->dir);
  auto built = analysis::BuildIndex(source, *where);
  if (!built.ok()) {
    fmt::print(stderr,
               "causeway {}: note: cannot build the index ({}): no system call or page cache "
               "level\n",
               command, built.status().ToString());
    return nullptr;
  }
  valid = analysis::OpenValidIndex(source, flags.index.cache);
  if (!valid.store)
    fmt::print(stderr, "causeway {}: note: the index just built cannot be used: {}\n", command,
               valid.reason);
  return std::move(valid.store);
}

}  // namespace causeway::cli
