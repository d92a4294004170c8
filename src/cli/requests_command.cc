// `causeway requests TRACE_DIR...`: spans joined with the kernel traces; every request ranked
// by latency, with what held it back.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/recording_load.h"
#include "cli/report_file.h"
#include "report/request_format.h"
#include "report/request_html.h"

namespace causeway::cli {
namespace {

struct RequestsOptions {
  std::vector<std::string> args;  // trace dirs
  RecordingFlags recording;
  std::string format = "text";
  std::string output;  // --format html: the report file
  long limit = 20;
  long html_limit = -1;  // --format html: all requests unless --limit is given
};

int RunRequests(const RequestsOptions& o) {
  if (o.limit < -1)
    return fmt::print(stderr, "causeway requests: --limit must be -1 (all) or more\n"), 2;
  auto l = LoadRecording(o.args, o.recording, /*keep_paths=*/o.format == "html");
  if (!l.ok()) return fmt::print(stderr, "causeway requests: {}\n", l.status().ToString()), 1;
  const graph::ExecutionGraph& g = l->kernel->graph;
  if (o.format == "html") {
    const std::string path = o.output.empty() ? "causeway-requests.html" : o.output;
    // The report is written as it is made: the memory it takes beyond the analysis (which
    // keeps the requests' paths) is one request's part; its size is bounded.
    const std::vector<size_t> which = ReportRequests(l->requests, o.html_limit);
    if (Status s = CheckReportSize(l->requests, which, "causeway requests --format html"); !s.ok())
      return fmt::print(stderr, "causeway requests: {}\n", s.ToString()), 1;
    auto file = ReportFile::Create(path);
    if (!file.ok())
      return fmt::print(stderr, "causeway requests: {}\n", file.status().ToString()), 1;
    report::WriteRequestsHtml([&](std::string_view bytes) { return file->Write(bytes); }, g,
                              l->spans, l->requests, which, o.args.front());
    if (Status s = file->Commit(); !s.ok())
      return fmt::print(stderr, "causeway requests: cannot write the report: {}\n", s.ToString()),
             1;
    const size_t total = l->requests.requests.size();
    const std::string drawn = which.size() == total ? fmt::format("{}", total)
                                                    : fmt::format("{} of {}", which.size(), total);
    std::printf("HTML report: %s (%s requests)\n", path.c_str(), drawn.c_str());
    return 0;
  }
  if (o.format == "json") {
    if (!report::WriteRequestsJson(stdout, g, l->spans, l->requests, o.limit) ||
        std::fflush(stdout) != 0)
      return fmt::print(stderr, "causeway requests: cannot write the output\n"), 1;
  } else {
    // fwrite, not fputs: the text's length, whatever bytes it holds.
    const std::string text = report::RequestsText(g, l->spans, l->requests, o.limit);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      return fmt::print(stderr, "causeway requests: cannot write the output\n"), 1;
  }
  return 0;
}

}  // namespace

Runner RegisterRequests(CLI::App& app) {
  auto o = std::make_shared<RequestsOptions>();
  CLI::App* cmd =
      app.add_subcommand("requests", "Requests ranked by latency, with what slowed each");
  cmd->footer(
      "Join distributed-tracing spans with the kernel traces of the same recording: every\n"
      "request (a trace's root span) gets the critical path of the thread that ran it, followed\n"
      "through wake-ups and packets into the threads of other services, each piece labelled\n"
      "with a cause: running, preempted (waiting for a CPU), blocked_by_request (the path went\n"
      "through a thread serving another request: lock contention, queues), waiting_for_thread,\n"
      "network, disk, timer, interrupted, blocked, unknown. Spans come from OTLP or Jaeger JSON;\n"
      "when the user-space trace holds jaeger_ust:start_span/end_span events (causeway-client\n"
      "under causeway record) their nanosecond times and threads are used.\n\n"
      "Examples:\n"
      "  causeway requests causeway-demo-out/2026-11-22T10-00-00-lock\n"
      "  causeway requests TRACE_DIR --spans spans.json --limit 5 --format json\n"
      "  causeway requests TRACE_DIR --format html -o report.html   (timeline + pie, offline)");
  cmd->add_option("traces", o->args, "Trace directories (a recording directory, or its kernel/)")
      ->required();
  AddRecordingFlags(cmd, &o->recording);
  AddIndexFlags(cmd, &o->recording.index);
  cmd->add_option("--format", o->format,
                  "Output format; html writes one self-contained report file (-o)")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "The HTML report's file (default: causeway-requests.html)");
  CLI::Option* limit =
      cmd->add_option("--limit", o->limit,
                      "Requests shown, slowest first (-1: all); with --format html, the N "
                      "slowest drawn (default: all)")
          ->capture_default_str();
  return [o, limit] {
    if (limit->count() > 0) o->html_limit = o->limit;
    return RunRequests(*o);
  };
}

}  // namespace causeway::cli
