// Who ran on each CPU: the sched_switch history the kernel model already walks, kept per
// host and CPU as the times the CPU changed hands and the worker that got it. It answers
// "who held the CPU while this thread waited for it" (cpu_holders.h) without re-reading
// the trace; it is not used to build the graph.
//
// Storage is struct-of-arrays per CPU: 8 bytes of timestamp and 4 bytes of worker per
// switch that changes the CPU's task, appended in the CPU's event order (timestamps
// non-decreasing).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace causeway::graph {

// A CPU's task: a uint32_t of the execution graph (whose header includes this one), or one
// of these holders that are no thread.
inline constexpr uint32_t kIdleTask = UINT32_MAX - 1;  // the idle task (tid 0)
inline constexpr uint32_t kUnknownTask = UINT32_MAX;   // not known (lost events): kNoWorker

struct CpuTimeline {
  std::vector<int64_t> ts;     // when the CPU changed hands
  std::vector<uint32_t> task;  // who got it then: a worker, kIdleTask or kUnknownTask
};

class CpuTimelines {
 public:
  // `task` runs on (host, cpu) from `ts`. Repeats of the current task are not stored.
  void Record(uint32_t host, int32_t cpu, int64_t ts, uint32_t task) {
    if (cpu < 0 || cpu > 65535) return;
    if (host >= hosts_.size()) hosts_.resize(host + 1);
    std::vector<CpuTimeline>& cpus = hosts_[host];
    if (static_cast<size_t>(cpu) >= cpus.size()) cpus.resize(cpu + 1);
    CpuTimeline& t = cpus[cpu];
    if (!t.task.empty() && t.task.back() == task) return;
    t.ts.push_back(t.ts.empty() ? ts : std::max(ts, t.ts.back()));
    t.task.push_back(task);
  }
  size_t num_hosts() const { return hosts_.size(); }
  size_t num_cpus(uint32_t host) const { return host < hosts_.size() ? hosts_[host].size() : 0; }
  const CpuTimeline& cpu(uint32_t host, int32_t cpu) const { return hosts_[host][cpu]; }
  uint64_t memory_bytes() const;
  void ShrinkToFit();
  // Restoring (graph/graph_file.h): the whole timeline of (host, cpu), read back.
  void Adopt(uint32_t host, uint32_t cpu, CpuTimeline t) {
    if (host >= hosts_.size()) hosts_.resize(host + 1);
    if (cpu >= hosts_[host].size()) hosts_[host].resize(cpu + 1);
    hosts_[host][cpu] = std::move(t);
  }

 private:
  std::vector<std::vector<CpuTimeline>> hosts_;
};

}  // namespace causeway::graph
