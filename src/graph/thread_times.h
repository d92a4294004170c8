// Time each thread spent in each state over its own life (its own edges, no resolution):
// what `causeway threads` lists.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/execution_graph.h"

namespace causeway::graph {

struct ThreadTimes {
  WorkerId worker = kNoWorker;
  int64_t start = 0;
  int64_t end = 0;
  int64_t by_state[kNumStates] = {};
};

// One entry per worker, in worker order.
std::vector<ThreadTimes> ComputeThreadTimes(const ExecutionGraph& g);

}  // namespace causeway::graph
