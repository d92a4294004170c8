// The simulated machine's state: its threads and CPUs, and the kernel constants that its
// events carry. Threads are named by their index in the ThreadTable; each CPU keeps its own
// clock, which only moves forward.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string_view>

namespace make_kernel_trace {

// What a thread does when it runs (workloads.h); kIdle is a CPU's swapper.
enum class Prof : uint8_t { kIdle, kHog, kIo, kNet, kFutex, kSleeper, kShell, kChild, kKworker };
enum class TState : uint8_t { kRunning, kRunnable, kBlocked, kDead };

struct Thread {
  int32_t tid = 0, pid = 0, ppid = 0, prio = 20;
  char comm[16] = {};
  Prof prof = Prof::kHog;
  TState state = TState::kRunnable;
  uint32_t cpu = 0;
  int8_t pending = -1;  // syscall to return from when next run
  int64_t pending_ret = 0;
  int32_t partner = -1;   // futex pair
  uint32_t wake_gen = 0;  // invalidates timer wakeups after another wakeup
  uint32_t step = 0;      // position in the behaviour's cycle
  int32_t life = 0;       // children: actions left
  uint64_t uaddr = 0;     // futex word / misc address
  uint64_t hrtimer = 0;   // its sleep timer
  uint64_t io_sector = 0;
  uint32_t io_nr = 0;
  uint64_t vruntime = 0;
  uint64_t run_start = 0;  // when it was switched in
  bool in_epoll = false;

  std::string_view Comm() const { return {comm, 16}; }
  void SetComm(std::string_view s) {
    std::memset(comm, 0, sizeof(comm));
    std::memcpy(comm, s.data(), std::min<size_t>(s.size(), 15));
  }
};

struct Cpu {
  uint32_t id = 0;
  uint64_t now = 0;
  int32_t current = -1;  // thread index; the swapper when idle
  int32_t swapper = -1;
  std::deque<int32_t> rq;
  uint32_t run_gen = 0;
  bool kick_pending = false;
  bool tick_on = false;
  uint32_t tick_gen = 0;
  uint64_t deep_idle_until = 0;
  uint64_t tick_timer = 0;
  uint64_t drop_left = 0;   // --lost: events still to drop
  uint64_t until_drop = 0;  // --lost: kept events before the next burst of drops
  uint64_t lost = 0;
};

// The NIC's side of the network servers: threads waiting in epoll_wait, and packets that
// arrived while none waited.
struct NetBacklog {
  std::deque<int32_t> waiters;
  uint32_t packets = 0;
};

constexpr uint64_t kUs = 1000, kMs = 1000 * kUs;
constexpr int64_t kTaskRunning = 0, kTaskInterruptible = 1, kTaskUninterruptible = 2,
                  kTaskDead = 64;
constexpr uint32_t kSoftirqTimer = 1, kSoftirqNetTx = 2, kSoftirqNetRx = 3, kSoftirqBlock = 4,
                   kSoftirqSched = 7, kSoftirqRcu = 9;
constexpr uint64_t kFnTickSched = 0xffffffff810f1c30ULL, kFnHrtimerWakeup = 0xffffffff810e3a90ULL;
constexpr int kMaxChildren = 64;

}  // namespace make_kernel_trace
