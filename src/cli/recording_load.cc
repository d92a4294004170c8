#include "cli/recording_load.h"

#include <fmt/format.h>

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

}  // namespace causeway::cli
