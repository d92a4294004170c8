// What the simulated threads do: one step of the current thread of a CPU per call, by its
// behaviour (Prof). CPU hogs compute between quick syscalls; I/O threads open, stat, seek
// and read files, sometimes missing the page cache and blocking on the disk; network
// servers wait in epoll_wait for the NIC, receive and send; futex pairs wake each other,
// with timeouts; sleepers nap on hrtimers; shells fork children that may exec, then run a
// while and exit; kworkers allocate and sleep. A thread returning from a blocking syscall
// first writes its exit.
#pragma once

#include <cstdint>
#include <vector>

#include "make_kernel_trace/action_queue.h"
#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/scheduler.h"
#include "make_kernel_trace/syscalls.h"
#include "make_kernel_trace/thread_table.h"

namespace make_kernel_trace {

class Workloads {
 public:
  Workloads(std::vector<Cpu>& cpus, ThreadTable& threads, ActionQueue& queue, NetBacklog& net,
            Scheduler& scheduler, Syscalls& syscalls, Emitter& out, const EventIds& ids, Rng& rng)
      : cpus_(cpus),
        threads_(threads),
        queue_(queue),
        net_(net),
        scheduler_(scheduler),
        syscalls_(syscalls),
        out_(out),
        ids_(ids),
        rng_(rng) {}

  // One step of c's current thread (or, on an idle CPU, the switch to a queued one).
  void RunStep(Cpu& c);

 private:
  void StepHog(Cpu& c, Thread& t);
  void StepIo(Cpu& c, Thread& t);
  void StepNet(Cpu& c, Thread& t);
  void StepFutex(Cpu& c, Thread& t);
  void StepSleeper(Cpu& c, Thread& t);
  void StepShell(Cpu& c, Thread& t);
  void StepChild(Cpu& c, int32_t self);
  void StepKworker(Cpu& c, Thread& t);

  std::vector<Cpu>& cpus_;
  ThreadTable& threads_;
  ActionQueue& queue_;
  NetBacklog& net_;
  Scheduler& scheduler_;
  Syscalls& syscalls_;
  Emitter& out_;
  const EventIds& ids_;
  Rng& rng_;
};

}  // namespace make_kernel_trace
