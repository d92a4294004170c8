// A small discrete-event simulation of a Linux machine that writes its kernel trace: the
// CPUs and threads (kernel_model.h, thread_table.h), the timeline of pending actions
// (action_queue.h), and the parts that act on them, each drawing from one Rng: the
// scheduler, the syscalls, the threads' workloads, interrupts and timers, and the event
// emitter that stamps and writes (or, with --lost, drops) what they do. Run takes the
// earliest action, advances its CPU's clock to it and hands it to the part that owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ctf/writer/ctf_writer.h"
#include "make_kernel_trace/action_queue.h"
#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/interrupts.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/scheduler.h"
#include "make_kernel_trace/syscalls.h"
#include "make_kernel_trace/thread_table.h"
#include "make_kernel_trace/workloads.h"

namespace make_kernel_trace {

class Machine {
 public:
  // `ids` are the classes DeclareEventClasses declared with `w`.
  Machine(causeway::ctf::CtfWriter& w, const EventIds& ids, uint32_t ncpus, uint64_t seed,
          bool lost);

  // Writes until `target_bytes` of stream data; with `rotate_bytes`, calls `rotate` each
  // time that many more have been written (between events, as `lttng rotate` cuts).
  void Run(uint64_t target_bytes, uint64_t rotate_bytes = 0,
           const std::function<void()>& rotate = {});

  // Events dropped with --lost.
  uint64_t lost() const;

 private:
  causeway::ctf::CtfWriter& w_;
  const EventIds& ids_;
  // Constructed in this order: the CPUs' clocks and the first tid are the first draws.
  Rng rng_;
  std::vector<Cpu> cpus_;
  ThreadTable threads_;
  ActionQueue queue_;
  NetBacklog net_;
  Emitter out_;
  Scheduler scheduler_;
  Syscalls syscalls_;
  Workloads workloads_;
  Interrupts interrupts_;
};

}  // namespace make_kernel_trace
