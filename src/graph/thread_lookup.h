// Which worker a kernel thread id names: a tid is one worker per host, and several on one
// host when the kernel reused it for a new thread. Spans, activations and the command line
// give threads by tid; the graph knows them as workers.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "graph/execution_graph.h"

namespace causeway::graph {

class ThreadLookup {
 public:
  static constexpr uint32_t kAllHosts = UINT32_MAX;

  // Indexes the workers of `host` (a position in g.hosts()), or of every host.
  ThreadLookup(const ExecutionGraph& g, uint32_t host);

  // The workers that are `tid` and alive at some moment of [begin, end], in worker order.
  std::vector<WorkerId> Find(int32_t tid, int64_t begin, int64_t end) const;
  // The first worker that is `tid` at time `t`, or kNoWorker.
  WorkerId At(int32_t tid, int64_t t) const;
  // How many workers the lookup holds (none: the host has no thread in the graph).
  size_t size() const { return size_; }

 private:
  bool Alive(WorkerId w, int64_t begin, int64_t end) const {
    return g_.worker(w).start() <= end && g_.WorkerEnd(w) >= begin;
  }

  const ExecutionGraph& g_;
  std::unordered_map<int32_t, std::vector<WorkerId>> by_tid_;
  size_t size_ = 0;
};

}  // namespace causeway::graph
