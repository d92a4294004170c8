// The simulation's timeline: timed actions (a thread's next step, a tick, an interrupt, a
// timer, a dead task to free, a CPU waking from deep idle), taken in time order. Ties go by
// CPU, kind and argument, so the order never depends on the queue's implementation.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace make_kernel_trace {

enum class Ev : uint8_t { kRun, kTick, kDiskIrq, kNetIrq, kTimerWake, kFree, kIdleEnd };

// A timed action, 16 bytes: bits = cpu (8) | ev (3) | arg (21) | gen (32).
struct Pending {
  uint64_t t;
  uint64_t bits;
  uint32_t cpu() const { return static_cast<uint32_t>(bits >> 56); }
  Ev ev() const { return static_cast<Ev>((bits >> 53) & 7); }
  int32_t arg() const { return static_cast<int32_t>((bits >> 32) & 0x1fffff); }
  uint32_t gen() const { return static_cast<uint32_t>(bits); }
  bool operator>(const Pending& o) const { return t != o.t ? t > o.t : bits > o.bits; }
};

class ActionQueue {
 public:
  // `gen` lets the owner ignore an action made stale since (a later Push of the same kind).
  void Push(uint64_t t, uint32_t cpu, Ev ev, uint32_t gen, int32_t arg) {
    queue_.push(Pending{
        t, uint64_t{cpu} << 56 | uint64_t(ev) << 53 | uint64_t(arg & 0x1fffff) << 32 | gen});
  }
  bool empty() const { return queue_.empty(); }
  const Pending& top() const { return queue_.top(); }
  Pending Pop() {
    Pending p = queue_.top();
    queue_.pop();
    return p;
  }

 private:
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> queue_;
};

}  // namespace make_kernel_trace
