// One request's time on its critical path, level by level from the user-kernel boundary
// down (seed 003 §3.2.4): by system call, by kernel state, then below the kernel (block
// queue vs device, page cache misses, network). README.md.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/cpu_holders.h"
#include "graph/execution_graph.h"
#include "requests/request_analysis.h"
#include "state/state_store.h"

namespace causeway::diagnose {

// The name of the critical path's time outside any system call (user space, or a thread
// whose calls were not recorded).
inline constexpr std::string_view kNotInSyscall = "not in a syscall";

// Names of the level below the kernel.
inline constexpr std::string_view kBlockQueue = "block queue";
inline constexpr std::string_view kBlockDevice = "block device";
inline constexpr std::string_view kNetwork = "network";

struct Amount {
  std::string name;
  int64_t ns = 0;
  bool operator==(const Amount&) const = default;
};

struct SyscallTime {
  std::string name;  // "fsync", or kNotInSyscall
  int64_t ns = 0;
  std::vector<Amount> by_state;  // the kernel states (level 3 names) inside it, largest first
};

struct PageCacheReads {
  bool recorded = false;   // the store has page cache counts for this host
  int64_t pages_read = 0;  // by the processes on the path, while the request ran
  int64_t cache_misses = 0;
};

struct RequestLevels {
  int64_t latency = 0;
  // Level 2: the user-kernel boundary. Without a store that holds system calls, false and
  // empty.
  bool syscalls_recorded = false;
  std::vector<SyscallTime> syscalls;  // largest first, kNotInSyscall included
  // Level 3: time by kernel state along the path ("RUNNING", "PREEMPTED",
  // "BLOCKED(futex)", "BLOCK_DEVICE", ...), largest first; BLOCKED carries its qualifier.
  std::vector<Amount> states;
  graph::CpuWaitSummary cpu_wait;  // of the PREEMPTED time: who held the CPU
  // Level 4: kBlockQueue, kBlockDevice, kNetwork (those with time), largest first; the
  // block time by device ("disk 8:0 sda"), and the page cache reads.
  std::vector<Amount> below;
  std::vector<Amount> devices;
  PageCacheReads page_cache;
};

// What a store says for the levels, over the graph's threads. A null store, or one without
// system calls or page cache counts, answers "not recorded".
class StoreLevels {
 public:
  StoreLevels(const graph::ExecutionGraph& g, const state::StateStore* store);
  bool syscalls_recorded() const { return syscalls_recorded_; }
  bool page_cache_recorded() const { return page_cache_recorded_; }
  // The system calls of thread w over [start, end), in time order, clipped to the range;
  // time in no call is left out.
  struct Call {
    int64_t start = 0, end = 0;
    std::string name;
  };
  std::vector<Call> Syscalls(graph::WorkerId w, int64_t start, int64_t end) const;
  // Whether the store has system calls of thread w at all (a kernel thread makes none).
  bool MakesCalls(graph::WorkerId w) const;
  // Pages read and cache misses of the processes `pids` (of host `host`) over [start, end).
  PageCacheReads Reads(uint32_t host, const std::vector<int32_t>& pids, int64_t start,
                       int64_t end) const;

 private:
  int64_t Delta(std::string_view path, int64_t start, int64_t end) const;

  const graph::ExecutionGraph& g_;
  const state::StateStore* store_;
  bool syscalls_recorded_ = false;
  bool page_cache_recorded_ = false;
};

// The levels of a critical path (a request's RequestDetail::path) of latency `latency`.
// `cpu_wait`: the path's CPU waits (RequestDetail::cpu_wait).
RequestLevels ComputeLevels(const graph::ExecutionGraph& g, std::span<const requests::Piece> path,
                            int64_t latency, const graph::CpuWaitSummary& cpu_wait,
                            const StoreLevels& store);

// Every category of every level as "level/name" -> ns ("syscall/fsync",
// "syscall_state/fsync/BLOCK_DEVICE", "state/BLOCK_DEVICE", "below/block queue",
// "page_cache/cache_misses"...): what baselines average.
std::map<std::string, int64_t> Categories(const RequestLevels& levels);

}  // namespace causeway::diagnose
