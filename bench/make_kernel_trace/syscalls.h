// System calls as the kernel traces them: syscall_entry_* and syscall_exit_* with plausible
// arguments, quick ones (entry, some kernel work, exit), blocking ones (the thread sleeps
// and returns when woken: the scheduler's next step for it writes the exit), sleeps on an
// hrtimer, and the kernel's allocations (kmem_kmalloc, kmem_kfree).
#pragma once

#include <cstdint>

#include "make_kernel_trace/action_queue.h"
#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/scheduler.h"
#include "make_kernel_trace/thread_table.h"

namespace make_kernel_trace {

class Syscalls {
 public:
  Syscalls(ThreadTable& threads, ActionQueue& queue, Scheduler& scheduler, Emitter& out,
           const EventIds& ids, Rng& rng)
      : threads_(threads), queue_(queue), scheduler_(scheduler), out_(out), ids_(ids), rng_(rng) {}

  void Entry(Cpu& c, Thread& t, Sys s);
  void Exit(Cpu& c, Thread& t, Sys s, int64_t ret);
  // A syscall that does not block: entry, some kernel work, exit.
  void Quick(Cpu& c, Thread& t, Sys s, int64_t ret);
  // A syscall that blocks: entry, then the thread sleeps; `ret` is what it returns unless
  // the waker says otherwise.
  void Blocking(Cpu& c, Thread& t, Sys s, int64_t state, int64_t ret);
  // Arms t's hrtimer to wake it in `ns` (Ev::kTimerWake).
  void SleepFor(Cpu& c, Thread& t, uint64_t ns);
  void Kmalloc(Cpu& c);
  void Kfree(Cpu& c);

  // The program the next execve entry names.
  void set_exec_path(const char* path) { exec_path_ = path; }

 private:
  const char* OpenPath();

  ThreadTable& threads_;
  ActionQueue& queue_;
  Scheduler& scheduler_;
  Emitter& out_;
  const EventIds& ids_;
  Rng& rng_;
  const char* exec_path_ = "/usr/bin/ls";
};

}  // namespace make_kernel_trace
