#include "graph/cpu_timelines.h"

namespace causeway::graph {

uint64_t CpuTimelines::memory_bytes() const {
  uint64_t n = hosts_.capacity() * sizeof(hosts_[0]);
  for (const auto& cpus : hosts_) {
    n += cpus.capacity() * sizeof(CpuTimeline);
    for (const CpuTimeline& t : cpus) n += t.ts.capacity() * 8 + t.task.capacity() * 4;
  }
  return n;
}

void CpuTimelines::ShrinkToFit() {
  for (auto& cpus : hosts_)
    for (CpuTimeline& t : cpus) {
      t.ts.shrink_to_fit();
      t.task.shrink_to_fit();
    }
}

}  // namespace causeway::graph
