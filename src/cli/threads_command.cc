// `causeway threads TRACE_DIR...`: every thread with its time per state.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/kernel_load.h"
#include "graph/cpu_holders.h"
#include "graph/path_state_times.h"
#include "graph/thread_times.h"
#include "report/cpu_wait_format.h"
#include "report/critpath_format.h"

namespace causeway::cli {
namespace {

struct ThreadsOptions {
  std::vector<std::string> traces;
  std::string format = "text";
  ClockSyncFlags sync;
  IndexFlags index;
  std::string sort = "running";
  size_t limit = 0;
  bool critical = false;
};

// Threads listed under the table with who held the CPU while they waited for one.
constexpr size_t kCpuWaitLines = 10;

int RunThreads(const ThreadsOptions& o) {
  auto analysis = LoadKernelAnalysis(o.traces, o.sync, o.index);
  if (!analysis.ok())
    return fmt::print(stderr, "causeway threads: {}\n", analysis.status().ToString()), 1;
  const analysis::KernelAnalysis& a = **analysis;
  const graph::ExecutionGraph& g = a.graph;
  std::vector<graph::ThreadTimes> rows = graph::ComputeThreadTimes(g);
  // --critical: each thread's whole life along its critical path, i.e. its waits replaced
  // by what the threads, interrupts and devices that ended them were doing.
  std::vector<graph::ThreadTimes> own;
  if (o.critical) {
    own = rows;
    graph::PathStateTimes path_times(g);
    path_times.ComputeAll();
    for (graph::ThreadTimes& r : rows) {
      const graph::StateTimesArray t = path_times.Of(r.worker, r.start, r.end);
      std::copy(t.begin(), t.end(), r.by_state);
    }
  }
  if (o.sort == "tid") {
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& x, const auto& y) {
      return g.worker(x.worker).tid < g.worker(y.worker).tid;
    });
  } else if (o.sort == "start") {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& x, const auto& y) { return x.start < y.start; });
  } else {
    graph::State key = graph::State::kRunning;
    for (int s = 0; s < graph::kNumStates; ++s)
      if (graph::StateNameLower(static_cast<graph::State>(s)) == o.sort)
        key = static_cast<graph::State>(s);
    const int k = static_cast<int>(key);
    std::stable_sort(rows.begin(), rows.end(),
                     [k](const auto& x, const auto& y) { return x.by_state[k] > y.by_state[k]; });
  }
  const size_t total_threads = rows.size();
  auto own_preempted = [&](const graph::ThreadTimes& r) {
    return (o.critical ? own[r.worker] : r).by_state[static_cast<int>(graph::State::kPreempted)];
  };
  if (o.limit && rows.size() > o.limit) rows.resize(o.limit);

  const kernel::ModelCounters& c = a.counters;
  if (o.format == "json") {
    nlohmann::json j;
    j["hosts"] = g.hosts();
    j["traces"] = a.trace_dirs;
    j["traces_without_kernel_events"] = a.unused_trace_dirs;  // found, not read
    j["begin_ns"] = a.begin;
    j["end_ns"] = a.end;
    j["threads"] = report::ThreadTimesJson(g, rows);
    // Who held the CPU while each listed thread waited for one (its own PREEMPTED time).
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!own_preempted(rows[i])) continue;
      graph::CpuWaitSum sum(g);
      sum.AddThread(rows[i].worker, rows[i].start, rows[i].end);
      j["threads"][i]["cpu_wait"] = report::CpuWaitSummaryJson(g, sum.Take());
    }
    if (o.critical) {
      // by_state stays the thread's own; the critical path's sits beside it.
      for (size_t i = 0; i < rows.size(); ++i) {
        j["threads"][i]["critical_path_by_state"] = j["threads"][i]["by_state"];
        j["threads"][i]["by_state"] = report::StatesJson(own[rows[i].worker].by_state);
      }
    }
    j["graph"] = {{"threads", g.num_workers()},
                  {"vertices", g.num_vertices()},
                  {"links", g.num_links()},
                  {"memory_bytes", g.memory_bytes()}};
    uint64_t discarded = 0;
    for (const auto& s : a.streams) discarded += s.discarded_events;
    j["counters"] = {{"events_read", a.events_read},
                     {"events_used", c.events},
                     {"switches", c.switches},
                     {"wakeups", c.wakeups},
                     {"wakeups_of_runnable", c.wakeups_of_runnable},
                     {"wakeups_unknown_source", c.wakeups_unknown_source},
                     {"wakers_corrected", c.wakers_corrected},
                     {"forks", c.forks},
                     {"exits", c.exits},
                     {"packets_sent", c.packets_sent},
                     {"packets_matched", c.packets_matched},
                     {"packets_expired", c.packets_expired},
                     {"discarded_events", discarded},
                     {"lost_records", c.lost_records},
                     {"lost_window_waits", c.lost_window_waits},
                     {"missing_wakeups", c.missing_wakeups},
                     {"missing_switch_ins", c.missing_switch_ins},
                     {"interrupt_mismatches", c.interrupt_mismatches},
                     {"unnamed_qualifiers", c.unnamed_qualifiers},
                     {"cpu_throttles", c.cpu_throttles}};
    // Block requests matched from their queueing to their completion (kernel_model.h).
    j["counters"]["block_requests_matched"] = c.block.matched;
    j["counters"]["block_completions_unmatched"] = c.block.unmatched;
    j["counters"]["block_waits_split"] = c.block_waits_split;
    j["counters"].update(ClampedTimestampsJson(a));
    std::puts(j.dump(2).c_str());
    return 0;
  }
  if (o.critical)
    std::puts(
        "Time by state along each thread's critical path over its life (its waits "
        "resolved through what ended them):\n");
  std::fputs(report::ThreadTimesText(g, rows).c_str(), stdout);
  // The listed threads that waited longest for a CPU, and who had it meanwhile.
  std::vector<const graph::ThreadTimes*> waiting;
  for (const auto& r : rows)
    if (own_preempted(r) > 0) waiting.push_back(&r);
  std::stable_sort(waiting.begin(), waiting.end(), [&](const auto* x, const auto* y) {
    return own_preempted(*x) > own_preempted(*y);
  });
  if (waiting.size() > kCpuWaitLines) waiting.resize(kCpuWaitLines);
  if (!waiting.empty()) std::puts("\nWaiting for a CPU (own PREEMPTED time), and who had it:");
  const report::WorkerLabel label = [&g](graph::WorkerId w) { return report::ThreadLabel(g, w); };
  for (const auto* r : waiting) {
    graph::CpuWaitSum sum(g);
    sum.AddThread(r->worker, r->start, r->end);
    fmt::print("  {:<32} {:>12}  {}\n", report::ThreadLabel(g, r->worker),
               report::FormatDuration(own_preempted(*r)),
               report::CpuWaitSummaryText(g, sum.Take(), label));
  }
  fmt::print(
      "\n{} threads{} on {} host(s), {} to {} ({}); {} wake-ups, {} of {} TCP segments "
      "matched\n",
      total_threads, rows.size() < total_threads ? fmt::format(" ({} shown)", rows.size()) : "",
      g.hosts().size(), report::FormatTimestamp(a.begin), report::FormatTimestamp(a.end),
      report::FormatDuration(a.end - a.begin), c.wakeups, c.packets_matched, c.packets_sent);
  const std::string note = RepairNote(a);
  if (!note.empty()) std::fputs(note.c_str(), stdout);
  if (!a.unused_trace_dirs.empty())
    fmt::print("Not read: {} trace(s) without kernel events (user space)\n",
               a.unused_trace_dirs.size());
  return 0;
}

}  // namespace

