// What the index takes from the execution graph once the pass has built it: each thread's
// state (as the reports label it, with its qualifier) and name, and each CPU's running
// thread (graph::CpuTimelines). Closed intervals (state::StateWriter::Add), in time order per
// attribute: a tid's threads (a tid reused after an exit) one after the other.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/execution_graph.h"
#include "state/state_store.h"

namespace causeway::index {

struct GraphFeedCounters {
  uint64_t threads = 0;
  uint64_t state_intervals = 0;
  uint64_t cpu_intervals = 0;
};

// The graph's threads by (host, tid), a tid's threads in the order they lived: the order in
// which their attributes' intervals are written.
std::vector<graph::WorkerId> WorkersByThread(const graph::ExecutionGraph& g);

// hosts/<h>/threads/<tid>/state and /name.
void WriteThreadStates(const graph::ExecutionGraph& g, state::StateWriter* writer,
                       GraphFeedCounters* counters);
// hosts/<h>/cpus/<n>/thread: the tid (0 idle); no interval where the task is unknown.
void WriteCpuThreads(const graph::ExecutionGraph& g, state::StateWriter* writer,
                     GraphFeedCounters* counters);

}  // namespace causeway::index
