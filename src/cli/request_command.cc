// `causeway request TRACE_DIR... ID`: one request's critical path and its causes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/diagnose_analysis.h"
#include "cli/commands.h"
#include "cli/recording_load.h"
#include "report/diagnosis_format.h"
#include "report/request_format.h"
#include "requests/request_analysis.h"

namespace causeway::cli {
namespace {

struct RequestOptions {
  std::vector<std::string> args;  // trace dirs, then the request id
  RecordingFlags recording;
  std::string format = "text";
};

int RunRequest(const RequestOptions& o) {
  if (o.args.size() < 2)
    return fmt::print(stderr,
                      "causeway request: give the trace directories and then the request id "
                      "(causeway request TRACE_DIR... ID)\n"),
           2;
  const std::vector<std::string> traces(o.args.begin(), o.args.end() - 1);
  const std::string& id = o.args.back();
  auto l = LoadRecording(traces, o.recording, /*keep_paths=*/true);
  if (!l.ok()) return fmt::print(stderr, "causeway request: {}\n", l.status().ToString()), 1;
  auto index = requests::FindRequest(l->requests, l->spans, id);
  if (!index.ok())
    return fmt::print(stderr, "causeway request: {}\n", index.status().ToString()), 1;
  const graph::ExecutionGraph& g = l->kernel->graph;
  // The levels of `causeway diagnose`, against the same operation's requests of this
  // recording.
  const std::unique_ptr<state::StateStore> store =
      OpenRecordingStore(traces, o.recording, "request", /*build_when_missing=*/false);
  const analysis::RequestLevelsAnalysis levels =
      analysis::AnalyzeRequestLevels(*l, *index, store.get());
  const diagnose::RecordingView view = analysis::ViewOf(*l, store.get());
  if (o.format == "json") {
    nlohmann::json j = report::RequestJson(g, l->spans, l->requests, *index);
    j["levels"] = report::FindingJson(levels.finding, levels.baseline(), view);
    std::puts(j.dump(2).c_str());
  } else {
    // fwrite, not fputs: the text's length, whatever bytes it holds.
    const std::string text =
        report::RequestText(g, l->spans, l->requests, *index) +
        "\nTop-down, against this recording's normal requests of the same operation:\n" +
        report::FindingText(levels.finding, levels.baseline(), view);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      return fmt::print(stderr, "causeway request: cannot write the output\n"), 1;
  }
  return 0;
}

}  // namespace

Runner RegisterRequest(CLI::App& app) {
  auto o = std::make_shared<RequestOptions>();
  CLI::App* cmd = app.add_subcommand("request", "One request's critical path and its causes");
  cmd->footer(
      "Print one request's critical path through threads and kernel states, each piece with\n"
      "its cause (see `causeway requests --help`), the time by cause, the requests that\n"
      "blocked it and the time spent on each thread. ID: a prefix of the trace id (as\n"
      "`causeway requests` prints it) or the root span id. Then the levels of `causeway\n"
      "diagnose` (see its --help): the request's time by system call, kernel state and below\n"
      "the kernel, beside the mean of this recording's normal requests of its operation.\n\n"
      "Example:\n"
      "  causeway request causeway-demo-out/2026-11-22T10-00-00-lock 4bf92f3577b34da6");
  cmd->add_option("args", o->args, "Trace directories, then the request id")->required();
  AddRecordingFlags(cmd, &o->recording);
  AddIndexFlags(cmd, &o->recording.index);
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [o] { return RunRequest(*o); };
}

}  // namespace causeway::cli
