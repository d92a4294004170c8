// `causeway export TRACE_DIR... -o FILE`: spans and requests' critical paths as Chrome Trace
// Event JSON, for Perfetto UI.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/recording_load.h"
#include "cli/report_file.h"
#include "report/chrome_trace.h"
#include "report/request_format.h"

namespace causeway::cli {
namespace {

struct ExportOptions {
  std::vector<std::string> args;  // trace dirs
  RecordingFlags recording;
  std::string output;
  long limit = -1;
};

int RunExport(const ExportOptions& o) {
  if (o.output.empty()) return fmt::print(stderr, "causeway export: give -o FILE\n"), 2;
  if (o.limit < -1)
    return fmt::print(stderr, "causeway export: --limit must be -1 (all) or more\n"), 2;
  auto l = LoadRecording(o.args, o.recording, /*keep_paths=*/true);
  if (!l.ok()) return fmt::print(stderr, "causeway export: {}\n", l.status().ToString()), 1;
  // Written an event at a time: the memory beyond the analysis (which keeps the requests'
  // paths) is one event's; the number of path pieces is bounded.
  const std::vector<size_t> which = ReportRequests(l->requests, o.limit);
  if (Status s = CheckReportSize(l->requests, which, "causeway export"); !s.ok())
    return fmt::print(stderr, "causeway export: {}\n", s.ToString()), 1;
  auto file = ReportFile::Create(o.output);
  if (!file.ok()) return fmt::print(stderr, "causeway export: {}\n", file.status().ToString()), 1;
  report::WriteChromeTrace([&](std::string_view bytes) { return file->Write(bytes); },
                           l->kernel->graph, l->spans, l->requests, which);
  if (Status s = file->Commit(); !s.ok())
    return fmt::print(stderr, "causeway export: {}\n", s.ToString()), 1;
  const size_t total = l->requests.requests.size();
  const std::string drawn =
      which.size() == total ? fmt::format("{} requests", total)
                            : fmt::format("the paths of {} of {} requests", which.size(), total);
  std::printf(
      "Chrome trace: %s (%zu spans, %s; open it in https://ui.perfetto.dev or chrome://tracing)\n",
      o.output.c_str(), l->spans.spans.size(), drawn.c_str());
  std::fputs(report::DataRepairText(l->requests).c_str(), stdout);
  return 0;
}

}  // namespace

Runner RegisterExport(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd =
      app.add_subcommand("export", "Spans and requests' critical paths for Perfetto UI");
  cmd->footer(
      "Write Chrome Trace Event JSON, which Perfetto UI and chrome://tracing open: the spans\n"
      "as slices per service and thread, each request's critical path as a track of slices\n"
      "named by cause, the path's pieces on the threads that ran them, and the wake-ups and\n"
      "packets it followed as flow arrows.\n\n"
      "Example:\n"
      "  causeway export causeway-demo-out/2026-11-22T10-00-00-lock --format chrome -o trace.json");
  cmd->add_option("traces", o->args, "Trace directories (a recording directory, or its kernel/)")
      ->required();
  AddRecordingFlags(cmd, &o->recording);
  AddIndexFlags(cmd, &o->recording.index);
  auto format = std::make_shared<std::string>("chrome");  // the one format
  cmd->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"chrome"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "The file to write")->required();
  cmd->add_option("--limit", o->limit,
                  "Critical paths drawn: the N slowest requests' (-1: all; every span is written)")
      ->capture_default_str();
  return [o, format] { return RunExport(*o); };
}

}  // namespace causeway::cli
