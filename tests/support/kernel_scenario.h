// A small DSL for kernel scenarios: events in, execution graph and critical paths out.
//
// One event per line, in time order (lines are sorted by time, stably):
//   TS cpuN switch PREV[:name] [R|S|D|X] -> NEXT[:name]   (prev_state: R runnable, S/D
//                                                         blocked, X dead; default S)
//   TS cpuN waking TID          TS cpuN wakeup_new TID
//   TS cpuN fork PARENT -> CHILD[:name] [pid P]   TS cpuN exec TID FILENAME   TS cpuN exit TID
//   TS cpuN statedump TID NAME STATUS [pid P]
//   TS cpuN irq_entry IRQ NAME  |  irq_exit IRQ
//   TS cpuN softirq_entry VEC   |  softirq_exit VEC
//   TS cpuN hrtimer_entry | hrtimer_exit | ipi_entry NAME | ipi_exit
//   TS cpuN send SEQ ACK FLAGS  |  recv SEQ ACK FLAGS
//   TS cpuN block_complete DEV
//   TS cpuN lost COUNT END_TS
//   TS cpuN flags HARDIRQ|SOFTIRQ waking TID      (perf-style context flags, no irq events)
//   TS cpuN as TID VERB ...     (perf-style current task of the event: perf_tid)
//   host NAME                   (the following lines are that host's; default "A")
//   end TS                      (end of the analysis; default: the last event)
// '#' starts a comment.
#pragma once

#include <memory>
#include <string>

#include "graph/critical_path.h"
#include "graph/execution_graph.h"
#include "kernel/kernel_model.h"

namespace causeway::testing {

// "tid@start-end STATE[(qualifier)]" per segment of w's critical path, " | " between them,
// times relative to `origin`; tids of other hosts are written host/tid when the graph has
// several hosts.
std::string PathString(const graph::ExecutionGraph& g, graph::WorkerId w, int64_t begin = INT64_MIN,
                       int64_t end = INT64_MAX, int64_t origin = 0);

// Checks (ADD_FAILURE) that graph::PathStateTimes gives the time by state of `expected`
// (the path of w over [begin, end] by CriticalPathFinder): alone, and after every worker's
// whole-life times, so that the range reuses the sums stored for other paths.
void ExpectPathStateTimesEqual(const graph::ExecutionGraph& g, graph::WorkerId w, int64_t begin,
                               int64_t end, const graph::CriticalPath& expected);

class KernelScenario {
 public:
  // Parses and runs `script`; a malformed line fails the calling test (ADD_FAILURE).
  // `max_qualifiers`: the graph's qualifier limit (ExecutionGraph's constructor).
  explicit KernelScenario(const std::string& script,
                          uint32_t max_qualifiers = graph::ExecutionGraph::kMaxQualifiers);

  const graph::ExecutionGraph& graph() const { return graph_; }
  const kernel::ModelCounters& counters() const { return model_->counters(); }
  // The worker of (host, tid) alive at the end, or of that tid's last thread.
  graph::WorkerId Worker(int tid, const std::string& host = "A") const;

  // "T STATE[(qualifier)][<-tid]" per vertex, " | " between them: the worker's timeline
  // with its in-links (<-tid wake-up, <=tid packet, <~tid fork).
  std::string Timeline(int tid, const std::string& host = "A") const;
  // "tid@start-end STATE[(qualifier)]" per segment, " | " between them; tids of other
  // hosts are written host/tid.
  std::string Path(int tid, int64_t begin = INT64_MIN, int64_t end = INT64_MAX,
                   const std::string& host = "A") const;
  // "from->to@ts kind" per link.
  std::string Links(int tid, int64_t begin = INT64_MIN, int64_t end = INT64_MAX,
                    const std::string& host = "A") const;

 private:
  uint32_t HostId(const std::string& name);
  std::string Who(graph::WorkerId w) const;

  graph::ExecutionGraph graph_;
  std::unique_ptr<kernel::KernelModel> model_;
  std::vector<std::string> host_names_;
  std::vector<std::string> strings_;  // names referenced by events until processed
};

}  // namespace causeway::testing
