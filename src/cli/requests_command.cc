// `causeway requests TRACE_DIR...` and `causeway request TRACE_DIR... ID`: spans joined with
// the kernel traces; each request's critical path and what held it back.
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/kernel_load.h"
#include "report/chrome_trace.h"
#include "report/request_format.h"
#include "report/request_html.h"
#include "requests/request_analysis.h"
#include "spans/span_reader.h"

namespace causeway::cli {
namespace {

namespace fs = std::filesystem;

struct RequestsOptions {
  std::vector<std::string> args;  // trace dirs (and, for `request`, the id last)
  std::vector<std::string> spans;
  std::string host;
  std::string format = "text";
  std::string output;  // --format html: the report file
  long limit = 20;
  ClockSyncFlags sync;
};

// Where `causeway record` + causeway-client put the spans: DIR/spans beside DIR/kernel.
std::vector<std::string> DefaultSpans(const std::vector<std::string>& traces) {
  std::vector<std::string> out;
  for (const std::string& t : traces) {
    for (const fs::path& p : {fs::path(t) / "spans", fs::path(t).parent_path() / "spans"}) {
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        out.push_back(p.string());
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Loaded {
  std::unique_ptr<analysis::KernelAnalysis> kernel;
  spans::SpanSet spans;
  requests::RequestAnalysis requests;
};

// `keep_paths`: whether each request's critical path is kept after its summary is made (the
// HTML report, one request's report and the export draw them; the listings do not).
StatusOr<Loaded> Load(const std::vector<std::string>& traces, const RequestsOptions& o,
                      bool keep_paths) {
  std::vector<std::string> span_paths = o.spans.empty() ? DefaultSpans(traces) : o.spans;
  if (span_paths.empty())
    return NotFound(
        "No spans: give --spans FILE_OR_DIR (OTLP or Jaeger JSON); under `causeway record`, "
        "causeway-client writes them to TRACE_DIR/spans");
  Loaded l;
  // The span files and the user-space sync events are read on a second thread while this
  // one reads the kernel trace (which leaves that thread's CPU to it): they need nothing
  // from each other until the clock transforms are applied. The future's destructor joins
  // the thread on every return.
  struct SideRead {
    StatusOr<spans::SpanSet> spans;
    StatusOr<spans::SyncEvents> sync;
  };
  std::future<SideRead> side =
      std::async(std::launch::async | std::launch::deferred, [&span_paths, &traces] {
        // The sync events first: their reader's buffers (a chunk per stream of each
        // user-space trace) are then freed while the kernel graph is still small, and the
        // spans reuse that memory, instead of the buffers adding to the graph's and the
        // spans' peak (8 MB on a 10,000-request recording).
        StatusOr<spans::SyncEvents> sync = spans::ReadSyncEvents(traces);
        return SideRead{spans::ReadSpanFiles(span_paths), std::move(sync)};
      });
  auto kernel = LoadKernelAnalysis(traces, o.sync);
  SideRead read = side.get();
  RETURN_IF_ERROR(kernel.status());
  l.kernel = std::move(*kernel);
  RETURN_IF_ERROR(read.spans.status());
  RETURN_IF_ERROR(read.sync.status());
  l.spans = std::move(*read.spans);
  for (const std::string& w : l.spans.warnings) fmt::print(stderr, "causeway: warning: {}\n", w);
  // Spans in the kernel graph's timebase: sync events through the same transforms, and
  // spans without them (their own times, on the --host's clock) through that host's.
  const std::map<std::string, ClockTransform> transforms = l.kernel->clocks.Transforms();
  spans::ApplySyncEvents(*read.sync, &l.spans, transforms);
  // Applied: free them before the analysis, whose peak they would otherwise add to (20 MB
  // on a 10,000-request recording).
  read.sync = spans::SyncEvents{};
  const std::string span_host =
      !o.host.empty() ? o.host
                      : (l.kernel->graph.hosts().empty() ? "" : l.kernel->graph.hosts().front());
  if (auto it = transforms.find(span_host); it != transforms.end())
    spans::TransformUnsynced(it->second, &l.spans);
  requests::RequestOptions ro;
  ro.host = o.host;
  ro.keep_paths = keep_paths;
  // The listings (no paths kept) show each request's root span only: the others are let go
  // before the paths are computed.
  ASSIGN_OR_RETURN(l.requests, keep_paths ? requests::AnalyzeRequests(l.kernel->graph, l.spans, ro)
                                          : requests::AnalyzeRequestsRootSpansOnly(l.kernel->graph,
                                                                                   &l.spans, ro));
  for (const auto& s : l.kernel->streams) l.requests.kernel_events_discarded += s.discarded_events;
  return l;
}

int RunRequests(const RequestsOptions& o) {
  if (o.limit < -1)
    return fmt::print(stderr, "causeway requests: --limit must be -1 (all) or more\n"), 2;
  auto l = Load(o.args, o, /*keep_paths=*/o.format == "html");
  if (!l.ok()) return fmt::print(stderr, "causeway requests: {}\n", l.status().ToString()), 1;
  const graph::ExecutionGraph& g = l->kernel->graph;
  if (o.format == "html") {
    const std::string path = o.output.empty() ? "causeway-requests.html" : o.output;
    FILE* f = std::fopen(path.c_str(), "w");
    const std::string html = report::RequestsHtml(g, l->spans, l->requests, o.args.front());
    if (!f || std::fwrite(html.data(), 1, html.size(), f) != html.size() || std::fclose(f) != 0)
      return fmt::print(stderr, "causeway requests: cannot write the report {}\n", path), 1;
    std::printf("HTML report: %s (%zu requests)\n", path.c_str(), l->requests.requests.size());
    return 0;
  }
  if (o.format == "json") {
    if (!report::WriteRequestsJson(stdout, g, l->spans, l->requests, o.limit) ||
        std::fflush(stdout) != 0)
      return fmt::print(stderr, "causeway requests: cannot write the output\n"), 1;
  } else {
    std::fputs(report::RequestsText(g, l->spans, l->requests, o.limit).c_str(), stdout);
  }
  return 0;
}

int RunRequest(const RequestsOptions& o) {
  if (o.args.size() < 2)
    return fmt::print(stderr,
                      "causeway request: give the trace directories and then the request id "
                      "(causeway request TRACE_DIR... ID)\n"),
           2;
  const std::vector<std::string> traces(o.args.begin(), o.args.end() - 1);
  const std::string& id = o.args.back();
  auto l = Load(traces, o, /*keep_paths=*/true);
  if (!l.ok()) return fmt::print(stderr, "causeway request: {}\n", l.status().ToString()), 1;
  auto index = requests::FindRequest(l->requests, l->spans, id);
  if (!index.ok())
    return fmt::print(stderr, "causeway request: {}\n", index.status().ToString()), 1;
  const graph::ExecutionGraph& g = l->kernel->graph;
  if (o.format == "json") {
    std::puts(report::RequestJson(g, l->spans, l->requests, *index).dump(2).c_str());
  } else {
    std::fputs(report::RequestText(g, l->spans, l->requests, *index).c_str(), stdout);
  }
  return 0;
}

void AddCommon(CLI::App* cmd, RequestsOptions* o, bool html) {
  cmd->add_option("--spans", o->spans,
                  "Span files or directories (OTLP JSON, Jaeger JSON; default: TRACE_DIR/spans)");
  AddClockSyncFlags(cmd, &o->sync);
  cmd->add_option("--host", o->host, "The host whose threads ran the spans (default: the first)");
  if (html) {
    cmd->add_option("--format", o->format,
                    "Output format; html writes one self-contained report file (-o)")
        ->check(CLI::IsMember({"text", "json", "html"}))
        ->capture_default_str();
    cmd->add_option("-o,--output", o->output,
                    "The HTML report's file (default: causeway-requests.html)");
  } else {
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  }
}

int RunExport(const RequestsOptions& o) {
  if (o.output.empty()) return fmt::print(stderr, "causeway export: give -o FILE\n"), 2;
  auto l = Load(o.args, o, /*keep_paths=*/true);
  if (!l.ok()) return fmt::print(stderr, "causeway export: {}\n", l.status().ToString()), 1;
  const std::string out = report::ChromeTrace(l->kernel->graph, l->spans, l->requests).dump();
  FILE* f = std::fopen(o.output.c_str(), "w");
  if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fclose(f) != 0)
    return fmt::print(stderr, "causeway export: cannot write {}\n", o.output), 1;
  std::printf(
      "Chrome trace: %s (%zu spans, %zu requests; open it in https://ui.perfetto.dev or "
      "chrome://tracing)\n",
      o.output.c_str(), l->spans.spans.size(), l->requests.requests.size());
  return 0;
}

}  // namespace

Runner RegisterExport(CLI::App& app) {
  auto o = std::make_shared<RequestsOptions>();
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
  cmd->add_option("--spans", o->spans,
                  "Span files or directories (OTLP JSON, Jaeger JSON; default: TRACE_DIR/spans)");
  AddClockSyncFlags(cmd, &o->sync);
  cmd->add_option("--host", o->host, "The host whose threads ran the spans (default: the first)");
  auto format = std::make_shared<std::string>("chrome");  // the one format, for now
  cmd->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"chrome"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "The file to write")->required();
  return [o, format] { return RunExport(*o); };
}

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
  AddCommon(cmd, o.get(), /*html=*/true);
  cmd->add_option("--limit", o->limit, "Requests shown, slowest first (-1: all)")
      ->capture_default_str();
  return [o] { return RunRequests(*o); };
}

Runner RegisterRequest(CLI::App& app) {
  auto o = std::make_shared<RequestsOptions>();
  CLI::App* cmd = app.add_subcommand("request", "One request's critical path and its causes");
  cmd->footer(
      "Print one request's critical path through threads and kernel states, each piece with\n"
      "its cause (see `causeway requests --help`), the time by cause, the requests that\n"
      "blocked it and the time spent on each thread. ID: a prefix of the trace id (as\n"
      "`causeway requests` prints it) or the root span id.\n\n"
      "Example:\n"
      "  causeway request causeway-demo-out/2026-11-22T10-00-00-lock 4bf92f3577b34da6");
  cmd->add_option("args", o->args, "Trace directories, then the request id")->required();
  AddCommon(cmd, o.get(), /*html=*/false);
  return [o] { return RunRequest(*o); };
}

}  // namespace causeway::cli
