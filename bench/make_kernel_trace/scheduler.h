// The scheduler core: per CPU a run queue and an idle task (the swapper). It switches
// threads in and out (sched_switch, power_cpu_idle), wakes blocked threads onto an awake,
// preferably idle CPU (sched_waking, sched_wakeup, sched_migrate_task), starts the tick of a
// busy CPU, sends idle CPUs into deep sleep now and then, and schedules the current thread's
// next step.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "make_kernel_trace/action_queue.h"
#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/thread_table.h"

namespace make_kernel_trace {

class Scheduler {
 public:
  Scheduler(std::vector<Cpu>& cpus, ThreadTable& threads, ActionQueue& queue, Emitter& out,
            const EventIds& ids, Rng& rng)
      : cpus_(cpus), threads_(threads), queue_(queue), out_(out), ids_(ids), rng_(rng) {}

  // c's current thread takes its next step at t.
  void ScheduleRun(Cpu& c, uint64_t t);
  // Runs c's current thread's steps (`step`) for an Ev::kRun action. The CPU keeps going
  // without a trip through the queue while its next step comes before anything else.
  void RunSteps(Cpu& c, const std::function<void(Cpu&)>& step);

  int32_t PopRq(Cpu& c);
  // Switches c to `next`, the previous current thread having been left in `prev_state`.
  void SwitchTo(Cpu& c, int32_t next, int64_t prev_state, bool emit = true);
  void StartTick(Cpu& c);
  // The current thread stops running (blocks or exits); the next runnable one, or the
  // idle task, takes the CPU.
  void Deschedule(Cpu& c, int64_t state);

  bool Asleep(const Cpu& c, uint64_t now) const { return c.deep_idle_until > now; }
  // `preferred` if awake, else the next awake CPU after it.
  uint32_t AwakeCpu(uint32_t preferred, uint64_t now) const;

  // The waker, running on c, makes thread i runnable; it returns `ret` from its syscall.
  void Wake(Cpu& c, int32_t i, int64_t ret);
  // Thread i joins target's run queue; an idle target is kicked.
  void Enqueue(Cpu& waker, int32_t i, uint32_t target);

 private:
  void MaybeDeepIdle(Cpu& c);

  std::vector<Cpu>& cpus_;
  ThreadTable& threads_;
  ActionQueue& queue_;
  Emitter& out_;
  const EventIds& ids_;
  Rng& rng_;
  Cpu* active_ = nullptr;  // the CPU inside RunSteps
  bool deferred_ = false;  // its next step, deferred to RunSteps
  uint64_t deferred_t_ = 0;
  uint32_t deferred_gen_ = 0;
};

}  // namespace make_kernel_trace
