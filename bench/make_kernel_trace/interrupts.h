// Interrupts and timers: the scheduler tick (hrtimer, sched_stat_runtime, timer and RCU
// softirqs, frequency changes, preemption of a thread that used its slice), disk and NIC
// interrupts that wake the threads waiting on them, hrtimer wakeups, the freeing of dead
// children, and the tick that restarts when a CPU leaves deep idle.
#pragma once

#include <cstdint>
#include <vector>

#include "make_kernel_trace/action_queue.h"
#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/scheduler.h"
#include "make_kernel_trace/thread_table.h"

namespace make_kernel_trace {

class Interrupts {
 public:
  Interrupts(std::vector<Cpu>& cpus, ThreadTable& threads, ActionQueue& queue, NetBacklog& net,
             Scheduler& scheduler, Emitter& out, const EventIds& ids, Rng& rng)
      : cpus_(cpus),
        threads_(threads),
        queue_(queue),
        net_(net),
        scheduler_(scheduler),
        out_(out),
        ids_(ids),
        rng_(rng) {}

  void Tick(Cpu& c);
  // The disk finished thread i's read.
  void DiskIrq(Cpu& c, int32_t i);
  // Packets arrived; the next interrupt is queued.
  void NetIrq(Cpu& c);
  // Thread i's hrtimer fired, unless another wakeup came first (`gen`).
  void TimerWake(Cpu& c, int32_t i, uint32_t gen);
  void ProcessFree(Cpu& c, int32_t i);
  void IdleEnd(Cpu& c);

 private:
  void Softirq(Cpu& c, uint32_t vec);
  void IrqEntry(Cpu& c, int32_t irq, const char* name, uint32_t vec);

  std::vector<Cpu>& cpus_;
  ThreadTable& threads_;
  ActionQueue& queue_;
  NetBacklog& net_;
  Scheduler& scheduler_;
  Emitter& out_;
  const EventIds& ids_;
  Rng& rng_;
};

}  // namespace make_kernel_trace
