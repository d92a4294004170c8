// Who held the CPU while a thread waited for one (a PREEMPTED stretch: preempted, or woken
// and not yet running), and whether its cgroup's CPU quota was what kept it off.
//
// The CPU a wait is for is the one the thread was switched in on when the wait ended (the
// run queue it ended in), else the one it was switched out from when the wait began.
// Over the asked range, the CPU's timeline (cpu_timelines.h) gives who ran there and for
// how long; the idle task counts as a holder (a CPU idle while a thread waits for it is
// the mark of a throttled cgroup, or of a thread that moved). Computed on demand, for the
// segments a report shows: a binary search per CPU of the host and a walk over the
// switches inside the range.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/critical_path.h"
#include "graph/execution_graph.h"

namespace causeway::graph {

// The prefix of the PREEMPTED qualifier the kernel model gives a thread switched out by
// CFS bandwidth control: "throttled by cgroup quota (/demo)".
inline constexpr std::string_view kThrottledPrefix = "throttled by cgroup quota";
bool IsThrottled(const ExecutionGraph& g, StringId qualifier);

struct CpuHolder {
  WorkerId task = kUnknownTask;  // a worker, kIdleTask or kUnknownTask
  int64_t ns = 0;
};

struct CpuWait {
  int32_t cpu = -1;                // the CPU waited for; -1 when the timelines do not say
  std::vector<CpuHolder> holders;  // largest first
  StringId throttled = 0;  // the wait's qualifier when its cgroup was throttled (IsThrottled)
};

// The holders of the CPU `w` waited for over [start, end), which must lie inside one of its
// PREEMPTED edges; at most `top` of them.
CpuWait WhoHeldTheCpu(const ExecutionGraph& g, WorkerId w, int64_t start, int64_t end,
                      size_t top = 2);

// Many waits summed up (a request's, a thread's, a path's): how long, how much of it
// throttled, and the CPU holders, largest first.
struct CpuWaitSummary {
  int64_t ns = 0;            // the waits' total
  int64_t throttled_ns = 0;  // of it, throttled by a cgroup's quota
  StringId throttled = 0;    // the qualifier of the longest throttled part
  std::vector<CpuHolder> held_by;
};

class CpuWaitSum {
 public:
  explicit CpuWaitSum(const ExecutionGraph& g) : g_(g) {}
  // One wait of `w` over [start, end) (inside a PREEMPTED edge).
  void Add(WorkerId w, int64_t start, int64_t end);
  // Every PREEMPTED edge of `w` over [start, end).
  void AddThread(WorkerId w, int64_t start, int64_t end);
  CpuWaitSummary Take(size_t top = 2);

 private:
  const ExecutionGraph& g_;
  CpuWaitSummary sum_;
  std::vector<std::pair<StringId, int64_t>> throttled_;
};

}  // namespace causeway::graph
