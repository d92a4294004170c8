#include "make_kernel_trace/event_classes.h"

#include <string>
#include <vector>

#include "kernel/lttng_kernel_layout.h"

namespace make_kernel_trace {
namespace {

using causeway::Status;
using causeway::ctf::CtfWriter;
using causeway::ctf::FieldKind;
using causeway::ctf::FieldSpec;
using causeway::kernel::LttngDeclaration;
using causeway::kernel::LttngEvent;

constexpr const char* kSysNames[kSysCount] = {
    "read",   "write", "close",       "newfstat",   "poll",   "lseek",    "mmap",
    "munmap", "ioctl", "sched_yield", "nanosleep",  "sendto", "recvfrom", "clone",
    "execve", "futex", "exit_group",  "epoll_wait", "openat"};

constexpr FieldKind U16 = FieldKind::kU16, U32 = FieldKind::kU32, U64 = FieldKind::kU64,
                    S32 = FieldKind::kS32, S64 = FieldKind::kS64, HEX = FieldKind::kHex64,
                    STR = FieldKind::kString, COMM = FieldKind::kCharArray16;

std::vector<FieldSpec> SysEntryFields(Sys s) {
  switch (s) {
    case kRead:
      return {{"fd", U32}, {"count", U64}};
    case kWrite:
      return {{"fd", U32}, {"buf", U64}, {"count", U64}};
    case kClose:
      return {{"fd", U32}};
    case kNewfstat:
      return {{"fd", U32}};
    case kPoll:
      return {{"ufds", U64}, {"nfds", U32}, {"timeout_msecs", S32}};
    case kLseek:
      return {{"fd", U32}, {"offset", S64}, {"whence", U32}};
    case kMmap:
      return {{"addr", HEX},  {"len", U64}, {"prot", S32},
              {"flags", S32}, {"fd", S32},  {"offset", S64}};
    case kMunmap:
      return {{"addr", U64}, {"len", U64}};
    case kIoctl:
      return {{"fd", U32}, {"cmd", U32}, {"arg", U64}};
    case kSchedYield:
      return {};
    case kNanosleep:
      return {{"rqtp", U64}};
    case kSendto:
      return {{"fd", S32},    {"buff", U64}, {"len", U64},
              {"flags", U32}, {"addr", U64}, {"addr_len", S32}};
    case kRecvfrom:
      return {{"fd", S32}, {"size", U64}, {"flags", U32}, {"addr_len", U64}};
    case kClone:
      return {{"clone_flags", HEX}, {"newsp", HEX}, {"parent_tid", HEX}, {"child_tid", HEX}};
    case kExecve:
      return {{"filename", STR}, {"argv", HEX}, {"envp", HEX}};
    case kFutex:
      return {{"uaddr", U64}, {"op", S32},     {"val", U32},
              {"utime", U64}, {"uaddr2", U64}, {"val3", U32}};
    case kExitGroup:
      return {{"error_code", S32}};
    case kEpollWait:
      return {{"epfd", S32}, {"maxevents", S32}, {"timeout", S32}};
    case kOpenat:
      return {{"dfd", S32}, {"filename", STR}, {"flags", S32}, {"mode", U16}};
    case kSysCount:
      break;
  }
  return {};
}

std::vector<FieldSpec> SysExitFields(Sys s) {
  switch (s) {
    case kRead:
      return {{"ret", S64}, {"buf", U64}};
    case kNewfstat:
      return {{"ret", S64}, {"statbuf", U64}};
    case kPoll:
      return {{"ret", S64}, {"ufds", U64}};
    case kIoctl:
      return {{"ret", S64}, {"arg", U64}};
    case kNanosleep:
      return {{"ret", S64}, {"rmtp", U64}};
    case kRecvfrom:
      return {{"ret", S64}, {"ubuf", U64}, {"addr", U64}, {"addr_len", U64}};
    case kFutex:
      return {{"ret", S64}, {"uaddr", U64}, {"uaddr2", U64}};
    case kEpollWait:
      return {{"ret", S64}, {"events", U64}};
    default:
      return {{"ret", S64}};
  }
}

}  // namespace

Status DeclareEventClasses(CtfWriter& w, EventIds& ids) {
  auto add = [&](uint32_t& id, std::string name, std::vector<FieldSpec> fields) -> Status {
    auto r = w.AddEventClass(std::move(name), std::move(fields));
    if (!r.ok()) return r.status();
    id = *r;
    return Status::Ok();
  };
#define ADD(id, name, ...) RETURN_IF_ERROR(add(id, name, __VA_ARGS__))
  // Events the recorder writes too are declared as it declares them
  // (kernel/lttng_kernel_layout.h). The others, and those where lttng-modules 2.8 has fields
  // the recorder leaves out or names otherwise (the statedump's namespace fields, fork's
  // ns_inum, block_rq_complete's `errors`, net events without the TCP header), are declared
  // as lttng-modules 2.8 writes them.
  auto lttng = [](LttngEvent e) -> const std::vector<FieldSpec>& {
    return LttngDeclaration(e).fields;
  };
#define ADD_LTTNG(id, e) ADD(id, LttngDeclaration(e).name, lttng(e))
  ADD(ids.statedump_end, "lttng_statedump_end", {});
  ADD(ids.statedump_start, "lttng_statedump_start", {});
  ADD(ids.statedump_process_state, "lttng_statedump_process_state",
      {{"tid", S32},
       {"vtid", S32},
       {"pid", S32},
       {"vpid", S32},
       {"ppid", S32},
       {"vppid", S32},
       {"name", COMM},
       {"type", S32},
       {"mode", S32},
       {"submode", S32},
       {"status", S32},
       {"ns_level", S32},
       {"ns_inum", U32}});
  for (int s = 0; s < kSysCount; ++s)
    ADD(ids.sys_entry[s], std::string("syscall_entry_") + kSysNames[s], SysEntryFields(Sys(s)));
  for (int s = 0; s < kSysCount; ++s) {
    if (s == kExitGroup) {
      ids.sys_exit[s] = UINT32_MAX;  // exit_group does not return
      continue;
    }
    ADD(ids.sys_exit[s], std::string("syscall_exit_") + kSysNames[s], SysExitFields(Sys(s)));
  }
  const std::vector<FieldSpec>& task = lttng(LttngEvent::kSchedProcessExit);
  const std::vector<FieldSpec>& wake = lttng(LttngEvent::kSchedWaking);
  ADD(ids.power_cpu_frequency, "power_cpu_frequency", {{"state", U32}, {"cpu_id", U32}});
  ADD(ids.power_cpu_idle, "power_cpu_idle", {{"state", U32}, {"cpu_id", U32}});
  ADD(ids.netif_receive_skb, "netif_receive_skb", {{"skbaddr", HEX}, {"len", U32}, {"name", STR}});
  ADD(ids.net_dev_queue, "net_dev_queue", {{"skbaddr", HEX}, {"len", U32}, {"name", STR}});
  ADD(ids.kfree, "kmem_kfree", {{"call_site", HEX}, {"ptr", HEX}});
  ADD(ids.kmalloc, "kmem_kmalloc",
      {{"call_site", HEX},
       {"ptr", HEX},
       {"bytes_req", U64},
       {"bytes_alloc", U64},
       {"gfp_flags", U32}});
  ADD(ids.block_rq_complete, "block_rq_complete",
      {{"dev", U32}, {"sector", U64}, {"nr_sector", U32}, {"errors", S32}, {"rwbs", U32}});
  ADD_LTTNG(ids.block_rq_issue, LttngEvent::kBlockRqIssue);
  ADD(ids.block_rq_insert, "block_rq_insert", lttng(LttngEvent::kBlockRqIssue));
  ADD_LTTNG(ids.hrtimer_expire_exit, LttngEvent::kHrtimerExpireExit);
  ADD_LTTNG(ids.hrtimer_expire_entry, LttngEvent::kHrtimerExpireEntry);
  ADD(ids.hrtimer_cancel, "timer_hrtimer_cancel", {{"hrtimer", HEX}});
  ADD(ids.hrtimer_start, "timer_hrtimer_start",
      {{"hrtimer", HEX}, {"function", HEX}, {"expires", S64}, {"softexpires", S64}});
  ADD_LTTNG(ids.softirq_exit, LttngEvent::kSoftirqExit);
  ADD_LTTNG(ids.softirq_entry, LttngEvent::kSoftirqEntry);
  ADD(ids.softirq_raise, "irq_softirq_raise", {{"vec", U32}});
  ADD_LTTNG(ids.irq_handler_exit, LttngEvent::kIrqHandlerExit);
  ADD_LTTNG(ids.irq_handler_entry, LttngEvent::kIrqHandlerEntry);
  ADD_LTTNG(ids.sched_wakeup_new, LttngEvent::kSchedWakeupNew);
  ADD(ids.sched_wakeup, "sched_wakeup", wake);
  ADD(ids.sched_process_free, "sched_process_free", task);
  ADD_LTTNG(ids.sched_process_exit, LttngEvent::kSchedProcessExit);
  ADD_LTTNG(ids.sched_process_exec, LttngEvent::kSchedProcessExec);
  ADD(ids.sched_process_fork, "sched_process_fork",
      {{"parent_comm", COMM},
       {"parent_tid", S32},
       {"parent_pid", S32},
       {"parent_ns_inum", U32},
       {"child_comm", COMM},
       {"child_tid", S32},
       {"child_pid", S32},
       {"child_ns_inum", U32}});
  ADD(ids.sched_stat_runtime, "sched_stat_runtime",
      {{"comm", COMM}, {"tid", S32}, {"runtime", U64}, {"vruntime", U64}});
  ADD(ids.sched_migrate_task, "sched_migrate_task",
      {{"comm", COMM}, {"tid", S32}, {"prio", S32}, {"orig_cpu", S32}, {"dest_cpu", S32}});
  ADD_LTTNG(ids.sched_waking, LttngEvent::kSchedWaking);
  ADD_LTTNG(ids.sched_switch, LttngEvent::kSchedSwitch);
#undef ADD_LTTNG
#undef ADD
  return Status::Ok();
}

}  // namespace make_kernel_trace
