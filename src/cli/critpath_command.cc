// `causeway critpath TRACE_DIR... --tid N`: the critical path of one thread.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/critpath_analysis.h"
#include "cli/commands.h"
#include "cli/kernel_load.h"
#include "cli/time_arg.h"
#include "report/critpath_format.h"

namespace causeway::cli {
namespace {

struct CritpathOptions {
  std::vector<std::string> traces;
  int tid = -1;
  std::string host;
  std::string begin, end;
  std::string format = "text";
  ClockSyncFlags sync;
  IndexFlags index;
};

int RunCritpath(const CritpathOptions& o) {
  analysis::ThreadPathQuery q;
  q.tid = o.tid;
  q.host = o.host;
  if (!o.begin.empty()) {
    auto t = ParseTimeArg(o.begin);
    if (!t.ok())
      return fmt::print(stderr, "causeway critpath: --begin: {}\n", t.status().ToString()), 2;
    q.begin = static_cast<int64_t>(*t);
  }
  if (!o.end.empty()) {
    auto t = ParseTimeArg(o.end);
    if (!t.ok())
      return fmt::print(stderr, "causeway critpath: --end: {}\n", t.status().ToString()), 2;
    q.end = static_cast<int64_t>(*t);
  }
  if (q.begin.value_or(INT64_MIN) > q.end.value_or(INT64_MAX))
    return fmt::print(stderr, "causeway critpath: --begin is after --end\n"), 2;

  auto analysis = LoadKernelAnalysis(o.traces, o.sync, o.index);
  if (!analysis.ok())
    return fmt::print(stderr, "causeway critpath: {}\n", analysis.status().ToString()), 1;
  const graph::ExecutionGraph& g = (*analysis)->graph;
  auto p = analysis::AnalyzeThreadPath(g, q);
  // An ambiguous tid is a usage error: the user has to say which thread.
  if (!p.ok())
    return fmt::print(stderr, "causeway critpath: {}\n", p.status().ToString()),
           p.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
  if (o.format == "json") {
    nlohmann::json j = report::CriticalPathJson(g, p->path, p->summary);
    uint64_t discarded = 0;
    for (const auto& s : (*analysis)->streams) discarded += s.discarded_events;
    j["counters"] = ClampedTimestampsJson(**analysis);
    j["counters"]["discarded_events"] = discarded;
    j["counters"]["lost_window_waits"] = (*analysis)->counters.lost_window_waits;
    std::puts(j.dump(2).c_str());
  } else {
    std::fputs(report::CriticalPathText(g, p->path, p->summary).c_str(), stdout);
    const std::string note = RepairNote(**analysis);
    if (!note.empty()) std::fputs(("\n" + note).c_str(), stdout);
  }
  return 0;
}

}  // namespace

Runner RegisterCritpath(CLI::App& app) {
  auto o = std::make_shared<CritpathOptions>();
  CLI::App* cmd = app.add_subcommand("critpath", "Critical path of a thread: what it waited for");
  cmd->footer(
      "Build the execution graph of kernel traces (scheduling, wake-ups, interrupts, TCP\n"
      "segments) and print the critical path of one thread: for each moment of its life (or\n"
      "of --begin/--end) the thread and state that held it back. A wait ended by another\n"
      "thread is replaced by what that thread did meanwhile, recursively; waits on timers,\n"
      "disks and unmatched interrupts keep their label; lost events show as UNKNOWN.\n"
      "States: RUNNING, PREEMPTED (waiting for a CPU), BLOCKED, INTERRUPTED, TIMER, NETWORK,\n"
      "BLOCK_QUEUE (a disk request queued or throttled), BLOCK_DEVICE (on the device), IPI,\n"
      "UNKNOWN. Several hosts' traces can be given together.\n\n"
      "Examples:\n"
      "  causeway critpath ~/lttng-traces/session/kernel --tid 1234\n"
      "  causeway critpath TRACE --tid 1234 --begin 1457113582.80 --end 1457113582.90 "
      "--format json");
  cmd->add_option("traces", o->traces,
                  "Trace directories (a directory holding `metadata`, or a parent of several)")
      ->required();
  cmd->add_option("--tid", o->tid, "Thread id (as the kernel numbers it)")->required();
  cmd->add_option("--host", o->host,
                  "Host name (trace env hostname) when several hosts have the tid");
  cmd->add_option("--begin", o->begin,
                  "Start of the range (ns, or seconds.fraction, from the clock origin)");
  cmd->add_option("--end", o->end, "End of the range (same units as --begin)");
  AddClockSyncFlags(cmd, &o->sync);
  AddIndexFlags(cmd, &o->index);
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [o] { return RunCritpath(*o); };
}

}  // namespace causeway::cli
