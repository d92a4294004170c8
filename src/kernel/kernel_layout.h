// Maps the event classes of CTF kernel traces to KernelEvents.
//
// One table entry per event class of the reader (Event::class_index), built once from the
// class name and its fields, so converting an event costs a table lookup and a few field
// loads, with no string comparison. Understood layouts:
//   - LTTng 2.x kernel (lttng-modules): sched_switch, sched_waking / sched_wakeup /
//     sched_wakeup_new / sched_ttwu, sched_process_fork/exec/exit,
//     lttng_statedump_process_state, irq_handler_entry/exit, softirq_entry/exit (2.7+:
//     irq_softirq_*), hrtimer_expire_entry/exit (2.7+: timer_hrtimer_*),
//     x86_irq_vectors_*_entry/exit, inet_sock_local_out/in, net_dev_queue /
//     netif_receive_skb / net_if_receive_skb (TCP fields at the top level or inside the
//     network_header variant), block_bio_queue / block_rq_insert / block_rq_issue /
//     block_rq_complete (dev, sector), syscall_entry_<name> / syscall_exit_<name> (when
//     asked for); and the same names from Causeway's recorder (syscall_entry / _exit by id);
//     block_rq_complete (dev, sector); and the same names from Causeway's
//     recorder, with its page cache events mm_filemap_add_to_page_cache /
//     delete_from_page_cache / get_pages / fault (tid, pid, dev, ino, page range);
//   - perf's `perf data convert --to-ctf`: the same tracepoints with a "subsystem:" prefix,
//     pid-named fields (prev_pid, next_pid, pid, child_pid, parent_pid), the current task in
//     perf_tid and the interrupt context in common_flags; raw_syscalls:sys_enter / sys_exit.
// When a trace has sched_waking, sched_wakeup is ignored (waking fires in the waker's
// context; wakeup may fire on the target's CPU).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "kernel/kernel_event.h"

namespace causeway::kernel {

struct KernelLayoutOptions {
  // Also convert system call entries and exits (kSyscallEntry / kSyscallExit), which the
  // model does not use: only for a reader of the event stream that wants them (the index).
  bool syscalls = false;
  // Also convert page cache events (kPageCache*), which the model does not use either: for
  // the index and `causeway io`.
  bool page_cache = false;
};

class KernelLayout {
 public:
  // `host_of_trace[i]` is the model's host id of the reader's trace i. Timestamps are taken
  // as the reader gives them: clock transforms between hosts are the reader's job
  // (ctf::ReaderOptions), so that its merge order is the synchronized order.
  static KernelLayout Build(const ctf::EventReader& reader, std::vector<uint32_t> host_of_trace,
                            const KernelLayoutOptions& options = {});

  // True when some event class of `trace` is one the model needs. A trace with none (a
  // user-space trace) is best not read at all: its events would be decoded for nothing, and
  // its lost-event records say nothing about scheduling, yet would mark the thread on that
  // CPU UNKNOWN.
  static bool UsesTrace(const ctf::Trace& trace);

  // Fills `out`; false when the model does not need the event.
  bool Convert(const ctf::Event& e, KernelEvent* out) const {
    if (e.kind == ctf::Event::Kind::kDiscarded) return ConvertLost(e, out);
    // Most events (syscalls, kmem, ...) are not needed: a byte per class answers that
    // from L1, without touching the large layout entries.
    if (kinds_[e.class_index] == Kind::kNone) return false;
    return ConvertSlow(classes_[e.class_index], e, out);
  }
  // Event classes the model uses, for `causeway threads --stats`.
  size_t num_used_classes() const;
  // True when some trace has the events a graph needs (sched_switch).
  bool has_scheduling() const { return has_scheduling_; }

 private:
  // A field that may sit at one of two places (e.g. an ipv4 or ipv6 variant option): the
  // first place the event has is read. Refs made from the field's index in the class's
  // plan (ctf::ScalarRefOf(plan, field)), so that events of static layout read it with
  // one load; nullopt where the class has no such field.
  struct Integer {
    std::optional<ctf::ScalarRef> a, b;
  };
  struct Text {
    std::optional<ctf::TextRef> a, b;
  };
  struct ClassLayout {
    Kind kind = Kind::kNone;
    uint32_t trace = 0;
    // Where the class keeps each KernelEvent field: second_tid and number are the slots
    // behind KernelEvent's per-kind accessors (next_tid, prev_state, irq, …).
    Integer tid, second_tid, number, current_tid, flags, seq, ack_seq, tcp_flags, pid;
    Integer sector, block_reason;  // block events; sector is also page_first
    Integer syscall_ret;
    Integer inode, page_last, page_write;  // page cache events
    Text name, next_comm;
    // The system call the class is named after (LTTng's syscall_entry_<name>: a view into
    // the class name, which lives as long as the reader); empty when named by its id.
    std::string_view syscall_name;
  };
  bool ConvertSlow(const ClassLayout& c, const ctf::Event& e, KernelEvent* out) const;
  bool ConvertLost(const ctf::Event& e, KernelEvent* out) const;
  // KernelEvent's name resolver: decodes a name from the event it came from (valid while
  // the ctf::Event is, i.e. during KernelModel::Process).
  static std::string_view ResolveName(const KernelEvent& k, NameField which);

  std::vector<ClassLayout> classes_;
  std::vector<Kind> kinds_;  // classes_[i].kind, dense
  std::vector<uint32_t> host_of_trace_;
  bool has_scheduling_ = false;
};

// `options` opening only the traces KernelLayout::UsesTrace accepts (the others are listed
// by EventReader::skipped_traces()).
inline ctf::ReaderOptions KernelTracesOnly(ctf::ReaderOptions options = {}) {
  options.use_trace = KernelLayout::UsesTrace;
  return options;
}

}  // namespace causeway::kernel