Runner RegisterThreads(CLI::App& app) {
  auto o = std::make_shared<ThreadsOptions>();
  CLI::App* cmd = app.add_subcommand("threads", "List threads with their time per state");
  cmd->footer(
      "Build the execution graph of kernel traces and list every thread with the time it\n"
      "spent running, waiting for a CPU (PREEMPTED), blocked, and waiting on timers, the\n"
      "network, disks; UNKNOWN is time the trace cannot account for (lost events). Use a\n"
      "tid from this list with `causeway critpath --tid`. Given a recording directory, the\n"
      "user-space traces beside the kernel's are found but not read (no kernel events).\n\n"
      "With --critical the times are those of each thread's critical path over its life:\n"
      "every wait that another thread, an interrupt or a packet ended is replaced by what\n"
      "held it back (computed for all threads at once, without walking the paths), so\n"
      "--sort network lists the threads the network delayed most.\n\n"
      "Examples:\n"
      "  causeway threads ~/lttng-traces/session/kernel --limit 20\n"
      "  causeway threads TRACE --critical --sort preempted --limit 10\n"
      "  causeway threads TRACE --sort blocked --format json");
  cmd->add_option("traces", o->traces,
                  "Trace directories (a directory holding `metadata`, or a parent of several)")
      ->required();
  AddClockSyncFlags(cmd, &o->sync);
  AddIndexFlags(cmd, &o->index);
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--sort", o->sort,
                  "Order: a state (running, preempted, blocked, ...), tid, start")
      ->check(CLI::IsMember({"running", "preempted", "blocked", "interrupted", "timer", "network",
                             "block_device", "ipi", "unknown", "block_queue", "tid", "start"}))
      ->capture_default_str();
  cmd->add_option("--limit", o->limit, "Show at most this many threads (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--critical", o->critical,
                "Time by state along each thread's critical path instead of its own");
  return [o] { return RunThreads(*o); };
}

}  // namespace causeway::cli
