#include "graph/thread_times.h"

namespace causeway::graph {

std::vector<ThreadTimes> ComputeThreadTimes(const ExecutionGraph& g) {
  std::vector<ThreadTimes> out(g.num_workers());
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    const Worker& k = g.worker(w);
    ThreadTimes& t = out[w];
    t.worker = w;
    t.start = k.start();
    t.end = g.WorkerEnd(w);
    for (size_t v = 0; v < k.size(); ++v) {
      const State s = k.state(v);
      if (s == State::kNone) break;
      t.by_state[static_cast<int>(s)] += g.EdgeEnd(w, v) - k.ts[v];
    }
  }
  return out;
}

}  // namespace causeway::graph
