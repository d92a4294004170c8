#include "kernel/kernel_layout.h"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "kernel/syscall_names.h"

namespace causeway::kernel {

namespace {

using ctf::Scope;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// A system call event: the recorder's syscall_entry / syscall_exit and perf's
// raw_syscalls:sys_enter / sys_exit (the call by its `id`), LTTng's syscall_entry_<name> /
// syscall_exit_<name> (and compat_syscall_*) and perf's syscalls:sys_enter_<name> (by the
// class name, set into `*call`; LTTng's syscall_*_unknown has only the id).
Kind ClassifySyscall(std::string_view name, std::string_view* call) {
  *call = {};
  if (StartsWith(name, "compat_")) name.remove_prefix(7);
  static constexpr std::pair<std::string_view, Kind> kPrefixes[] = {
      {"syscall_entry", Kind::kSyscallEntry},
      {"syscall_exit", Kind::kSyscallExit},
      {"sys_enter", Kind::kSyscallEntry},
      {"sys_exit", Kind::kSyscallExit}};
  for (const auto& [prefix, kind] : kPrefixes) {
    if (!StartsWith(name, prefix)) continue;
    if (name.size() == prefix.size()) return kind;
    if (name[prefix.size()] != '_') continue;
    if (name.substr(prefix.size() + 1) != "unknown") *call = name.substr(prefix.size() + 1);
    return kind;
  }
  return Kind::kNone;
}

// The name of this architecture's system call `id` ("" when unknown).
std::string_view SyscallNameOf(int64_t id) {
  static const std::vector<std::string_view> by_id = [] {
    std::vector<std::string_view> v;
    for (const ctf::EnumLabel& l : SyscallNames()) {
      if (l.value < 0 || l.value > 4096) continue;
      if (static_cast<size_t>(l.value) >= v.size()) v.resize(l.value + 1);
      v[l.value] = l.label;
    }
    return v;
  }();
  return id >= 0 && static_cast<size_t>(id) < by_id.size() ? by_id[id] : std::string_view();
}

// Event kind from a class name; perf's "subsystem:" prefix is ignored. A system call's
// name, when the class name gives it, goes to `*call`.
Kind Classify(std::string_view name, bool has_waking, bool* is_waking,
              std::string_view* call = nullptr) {
  *is_waking = false;
  const size_t colon = name.find(':');
  if (colon != std::string_view::npos) name = name.substr(colon + 1);
  if (StartsWith(name, "sys") || StartsWith(name, "compat_sys")) {
    std::string_view unused;
    const Kind syscall = ClassifySyscall(name, call ? call : &unused);
    if (syscall != Kind::kNone) return syscall;
  }
  if (name == "sched_switch") return Kind::kSwitch;
  if (name == "sched_waking") {
    *is_waking = true;
    return Kind::kWakeup;
  }
  if (name == "sched_wakeup" || name == "sched_ttwu")
    return has_waking ? Kind::kNone : Kind::kWakeup;
  if (name == "sched_wakeup_new") return Kind::kWakeupNew;
  if (name == "sched_process_fork") return Kind::kFork;
  if (name == "sched_process_exec") return Kind::kExec;
  if (name == "sched_process_exit") return Kind::kExit;
  if (name == "lttng_statedump_process_state") return Kind::kStatedump;
  if (name == "irq_handler_entry") return Kind::kIrqEntry;
  if (name == "irq_handler_exit") return Kind::kIrqExit;
  if (name == "softirq_entry" || name == "irq_softirq_entry") return Kind::kSoftirqEntry;
  if (name == "softirq_exit" || name == "irq_softirq_exit") return Kind::kSoftirqExit;
  if (name == "hrtimer_expire_entry" || name == "timer_hrtimer_expire_entry")
    return Kind::kTimerEntry;
  if (name == "hrtimer_expire_exit" || name == "timer_hrtimer_expire_exit") return Kind::kTimerExit;
  if (StartsWith(name, "x86_irq_vectors_")) {
    // The local timer interrupt runs expired hrtimers; the others are IPIs or device
    // vectors, all named by the vector.
    if (EndsWith(name, "_entry")) return Kind::kIpiEntry;
    if (EndsWith(name, "_exit")) return Kind::kIpiExit;
    return Kind::kNone;
  }
  if (name == "inet_sock_local_out" || name == "net_dev_queue") return Kind::kPacketSend;
  if (name == "inet_sock_local_in" || name == "netif_receive_skb" || name == "net_if_receive_skb")
    return Kind::kPacketRecv;
  if (name == "block_rq_complete") return Kind::kBlockComplete;
  if (name == "block_rq_insert" || name == "block_bio_queue") return Kind::kBlockQueue;
  if (name == "block_rq_issue") return Kind::kBlockIssue;
  if (name == "sched_cfs_throttle") return Kind::kCpuThrottle;
  if (name == "mm_filemap_add_to_page_cache") return Kind::kPageCacheAdd;
  if (name == "mm_filemap_delete_from_page_cache") return Kind::kPageCacheDelete;
  if (name == "mm_filemap_get_pages" || name == "mm_filemap_fault") return Kind::kPageCacheRead;
  return Kind::kNone;
}

// The index in plan.fields of the first field named one of `names` (payload fields only,
// or context fields only), searching exact names, then dotted paths ending in ".name"; -1
// when there is none.
int FindField(const ctf::EventPlan& plan, std::initializer_list<std::string_view> names,
              bool context, int skip = 0) {
  for (std::string_view n : names) {
    int seen = 0;
    for (int i = 0; i < static_cast<int>(plan.fields.size()); ++i) {
      const auto& f = plan.fields[i];
      const bool is_context = f.node->loc.scope != Scope::kEventPayload;
      if (is_context != context) continue;
      const std::string_view fn = f.name;
      if (fn == n ||
          (EndsWith(fn, n) && fn.size() > n.size() && fn[fn.size() - n.size() - 1] == '.')) {
        if (seen++ == skip) return i;
      }
    }
  }
  return -1;
}

std::optional<ctf::ScalarRef> IntegerAt(const ctf::EventPlan& plan, int field) {
  return field < 0 ? std::nullopt : ctf::ScalarRefOf(plan, field);
}
std::optional<ctf::TextRef> TextAt(const ctf::EventPlan& plan, int field) {
  return field < 0 ? std::nullopt : ctf::TextRefOf(plan, field);
}

}  // namespace

bool KernelLayout::UsesTrace(const ctf::Trace& trace) {
  for (const auto& sp : trace.plan().streams) {
    for (const auto& ep : sp->events) {
      bool waking = false;
      // has_waking only turns sched_wakeup off when sched_waking is there, used instead.
      // System calls alone do not make a trace one the model needs.
      const Kind kind = Classify(ep->cls->name, /*has_waking=*/false, &waking);
      if (kind != Kind::kNone && kind != Kind::kSyscallEntry && kind != Kind::kSyscallExit)
        return true;
    }
  }
  return false;
}

KernelLayout KernelLayout::Build(const ctf::EventReader& reader,
                                 std::vector<uint32_t> host_of_trace,
                                 const KernelLayoutOptions& options) {
  KernelLayout l;
  l.classes_.resize(reader.num_event_classes());
  l.host_of_trace_ = std::move(host_of_trace);
  uint32_t base = 0;
  for (uint32_t ti = 0; ti < reader.traces().size(); ++ti) {
    const ctf::TracePlan& tp = reader.traces()[ti]->plan();
    bool has_waking = false;
    for (const auto& sp : tp.streams)
      for (const auto& ep : sp->events) {
        std::string_view n = ep->cls->name;
        const size_t colon = n.find(':');
        if (colon != std::string_view::npos) n = n.substr(colon + 1);
        if (n == "sched_waking") has_waking = true;
      }
    for (const auto& sp : tp.streams) {
      for (const auto& ep : sp->events) {
        bool waking = false;
        std::string_view call;
        const Kind kind = Classify(ep->cls->name, has_waking, &waking, &call);
        if (kind == Kind::kNone) continue;
        const bool is_syscall = kind == Kind::kSyscallEntry || kind == Kind::kSyscallExit;
        if (is_syscall && !options.syscalls) continue;
        const bool is_page_cache = kind == Kind::kPageCacheAdd || kind == Kind::kPageCacheDelete ||
                                   kind == Kind::kPageCacheRead;
        if (is_page_cache && !options.page_cache) continue;
        ClassLayout c;
        c.kind = kind;
        c.trace = ti;
        const ctf::EventPlan& p = *ep;
        auto payload = [&](std::initializer_list<std::string_view> names) {
          return Integer{IntegerAt(p, FindField(p, names, false)),
                         IntegerAt(p, FindField(p, names, false, 1))};
        };
        auto payload_text = [&](std::initializer_list<std::string_view> names) {
          return Text{TextAt(p, FindField(p, names, false)),
                      TextAt(p, FindField(p, names, false, 1))};
        };
        c.current_tid = Integer{IntegerAt(p, FindField(p, {"perf_tid", "tid", "vtid"}, true)),
                                IntegerAt(p, FindField(p, {"perf_tid", "common_pid"}, false))};
        c.flags = Integer{IntegerAt(p, FindField(p, {"common_flags"}, false)), {}};
        switch (kind) {
          case Kind::kSwitch:
            c.tid = payload({"prev_tid", "prev_pid"});
            c.second_tid = payload({"next_tid", "next_pid"});
            c.number = payload({"prev_state"});
            c.name = payload_text({"prev_comm"});
            c.next_comm = payload_text({"next_comm"});
            l.has_scheduling_ = true;
            break;
          case Kind::kWakeup:
          case Kind::kWakeupNew:
            c.tid = payload({"tid", "pid"});
            c.name = payload_text({"comm"});
            break;
          case Kind::kFork:
            c.tid = payload({"parent_tid", "parent_pid"});
            c.second_tid = payload({"child_tid", "child_pid"});
            c.name = payload_text({"child_comm"});
            // LTTng and the recorder give the child's tid and its process; perf's child_pid
            // is the tid itself.
            if (FindField(p, {"child_tid"}, false) >= 0) c.pid = payload({"child_pid"});
            break;
          case Kind::kExec:
            c.tid = payload({"tid", "pid"});
            c.name = payload_text({"filename"});
            break;
          case Kind::kExit:
            c.tid = payload({"tid", "pid"});
            break;
          case Kind::kStatedump:
            c.tid = payload({"tid"});
            c.name = payload_text({"name"});
            c.number = payload({"status"});
            c.pid = payload({"pid"});
            break;
          case Kind::kIrqEntry:
            c.number = payload({"irq"});
            c.name = payload_text({"name"});
            break;
          case Kind::kSoftirqEntry:
          case Kind::kSoftirqExit:
            c.number = payload({"vec"});
            break;
          case Kind::kPacketSend:
          case Kind::kPacketRecv:
            // TCP fields at the top level (inet_sock_local_*, the recorder) or nested in
            // the network_header variant (lttng-modules 2.10+: ipv4 and ipv6 options).
            c.seq = payload({"seq"});
            c.ack_seq = payload({"ack_seq"});
            c.tcp_flags = payload({"flags"});
            if (!c.seq.a || !c.ack_seq.a || !c.tcp_flags.a) c.kind = Kind::kNone;
            break;
          case Kind::kBlockComplete:
            c.number = payload({"dev"});
            c.sector = payload({"sector"});
            break;
          case Kind::kBlockQueue:
          case Kind::kBlockIssue:
            // The issuing task: LTTng's and the recorder's tid; perf has only the current
            // task (perf_tid, read as current_tid).
            c.tid = payload({"tid"});
            c.number = payload({"dev"});
            c.sector = payload({"sector"});
            c.block_reason = payload({"throttled"});
            break;
          case Kind::kCpuThrottle:
            c.tid = payload({"tid"});
            c.name = payload_text({"cgroup"});
            break;
          case Kind::kSyscallEntry:
          case Kind::kSyscallExit:
            c.syscall_name = call;
            if (call.empty()) c.number = payload({"id"});
            c.syscall_ret = payload({"ret"});
            break;
          case Kind::kPageCacheAdd:
          case Kind::kPageCacheDelete:
          case Kind::kPageCacheRead:
            // The recorder's fields; the kernel's own (perf, LTTng) name them s_dev, i_ino
            // and give the task only as the current one. A fault's one page has no
            // last_index: page_last is then page_first.
            c.tid = payload({"tid"});
            c.pid = payload({"pid"});
            c.number = payload({"dev", "s_dev"});
            c.inode = payload({"ino", "i_ino"});
            c.sector = payload({"index"});
            c.page_last = payload({"last_index"});
            c.page_write = payload({"write"});
            break;
          default:
            break;
        }
        l.classes_[base + p.index] = c;
      }
    }
    base += tp.num_event_classes;
  }
  for (const ClassLayout& c : l.classes_) l.kinds_.push_back(c.kind);
  return l;
}

size_t KernelLayout::num_used_classes() const {
  size_t n = 0;
  for (const ClassLayout& c : classes_) n += c.kind != Kind::kNone;
  return n;
}

namespace {

// The value at the first of a field's places that the event has; nullptr when it has
// neither (a field of a variant option not chosen).
template <class Ref>
inline const Ref* Locate(const ctf::Event& e, const std::optional<Ref>& a,
                         const std::optional<Ref>& b) {
  if (a && e.Has(*a)) return &*a;
  if (b && e.Has(*b)) return &*b;
  return nullptr;
}

}  // namespace

std::string_view KernelLayout::ResolveName(const KernelEvent& k, NameField which) {
  const auto& e = *static_cast<const ctf::Event*>(k.name_event_);
  const auto& c = *static_cast<const ClassLayout*>(k.name_layout_);
  const Text& f = which == NameField::kName ? c.name : c.next_comm;
  const ctf::TextRef* r = Locate(e, f.a, f.b);
  return r ? e.GetString(*r) : std::string_view();
}

bool KernelLayout::ConvertSlow(const ClassLayout& c, const ctf::Event& e, KernelEvent* out) const {
  auto integer = [&](const Integer& f, int64_t dflt) -> int64_t {
    const ctf::ScalarRef* r = Locate(e, f.a, f.b);
    return r ? e.GetSigned(*r) : dflt;
  };
  auto unsigned_ = [&](const Integer& f) -> uint64_t {
    const ctf::ScalarRef* r = Locate(e, f.a, f.b);
    return r ? e.GetUnsigned(*r) : 0;
  };
  // Every field is stored once, explicitly: `*out = KernelEvent{}` first compiles to a
  // `rep stos` over the whole struct, a third of this function's time on a busy trace.
  static_assert(sizeof(KernelEvent) == 192, "a KernelEvent field was added: set it below");
  out->kind = c.kind;
  out->host = host_of_trace_[c.trace];
  out->cpu = static_cast<int32_t>(e.cpu);
  out->ts = static_cast<int64_t>(e.timestamp);
  out->tid = static_cast<int32_t>(integer(c.tid, -1));
  out->second_tid_ = static_cast<int32_t>(integer(c.second_tid, -1));
  out->number_ = integer(c.number, 0);
  out->name_ = {};
  out->next_comm_ = {};
  if (c.name.a || c.next_comm.a) {
    out->resolve_ = &ResolveName;
    out->name_event_ = &e;
    out->name_layout_ = &c;
  } else {
    out->resolve_ = nullptr;
    out->name_event_ = out->name_layout_ = nullptr;
  }
  out->current_tid =
      (c.current_tid.a || c.current_tid.b) ? static_cast<int32_t>(integer(c.current_tid, -1)) : -1;
  out->has_context_flags = c.flags.a.has_value();
  out->context_flags = c.flags.a ? static_cast<uint32_t>(unsigned_(c.flags)) : 0;
  out->pid = c.pid.a ? static_cast<int32_t>(integer(c.pid, -1)) : -1;
  out->seq = out->ack_seq = 0;
  out->tcp_flags = 0;
  out->end_ts = 0;
  out->sector = c.sector.a ? unsigned_(c.sector) : 0;
  out->block_reason = c.block_reason.a && unsigned_(c.block_reason) ? kBlockThrottled : 0;
  out->syscall_ret = 0;
  if (c.kind == Kind::kSyscallEntry || c.kind == Kind::kSyscallExit) [[unlikely]] {
    out->number_ = c.number.a ? integer(c.number, -1) : -1;
    out->name_ = c.syscall_name.empty() ? SyscallNameOf(out->number_) : c.syscall_name;
    out->syscall_ret = integer(c.syscall_ret, 0);
  }
  out->inode = c.inode.a ? unsigned_(c.inode) : 0;
  out->page_first = out->sector;
  out->page_last = c.page_last.a ? unsigned_(c.page_last) : out->page_first;
  out->page_write = c.page_write.a && unsigned_(c.page_write) != 0;
  if (c.kind == Kind::kPacketSend || c.kind == Kind::kPacketRecv) {
    const ctf::ScalarRef* s = Locate(e, c.seq.a, c.seq.b);
    if (!s) return false;  // not a TCP segment (UDP, ARP, IPv6 without TCP...)
    out->seq = e.GetUnsigned(*s);
    out->ack_seq = unsigned_(c.ack_seq);
    out->tcp_flags = static_cast<uint32_t>(unsigned_(c.tcp_flags));
  }
  return true;
}

bool KernelLayout::ConvertLost(const ctf::Event& e, KernelEvent* out) const {
  *out = KernelEvent{};
  out->kind = Kind::kLost;
  out->host = host_of_trace_[e.trace_index];
  out->cpu = static_cast<int32_t>(e.cpu);
  out->ts = static_cast<int64_t>(e.discarded_begin ? e.discarded_begin : e.timestamp);
  out->end_ts = static_cast<int64_t>(e.discarded_end ? e.discarded_end : e.timestamp);
  out->set_lost_count(static_cast<int64_t>(e.discarded));
  return true;
}

}  // namespace causeway::kernel
