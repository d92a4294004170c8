// `causeway index TRACE_DIR...`: the state store beside the trace (or in --cache), built in
// one pass of the analysis when it is missing, stale or damaged.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/index_analysis.h"
#include "analysis/kernel_analysis_file.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/recording_load.h"
#include "report/critpath_format.h"

namespace causeway::cli {
namespace {

struct IndexOptions {
  std::vector<std::string> traces;
  RecordingFlags recording;
  std::string cache;
  bool force = false;
  std::string format = "text";
};

std::string Megabytes(uint64_t bytes) {
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

int RunIndex(const IndexOptions& o) {
  analysis::IndexSource source;
  source.traces = o.traces;
  source.span_paths = o.recording.spans;
  source.host = o.recording.host;
  source.sync = o.recording.sync.ToOptions();
  const bool json = o.format == "json";
  nlohmann::json j;

  std::string why_rebuilt;  // empty: there was no index
  auto where = analysis::LocateIndex(source.traces, o.cache);
  if (!where.ok()) return fmt::print(stderr, "causeway index: {}\n", where.status().ToString()), 1;
  if (o.force) {
    why_rebuilt = "--force";
  } else {
    analysis::ValidIndex valid = analysis::OpenValidIndex(source, o.cache);
    if (valid.store) {
      // The graph file too, which the other commands load: one removed, damaged or stale
      // beside a valid store is built again with it.
      auto graph = analysis::ReadKernelAnalysisFile(
          where->graph_path, analysis::KernelSourceKey(source.traces, source.sync));
      if (!graph.ok() || !*graph) {
        valid.reason = graph.ok() ? where->graph_path + " is stale" : graph.status().ToString();
        valid.store.reset();
      }
    }
    if (valid.store) {
      const state::StateStore& s = *valid.store;
      if (json) {
        j = {{"status", "up_to_date"},
             {"path", where->store_path},
             {"store_bytes", s.file_bytes()},
             {"intervals", s.num_intervals()},
             {"attributes", s.num_attributes()}};
        std::puts(j.dump(2).c_str());
      } else {
        fmt::print("Index up to date: {} ({}, {} intervals)\n", where->store_path,
                   Megabytes(s.file_bytes()), s.num_intervals());
      }
      return 0;
    }
    if (valid.reason.rfind("no index at ", 0) != 0) {
      why_rebuilt = valid.reason;
      fmt::print(stderr, "causeway index: note: {}; building it again\n", valid.reason);
    }
  }

  std::optional<Progress> progress;
  analysis::IndexBuildOptions options;
  if (StderrIsInteractive()) {
    options.progress = [&progress](uint64_t done, uint64_t total, uint64_t events) {
      if (!progress) progress.emplace("Indexing", total, true);
      progress->Update(done, events);
    };
  }
  options.on_kernel_done = [&progress](const analysis::KernelAnalysis* a) {
    if (progress) progress->Finish();
    if (a && a->clocks.applied) fmt::print(stderr, "{}\n", a->clocks.Note());
  };
  auto build = analysis::BuildIndex(source, *where, options);
  if (progress) progress->Finish();
  if (!build.ok()) return fmt::print(stderr, "causeway index: {}\n", build.status().ToString()), 1;
  const analysis::IndexBuild& b = *build;
  const double ratio =
      b.trace_bytes ? static_cast<double>(b.store_bytes) / static_cast<double>(b.trace_bytes) : 0;
  const double mb_per_s = b.seconds > 0 ? static_cast<double>(b.trace_bytes) / 1e6 / b.seconds : 0;
  if (json) {
    j = {{"status", why_rebuilt.empty() ? "built" : "rebuilt"},
         {"path", where->store_path},
         {"store_bytes", b.store_bytes},
         {"graph_path", where->graph_path},
         {"graph_bytes", b.graph_bytes},
         {"trace_bytes", b.trace_bytes},
         {"store_to_trace", ratio},
         {"intervals", b.intervals},
         {"events", b.events},
         {"threads", b.threads},
         {"requests", b.requests},
         {"with_spans", b.with_spans},
         {"seconds", b.seconds}};
    if (!why_rebuilt.empty()) j["reason"] = why_rebuilt;
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("Index {}: {}\n", why_rebuilt.empty() ? "built" : "rebuilt", where->store_path);
  fmt::print("  {} ({:.1f}% of the {} kernel trace), {} intervals\n", Megabytes(b.store_bytes),
             100 * ratio, Megabytes(b.trace_bytes), b.intervals);
  fmt::print("  {} threads, {}, {:.2f} s ({:.0f} MB/s of trace)\n", b.threads,
             b.with_spans ? fmt::format("{} requests", b.requests) : std::string("no spans"),
             b.seconds, mb_per_s);
  fmt::print("  the kernel analysis for the other commands: {} ({})\n", where->graph_path,
             Megabytes(b.graph_bytes));
  return 0;
}

}  // namespace

Runner RegisterIndex(CLI::App& app) {
  auto o = std::make_shared<IndexOptions>();
  CLI::App* cmd = app.add_subcommand("index", "Build the state store of a recording (its index)");
  cmd->footer(
      "Analyze a recording once and keep the state of every thread, CPU, disk and request\n"
      "over time in a file beside it (TRACE_DIR/.causeway/state.cws, or under --cache DIR):\n"
      "  hosts/<h>/threads/<tid>/state     RUNNING, PREEMPTED, BLOCKED, BLOCK_DEVICE(disk 8:0)...\n"
      "  hosts/<h>/threads/<tid>/syscall   the system call it is in (recorded with --syscalls)\n"
      "  hosts/<h>/threads/<tid>/request   the request it works for (with spans)\n"
      "  hosts/<h>/cpus/<n>/thread, irq    who runs there; the interrupt being handled\n"
      "  hosts/<h>/disks/<M:m>/queued, on_device   block requests waiting and in the device\n"
      "  requests/<id>/cause, thread       along each request's critical path\n"
      "(the full list: docs/cli.md). An index that is up to date is left as it is; one whose\n"
      "trace files, span files or clock options changed since (stale), or that is damaged or\n"
      "of another version, is built again. Spans are those of `causeway requests`: --spans,\n"
      "else TRACE_DIR/spans; without any the index holds the kernel's attributes only.\n\n"
      "Examples:\n"
      "  causeway index ~/recordings/checkout\n"
      "  causeway index ~/recordings/checkout --cache /var/cache/causeway --format json\n"
      "  causeway index TRACE --force          # build it again whatever its state");
  cmd->add_option("traces", o->traces,
                  "Trace directories (a recording, or kernel traces); the index goes beside "
                  "the first")
      ->required();
  AddRecordingFlags(cmd, &o->recording);
  cmd->add_option("--cache", o->cache,
                  "Keep the index under this folder (one subfolder per set of traces) instead "
                  "of beside the trace");
  cmd->add_flag("--force", o->force, "Build the index even when it is up to date");
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [o] { return RunIndex(*o); };
}

}  // namespace causeway::cli
