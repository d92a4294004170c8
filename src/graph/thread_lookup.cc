#include "graph/thread_lookup.h"

namespace causeway::graph {

ThreadLookup::ThreadLookup(const ExecutionGraph& g, uint32_t host) : g_(g) {
  for (WorkerId w = 0; w < g.num_workers(); ++w) {
    if (host != kAllHosts && g.worker(w).host != host) continue;
    by_tid_[g.worker(w).tid].push_back(w);
    ++size_;
  }
}

std::vector<WorkerId> ThreadLookup::Find(int32_t tid, int64_t begin, int64_t end) const {
  std::vector<WorkerId> out;
  auto it = by_tid_.find(tid);
  if (it == by_tid_.end()) return out;
  for (WorkerId w : it->second)
    if (Alive(w, begin, end)) out.push_back(w);
  return out;
}

WorkerId ThreadLookup::At(int32_t tid, int64_t t) const {
  auto it = by_tid_.find(tid);
  if (it == by_tid_.end()) return kNoWorker;
  for (WorkerId w : it->second)
    if (Alive(w, t, t)) return w;
  return kNoWorker;
}

}  // namespace causeway::graph
