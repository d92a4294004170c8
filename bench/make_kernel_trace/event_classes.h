// The trace's event classes and their ids, in an lttng-modules-like id order: state dump,
// syscall entries (by syscall number), syscall exits, then tracepoints. Ids >= 31 use the
// extended event header.
#pragma once

#include <cstdint>

#include "ctf/writer/ctf_writer.h"

namespace make_kernel_trace {

// The syscalls the simulated threads make, in syscall-number order.
enum Sys : uint8_t {
  kRead,
  kWrite,
  kClose,
  kNewfstat,
  kPoll,
  kLseek,
  kMmap,
  kMunmap,
  kIoctl,
  kSchedYield,
  kNanosleep,
  kSendto,
  kRecvfrom,
  kClone,
  kExecve,
  kFutex,
  kExitGroup,
  kEpollWait,
  kOpenat,
  kSysCount
};

// The writer's id of each event class.
struct EventIds {
  uint32_t statedump_start, statedump_end, statedump_process_state;
  uint32_t sys_entry[kSysCount], sys_exit[kSysCount];  // sys_exit[kExitGroup]: none
  uint32_t sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
      sched_stat_runtime, sched_process_fork, sched_process_exec, sched_process_exit,
      sched_process_free;
  uint32_t irq_handler_entry, irq_handler_exit, softirq_raise, softirq_entry, softirq_exit;
  uint32_t hrtimer_start, hrtimer_cancel, hrtimer_expire_entry, hrtimer_expire_exit;
  uint32_t block_rq_insert, block_rq_issue, block_rq_complete;
  uint32_t kmalloc, kfree, net_dev_queue, netif_receive_skb, power_cpu_idle, power_cpu_frequency;
};

// Declares every event class with `w` and fills `ids`.
causeway::Status DeclareEventClasses(causeway::ctf::CtfWriter& w, EventIds& ids);

}  // namespace make_kernel_trace
