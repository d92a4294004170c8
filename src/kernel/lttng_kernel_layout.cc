#include "kernel/lttng_kernel_layout.h"

#include <utility>

#include "kernel/syscall_names.h"

namespace causeway::kernel {

namespace {

using ctf::FieldKind;
using ctf::FieldSpec;

// lttng-modules 2.x instrumentation/events/*.h, with the fields the kernel model reads.
std::vector<LttngEventClass> MakeDeclarations() {
  const FieldKind c16 = FieldKind::kCharArray16, s32 = FieldKind::kS32, u32 = FieldKind::kU32;
  const FieldKind str = FieldKind::kString, s64 = FieldKind::kS64, hex = FieldKind::kHex64;
  const std::vector<FieldSpec> wakeup = {
      {"comm", c16}, {"tid", s32}, {"prio", s32}, {"target_cpu", s32}};
  // LTTng's net events with the TCP header's fields at the top level, as its network addon
  // writes them (seq, ack_seq and flags are what packet matching keys on).
  const std::vector<FieldSpec> net = {{"skbaddr", hex},
                                      {"len", u32},
                                      {"name", str},
                                      {"family", FieldKind::kU8},
                                      {"saddr", str},
                                      {"daddr", str},
                                      {"sport", FieldKind::kU16},
                                      {"dport", FieldKind::kU16},
                                      {"seq", u32},
                                      {"ack_seq", u32},
                                      {"flags", FieldKind::kU8},
                                      {"window", FieldKind::kU16},
                                      {"payload_len", u32}};
  std::vector<LttngEventClass> d(kLttngEventCount);
  auto set = [&](LttngEvent e, std::string name, std::vector<FieldSpec> fields) {
    d[static_cast<int>(e)] = {std::move(name), std::move(fields)};
  };
  set(LttngEvent::kSchedSwitch, "sched_switch",
      {{"prev_comm", c16},
       {"prev_tid", s32},
       {"prev_prio", s32},
       {"prev_state", s64},
       {"next_comm", c16},
       {"next_tid", s32},
       {"next_prio", s32}});
  set(LttngEvent::kSchedWaking, "sched_waking", wakeup);
  set(LttngEvent::kSchedWakeupNew, "sched_wakeup_new", wakeup);
  set(LttngEvent::kSchedProcessFork, "sched_process_fork",
      {{"parent_comm", c16},
       {"parent_tid", s32},
       {"parent_pid", s32},
       {"child_comm", c16},
       {"child_tid", s32},
       {"child_pid", s32}});
  set(LttngEvent::kSchedProcessExec, "sched_process_exec",
      {{"filename", str}, {"tid", s32}, {"old_tid", s32}});
  set(LttngEvent::kSchedProcessExit, "sched_process_exit",
      {{"comm", c16}, {"tid", s32}, {"prio", s32}});
  set(LttngEvent::kStatedumpProcessState, "lttng_statedump_process_state",
      {{"tid", s32}, {"pid", s32}, {"ppid", s32}, {"name", c16}, {"status", s32}, {"cpu", s32}});
  set(LttngEvent::kIrqHandlerEntry, "irq_handler_entry", {{"irq", s32}, {"name", str}});
  set(LttngEvent::kIrqHandlerExit, "irq_handler_exit", {{"irq", s32}, {"ret", s32}});
  set(LttngEvent::kSoftirqEntry, "irq_softirq_entry", {{"vec", u32}});
  set(LttngEvent::kSoftirqExit, "irq_softirq_exit", {{"vec", u32}});
  set(LttngEvent::kHrtimerExpireEntry, "timer_hrtimer_expire_entry",
      {{"hrtimer", hex}, {"now", s64}, {"function", hex}});
  set(LttngEvent::kHrtimerExpireExit, "timer_hrtimer_expire_exit", {{"hrtimer", hex}});
  const std::vector<FieldSpec> block_rq = {{"dev", u32},       {"sector", FieldKind::kU64},
                                           {"nr_sector", u32}, {"bytes", u32},
                                           {"tid", s32},       {"rwbs", u32},
                                           {"comm", c16}};
  set(LttngEvent::kBlockRqIssue, "block_rq_issue", block_rq);
  set(LttngEvent::kBlockRqInsert, "block_rq_insert", block_rq);
  set(LttngEvent::kBlockBioQueue, "block_bio_queue",
      {{"dev", u32},
       {"sector", FieldKind::kU64},
       {"nr_sector", u32},
       {"rwbs", u32},
       {"tid", s32},
       {"comm", c16},
       {"throttled", FieldKind::kU8}});
  set(LttngEvent::kBlockRqComplete, "block_rq_complete",
      {{"dev", u32},
       {"sector", FieldKind::kU64},
       {"nr_sector", u32},
       {"error", s32},
       {"rwbs", u32}});
  set(LttngEvent::kNetDevQueue, "net_dev_queue", net);
  set(LttngEvent::kNetifReceiveSkb, "netif_receive_skb", net);
  // The id is an enumeration labelled with the syscalls' names (readers that only want the
  // number read it as the integer it is).
  set(LttngEvent::kSyscallEntry, "syscall_entry", {{"id", s64, SyscallNames()}});
  set(LttngEvent::kSyscallExit, "syscall_exit", {{"id", s64, SyscallNames()}, {"ret", s64}});
  // direction: 0 received by the thread (stamped at the receive's end), 1 sent (at the
  // send's start). Addresses as in the socket: IPv4 in the first 4 bytes.
  set(LttngEvent::kHttpMessage, "http_message",
      {{"tid", s32},
       {"pid", s32},
       {"direction", FieldKind::kU8},
       {"family", FieldKind::kU8},
       {"laddr", FieldKind::kBytes16},
       {"raddr", FieldKind::kBytes16},
       {"lport", FieldKind::kU16},
       {"rport", FieldKind::kU16},
       {"size", FieldKind::kU64},
       {"captured", FieldKind::kU16},
       {"truncated", FieldKind::kU8},
       {"first_line", str},
       {"traceparent", str},
       {"b3", str},
       {"uber_trace_id", str}});
  set(LttngEvent::kSchedCfsThrottle, "sched_cfs_throttle",
      {{"tid", s32}, {"cgroup_id", FieldKind::kU64}, {"cgroup", str}});
  // The kernel's own tracepoints print dev, ino, index (and pfn, order); ours add the task
  // and give a folio's pages as a range.
  const FieldKind u64 = FieldKind::kU64;
  const std::vector<FieldSpec> folio = {{"tid", s32},
                                        {"pid", s32},
                                        {"dev", u32},
                                        {"ino", u64},
                                        {"index", u64},
                                        {"last_index", u64},
                                        {"write", FieldKind::kU8}};
  set(LttngEvent::kMmFilemapAddToPageCache, "mm_filemap_add_to_page_cache", folio);
  set(LttngEvent::kMmFilemapDeleteFromPageCache, "mm_filemap_delete_from_page_cache",
      {folio.begin(), folio.end() - 1});
  set(LttngEvent::kMmFilemapGetPages, "mm_filemap_get_pages", {folio.begin(), folio.end() - 1});
  set(LttngEvent::kMmFilemapFault, "mm_filemap_fault", {folio.begin(), folio.end() - 2});
  return d;
}

}  // namespace

const LttngEventClass& LttngDeclaration(LttngEvent e) {
  static const std::vector<LttngEventClass> declarations = MakeDeclarations();
  return declarations[static_cast<int>(e)];
}

StatusOr<uint32_t> DeclareLttngEvent(ctf::CtfWriter& w, LttngEvent e) {
  const LttngEventClass& c = LttngDeclaration(e);
  return w.AddEventClass(c.name, c.fields);
}

StatusOr<LttngEventIds> DeclareLttngKernelEvents(ctf::CtfWriter& w, bool syscalls) {
  LttngEventIds ids;
  for (int i = 0; i < kLttngEventCount; ++i) {
    const LttngEvent e = static_cast<LttngEvent>(i);
    if (!syscalls && (e == LttngEvent::kSyscallEntry || e == LttngEvent::kSyscallExit)) continue;
    ASSIGN_OR_RETURN(ids[e], DeclareLttngEvent(w, e));
  }
  return ids;
}

}  // namespace causeway::kernel
