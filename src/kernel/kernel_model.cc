#include "kernel/kernel_model.h"

#include "graph/cpu_holders.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace causeway::kernel {

using graph::LinkKind;
using graph::State;
using graph::StringId;
using graph::WorkerId;

namespace {
// Threads are looked up by tid in a dense table up to this bound (Linux's default pid_max
// is 4 194 304 at most), in a hash map beyond.
constexpr int32_t kDenseTids = 1 << 22;
// A TCP segment sent but not received within this much trace time is forgotten: its
// receiver is not traced, and keeping it would make memory grow with the trace.
constexpr int64_t kPacketExpiryNs = 10'000'000'000;
// Unmatched segments are swept this often (trace time). The map holds only segments still
// in flight (a receive removes its send), so a sweep is short, and no per-segment queue is
// kept in send order: half the model's events are segments on a busy host.
constexpr int64_t kPacketSweepNs = 1'000'000'000;

constexpr const char* kSoftirqNames[10] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                           "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

// Whether `e` ends the context of a segment received outside a traced interrupt: the
// receiving task wakes its reader right after the receive (interrupts may come between,
// and more segments, and the ACKs it sends); anything else it does is its own work.
// Received in an interrupt perf's flags name: until an event in task context.
bool EndsLooseReceive(const KernelEvent& e, bool in_irq_flags) {
  if (in_irq_flags)
    return e.has_context_flags && !(e.context_flags & (kFlagHardirq | kFlagSoftirq));
  switch (e.kind) {
    case Kind::kWakeup:
    case Kind::kWakeupNew:
    case Kind::kPacketRecv:
    case Kind::kPacketSend:
    case Kind::kIrqEntry:
    case Kind::kIrqExit:
    case Kind::kSoftirqEntry:
    case Kind::kSoftirqExit:
    case Kind::kTimerEntry:
    case Kind::kTimerExit:
    case Kind::kIpiEntry:
    case Kind::kIpiExit:
    case Kind::kBlockComplete:
      return false;
    default:
      return true;
  }
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

std::string_view SoftirqVectorName(int64_t vec) {
  return vec >= 0 && vec < 10 ? kSoftirqNames[vec] : std::string_view();
}

KernelModel::KernelModel(graph::ExecutionGraph* graph) : g_(graph) {
  q_lost_ = g_->Intern("lost events");
  q_no_wakeup_ = g_->Intern("no wake-up seen");
  q_no_switch_in_ = g_->Intern("no switch-in seen");
  q_unknown_waker_ = g_->Intern("unknown waker");
  q_idle_ = g_->Intern("woken from idle");
  // perf's flags say "hard interrupt", not which: on a recording without irq events a
  // sleep's timer looks the same as a device. Said, since INTERRUPTED alone reads as if
  // the thread had been interrupted.
  q_hardirq_ = g_->Intern("hardirq: timer or device (irq events not recorded)");
  q_softirq_ = g_->Intern("softirq");
  q_hrtimer_ = g_->Intern("hrtimer");
  q_no_history_ = g_->Intern("before first event");
  q_inconsistent_ = g_->Intern("inconsistent schedule");
  q_new_ = g_->Intern("new thread");
  q_before_io_ = g_->Intern("before its I/O was queued");
  q_lost_window_ = g_->Intern("lost events on another CPU");
  q_end_of_trace_ = g_->Intern("until end of trace");
  for (int v = 0; v < 10; ++v)
    softirq_quals_[v] = g_->Intern(std::string("softirq ") + kSoftirqNames[v]);
}

uint32_t KernelModel::AddHost(std::string name) {
  hosts_.emplace_back();
  return g_->AddHost(std::move(name));
}

KernelModel::Cpu* KernelModel::CpuOf(Host& h, int32_t cpu) {
  if (cpu < 0 || cpu > 65535) return nullptr;
  if (static_cast<size_t>(cpu) >= h.cpus.size()) h.cpus.resize(cpu + 1);
  return &h.cpus[cpu];
}

WorkerId KernelModel::Find(const Host& h, int32_t tid) const {
  if (tid >= 0 && tid < kDenseTids)
    return static_cast<size_t>(tid) < h.by_tid.size() ? h.by_tid[tid] : graph::kNoWorker;
  auto it = h.by_tid_sparse.find(tid);
  return it == h.by_tid_sparse.end() ? graph::kNoWorker : it->second;
}

WorkerId KernelModel::FindThread(uint32_t host, int32_t tid) const {
  return host < hosts_.size() ? Find(hosts_[host], tid) : graph::kNoWorker;
}

int32_t KernelModel::CurrentTask(uint32_t host, int32_t cpu) const {
  if (host >= hosts_.size() || cpu < 0) return -1;
  const Host& h = hosts_[host];
  return static_cast<size_t>(cpu) < h.cpus.size() ? h.cpus[cpu].current : -1;
}

WorkerId KernelModel::NewThread(uint32_t host, int32_t tid, int64_t ts, State s,
                                std::string_view name, StringId q) {
  Host& h = hosts_[host];
  const WorkerId w = g_->AddWorker(host, tid, ts, s, q);
  g_->mutable_worker(w).name = std::string(name);
  flags_.push_back(name.empty() ? 0 : kNamed);
  last_cpu_.push_back(-1);
  if (tid >= 0 && tid < kDenseTids) {
    if (static_cast<size_t>(tid) >= h.by_tid.size())
      h.by_tid.resize(std::max<size_t>(tid + 1, h.by_tid.size() * 2), graph::kNoWorker);
    h.by_tid[tid] = w;
  } else {
    h.by_tid_sparse[tid] = w;
  }
  return w;
}

int64_t KernelModel::FirstSeen(const Host& h, int32_t tid, int64_t ts) const {
  // A thread seen for the first time existed since the host's first event, or since the
  // end of the previous thread of that tid.
  const WorkerId old = Find(h, tid);
  const int64_t since = old != graph::kNoWorker ? g_->worker(old).ts.back() : h.first_ts;
  return std::min(since, ts);
}

void KernelModel::Name(WorkerId w, const KernelEvent& e, NameField which) {
  // The dense flag spares a cache miss on the worker, and decoding the name, in the
  // common case (named already).
  if (flags_[w] & kNamed) return;
  const std::string_view name = which == NameField::kName ? e.Name() : e.NextComm();
  if (name.empty()) return;
  std::string& n = g_->mutable_worker(w).name;
  if (n.empty()) n = std::string(name);
  flags_[w] |= kNamed;
}

WorkerId KernelModel::RunningTask(uint32_t host, Cpu* c, int32_t tid, int64_t ts) {
  Host& h = hosts_[host];
  WorkerId w = Find(h, tid);
  if (w == graph::kNoWorker || !g_->alive(w)) {
    // First sight of a task that is on a CPU: it has run there since the CPU's first event
    // when nothing else was seen running there, else (lost events) since now.
    const int64_t since = c && c->current == kUnknownTid ? c->first_ts : ts;
    return NewThread(host, tid, since, State::kRunning, {});
  }
  return w;
}

void KernelModel::Process(const KernelEvent& e) {
  // System calls are for the index's readers of the event stream: the graph is the same
  // whether the trace has them or not.
  if (e.kind == Kind::kNone || e.kind == Kind::kSyscallEntry || e.kind == Kind::kSyscallExit ||
      e.host >= hosts_.size())
    return;
  ++counters_.events;
  Host& h = hosts_[e.host];
  if (h.first_ts < 0) h.first_ts = e.ts;
  last_ts_ = std::max(last_ts_, e.ts);
  if (e.ts >= next_lost_window_end_) [[unlikely]]
    RestoreLostWindows(e.ts);
  Cpu* c = CpuOf(h, e.cpu);
  if (c && !c->started) {
    c->started = true;
    c->first_ts = e.ts;
  }
  // perf says which task is current. When the model does not know, or thinks another task
  // runs, a switch is missing from the trace (perf on some VMs drops the switches out of
  // idle): the task is running now, since some time after this CPU's previous event.
  if (c && e.current_tid >= 0 && e.kind != Kind::kSwitch && c->current != e.current_tid)
    InferSwitch(e, c);
  if (c) c->last_ts = e.ts;
  if (c && c->block_task == kFlaggedInterrupt && e.has_context_flags &&
      !(e.context_flags & (kFlagHardirq | kFlagSoftirq)))
    c->block_task = kUnknownTid;  // back in task context: that interrupt is over
  // An interrupt entry whose exit is not in the trace (recording started or stopped inside
  // it, lost events) would label every later wake-up on that CPU. The scheduler never runs
  // in interrupt context, and perf's flags say when an event is in task context: either
  // proves the stack empty.
  if (c && c->loose_rx.valid && EndsLooseReceive(e, c->loose_rx.in_irq_flags))
    c->loose_rx.valid = false;
  if (c && c->depth > 0 &&
      (e.kind == Kind::kSwitch ||
       (e.has_context_flags && !(e.context_flags & (kFlagHardirq | kFlagSoftirq)) &&
        e.kind != Kind::kIrqEntry && e.kind != Kind::kSoftirqEntry && e.kind != Kind::kTimerEntry &&
        e.kind != Kind::kIpiEntry))) {
    ++counters_.interrupt_mismatches;
    c->depth = 0;
  }

  switch (e.kind) {
    case Kind::kSwitch:
      OnSwitch(e, c);
      break;
    case Kind::kWakeup:
    case Kind::kWakeupNew:
      OnWakeup(e, c);
      break;
    case Kind::kFork:
      OnFork(e, c);
      break;
    case Kind::kExec: {
      const WorkerId w = Find(h, e.tid);
      if (w != graph::kNoWorker) g_->mutable_worker(w).name = std::string(Basename(e.Name()));
      break;
    }
    case Kind::kExit: {
      const WorkerId w = Find(h, e.tid);
      if (w != graph::kNoWorker) flags_[w] |= kExiting;
      ++counters_.exits;
      break;
    }
    case Kind::kStatedump:
      OnStatedump(e);
      break;
    case Kind::kIrqEntry:
      Push(c, Ctx::kHardirq, IrqQual(h, e));
      break;
    case Kind::kIrqExit:
      Pop(c, Ctx::kHardirq);
      break;
    case Kind::kSoftirqEntry:
      Push(c, Ctx::kSoftirq, SoftirqQual(e.softirq_vector()),
           static_cast<int32_t>(e.softirq_vector()));
      break;
    case Kind::kSoftirqExit:
      Pop(c, Ctx::kSoftirq);
      break;
    case Kind::kTimerEntry:
      Push(c, Ctx::kTimer, q_hrtimer_);
      break;
    case Kind::kTimerExit:
      Pop(c, Ctx::kTimer);
      break;
    case Kind::kIpiEntry:
      Push(c, Ctx::kIpi, g_->Intern(fmt::format("ipi {}", e.Name())));
      break;
    case Kind::kIpiExit:
      Pop(c, Ctx::kIpi);
      break;
    case Kind::kPacketSend:
      OnPacketSend(e, c);
      break;
    case Kind::kPacketRecv:
      OnPacketRecv(e, c);
      break;
    case Kind::kBlockComplete:
      OnBlockComplete(e, c);
      break;
    case Kind::kBlockQueue:
      block_requests_.OnQueue(e.host, e.dev(), e.sector, e.ts, e.block_reason & kBlockThrottled);
      break;
    case Kind::kBlockIssue:
      block_requests_.OnIssue(e.host, e.dev(), e.sector, e.ts);
      break;
    case Kind::kLost:
      OnLost(e, c);
      break;
    case Kind::kCpuThrottle:
      OnCpuThrottle(e);
      break;
    case Kind::kNone:
    case Kind::kSyscallEntry:
    case Kind::kSyscallExit:
      break;
  }
}

void KernelModel::InferSwitch(const KernelEvent& e, Cpu* c) {
  Host& h = hosts_[e.host];
  const int64_t since = c->started ? c->last_ts : e.ts;
  if (c->current > 0) {
    const WorkerId old = Find(h, c->current);
    if (old != graph::kNoWorker && g_->open_state(old) == State::kRunning)
      g_->SetState(old, since, State::kUnknown, q_no_switch_in_);
  }
  const bool was_unknown = c->current == kUnknownTid;
  c->current = e.current_tid;
  c->loose_rx.valid = false;
  c->pending_wakes.clear();  // perf names each wake-up's task: none is pending
  c->pending_unlinked = false;
  if (e.current_tid <= 0) {
    RecordCpuTask(e, e.current_tid, graph::kNoWorker);
    return;
  }
  if (!was_unknown) ++counters_.inferred_switches;
  WorkerId w = Find(h, e.current_tid);
  if (w == graph::kNoWorker || !g_->alive(w)) {
    w = NewThread(e.host, e.current_tid, was_unknown ? c->first_ts : since, State::kRunning, {});
    RecordCpuTask(e, e.current_tid, w);
    return;
  }
  RecordCpuTask(e, e.current_tid, w);
  if (g_->open_state(w) != State::kRunning) {
    if (!was_unknown) g_->SetState(w, since, State::kUnknown, q_no_switch_in_);
    g_->SetState(w, e.ts, State::kRunning);
  }
}

void KernelModel::OnSwitch(const KernelEvent& e, Cpu* c) {
  ++counters_.switches;
  Host& h = hosts_[e.host];
  const int32_t prev = e.tid, next = e.next_tid();
  if (c) {
    c->loose_rx.valid = false;
    if (!c->pending_wakes.empty()) {
      if (c->current != prev || c->pending_unlinked) ResolvePendingWakes(e, c, prev);
      c->pending_wakes.clear();
      c->pending_unlinked = false;
    }
  }
  if (c && c->current != kUnknownTid && c->current != prev) {
    // The model thought another task was running here: a switch is missing (lost events).
    // That task's running time is not known any more.
    const WorkerId other = c->current > 0 ? Find(h, c->current) : graph::kNoWorker;
    if (other != graph::kNoWorker && g_->open_state(other) == State::kRunning)
      g_->RelabelOpen(other, State::kUnknown, q_inconsistent_);
    c->current = kUnknownTid;
  }
  if (prev > 0) {
    WorkerId w = Find(h, prev);
    if (w == graph::kNoWorker || !g_->alive(w)) {
      w = RunningTask(e.host, c, prev, e.ts);
    } else if (const State s = g_->open_state(w); s != State::kRunning && s != State::kUnknown) {
      // Switched out without a switch-in seen: what it did since its last known state is
      // not known.
      ++counters_.missing_switch_ins;
      g_->RelabelOpen(w, State::kUnknown, q_no_switch_in_);
    }
    Name(w, e, NameField::kName);
    // Runnable when prev_state is TASK_RUNNING (0) in its low byte; the bits above are the
    // kernels' "preempted" report flag (0x800 in 4.x, 0x100 from 4.14). Trace Compass tests
    // `& 3` instead, which takes idle kernel threads (0x80, 'I') and parked ones (0x40) for
    // runnable ones. A task that exited and is not runnable is switched out for good.
    const bool runnable = (e.prev_state() & 0xff) == 0;
    State s = runnable ? State::kPreempted : State::kBlocked;
    // Woken while still on its CPU (sched_waking on another CPU raced its switch-out): it
    // is runnable already, whatever prev_state says.
    if (s == State::kBlocked && (flags_[w] & kWokenWhileRunning)) s = State::kPreempted;
    if ((flags_[w] & kExiting) && !runnable) s = State::kNone;
    flags_[w] &= ~kWokenWhileRunning;
    StringId q = 0;
    if (flags_[w] & kThrottlePending) {
      // Its cgroup's quota ran out just before: the runnable wait is the throttling.
      flags_[w] &= ~kThrottlePending;
      auto it = pending_throttle_.find(w);
      if (it != pending_throttle_.end()) {
        if (s == State::kPreempted) q = it->second;
        pending_throttle_.erase(it);
      }
    }
    last_cpu_[w] = e.cpu;
    g_->SetState(w, e.ts, s, q);
  }
  if (next > 0) {
    WorkerId w = Find(h, next);
    if (w == graph::kNoWorker || !g_->alive(w)) {
      // Never seen: it existed before the host's first event, doing something unknown.
      w = NewThread(e.host, next, FirstSeen(h, next, e.ts), State::kUnknown, e.NextComm(),
                    q_no_history_);
    } else {
      const State s = g_->open_state(w);
      if (s == State::kBlocked) {
        // Scheduled in while waiting: the wake-up was lost or is not in the trace.
        ++counters_.missing_wakeups;
        g_->RelabelOpen(w, State::kUnknown, q_no_wakeup_);
      }
    }
    Name(w, e, NameField::kNextComm);
    g_->SetState(w, e.ts, State::kRunning);
    RecordCpuTask(e, next, w);
  } else {
    RecordCpuTask(e, next, graph::kNoWorker);
  }
  if (c) {
    c->current = next;
    c->block_task = kUnknownTid;
  }
}

void KernelModel::RecordCpuTask(const KernelEvent& e, int32_t tid, WorkerId w) {
  g_->mutable_cpu_timelines().Record(e.host, e.cpu, e.ts,
                                     tid == 0  ? graph::kIdleTask
                                     : tid < 0 ? graph::kUnknownTask
                                               : w);
}

void KernelModel::OnCpuThrottle(const KernelEvent& e) {
  ++counters_.cpu_throttles;
  const WorkerId w = Find(hosts_[e.host], e.tid);
  if (w == graph::kNoWorker || !g_->alive(w)) return;
  const std::string_view cgroup = e.Name();
  auto it = throttle_quals_.find(std::string(cgroup));
  if (it == throttle_quals_.end())
    it =
        throttle_quals_
            .emplace(std::string(cgroup), g_->Intern(fmt::format("{} ({})", graph::kThrottledPrefix,
                                                                 cgroup.empty() ? "?" : cgroup)))
            .first;
  const State s = g_->open_state(w);
  if (s == State::kPreempted) {
    // Switched out already (the throttle record follows its sched_switch).
    g_->RelabelOpen(w, State::kPreempted, it->second);
  } else if (s == State::kRunning) {
    flags_[w] |= kThrottlePending;
    pending_throttle_[w] = it->second;
  }
}

KernelModel::Cause KernelModel::WakeCause(const KernelEvent& e, Cpu* c, WorkerId target) {
  Cause cause;
  if (Frame* f = c ? c->top() : nullptr) {
    cause.qual = f->qual;
    switch (f->type) {
      case Ctx::kHardirq:
        cause.state = State::kInterrupted;
        break;
      case Ctx::kSoftirq:
        switch (f->softirq_vector) {
          case 1:
          case 8:
            cause.state = State::kTimer;
            break;
          case 2:
          case 3:
            cause.state = State::kNetwork;
            break;
          case 4:
          case 5:
            cause.state = State::kBlockDevice;
            break;
          case 7:
            cause.state = State::kInterrupted;
            break;
          default:
            cause.state = State::kBlocked;
        }
        break;
      case Ctx::kTimer:
        cause.state = State::kTimer;
        break;
      case Ctx::kIpi:
        cause.state = State::kIpi;
        break;
    }
    // What the context did says more than its kind: a completed block request, a
    // received segment whose sender is known.
    if (f->block) {
      cause.state = State::kBlockDevice;
      cause.qual = f->block_done.qual;
      cause.block = &f->block_done;
    }
    if (f->packet) return NetworkCause(f->pkt_from, f->pkt_vertex, target, f->qual);
    return cause;
  }
  const bool in_irq_flags =
      e.has_context_flags && (e.context_flags & (kFlagHardirq | kFlagSoftirq));
  if (c && c->loose_rx.valid) {
    // The segment was received in this same context: by the interrupt perf's flags name,
    // or by the task still current (a threaded IRQ handler wakes its reader right after
    // the receive). What the receiver did before is not what the reader waited for.
    const LooseReceive& rx = c->loose_rx;
    if (in_irq_flags ? rx.in_irq_flags : (!rx.in_irq_flags && rx.task == c->current))
      return NetworkCause(rx.from, rx.from_vertex, target,
                          in_irq_flags ? q_softirq_ : ReceiverQual(Find(hosts_[e.host], rx.task)));
  }
  if (in_irq_flags) {
    if (c && c->block_task == kFlaggedInterrupt && c->block_done.matched) {
      cause.state = State::kBlockDevice;
      cause.qual = c->block_done.qual;
      cause.block = &c->block_done;
      return cause;
    }
    // perf without irq events: the flags say "interrupt", not which one.
    cause.state = (e.context_flags & kFlagHardirq) ? State::kInterrupted : State::kBlocked;
    cause.qual = (e.context_flags & kFlagHardirq) ? q_hardirq_ : q_softirq_;
    return cause;
  }
  const int32_t waker = c ? c->current : e.current_tid;
  if (waker == kUnknownTid) {
    ++counters_.wakeups_unknown_source;
    cause.qual = q_unknown_waker_;
    return cause;
  }
  if (waker == 0) {
    cause.qual = q_idle_;
    return cause;
  }
  if (c && c->block_task == waker && c->block_done.matched) {
    // A worker that completed a block request (loop, dm, a threaded handler) wakes its
    // waiter: the device's time is what the wait was, not the worker's history.
    cause.state = State::kBlockDevice;
    cause.qual = c->block_done.qual;
    cause.block = &c->block_done;
    return cause;
  }
  const WorkerId w = RunningTask(e.host, c, waker, e.ts);
  if (w == target) return cause;
  if (g_->open_state(w) != State::kRunning) {
    // The waker is running by definition. From perf's own task field the model had missed
    // its switch-in; from the model's current task, that task ran elsewhere since: its
    // switch-out here is missing, and the next switch here names the waker.
    if (e.current_tid >= 0 || !c) {
      g_->SetState(w, e.ts, State::kRunning);
    } else {
      ++counters_.wakeups_unknown_source;
      cause.qual = q_unknown_waker_;
      cause.pending = true;
      return cause;
    }
  }
  cause.pending = c && e.current_tid < 0;
  cause.from = w;
  cause.from_vertex = g_->last_vertex(w);
  cause.kind = LinkKind::kWakeup;
  return cause;
}

void KernelModel::OnWakeup(const KernelEvent& e, Cpu* c) {
  ++counters_.wakeups;
  Host& h = hosts_[e.host];
  WorkerId t = Find(h, e.tid);
  if (t == graph::kNoWorker || !g_->alive(t)) {
    // Never seen before: blocked since the host's first event at least.
    t = NewThread(e.host, e.tid, FirstSeen(h, e.tid, e.ts), State::kBlocked, e.Name());
  }
  Name(t, e, NameField::kName);
  const State s = g_->open_state(t);
  if (s != State::kRunning) last_cpu_[t] = -1;  // queued where the trace does not say
  if (s == State::kUnknown) {
    g_->SetState(t, e.ts, State::kPreempted);
    return;
  }
  if (s != State::kBlocked) {
    ++counters_.wakeups_of_runnable;
    if (s == State::kRunning) flags_[t] |= kWokenWhileRunning;
    return;
  }
  const Cause cause = WakeCause(e, c, t);
  if (cause.block && cause.block->matched)
    SplitBlockWait(e.host, t, e.ts, *cause.block);
  else if (cause.state != State::kBlocked || cause.qual != 0)
    g_->RelabelOpen(t, cause.state, cause.qual);
  if (cause.from != graph::kNoWorker)
    g_->AddLinkedVertex(t, e.ts, State::kPreempted, cause.from, cause.from_vertex, cause.kind);
  else
    g_->SetState(t, e.ts, State::kPreempted);
  if (cause.pending) {
    c->pending_wakes.push_back(PendingWake{t, g_->last_vertex(t), e.ts});
    c->pending_unlinked |= cause.from == graph::kNoWorker;
  }
}

KernelModel::Cause KernelModel::NetworkCause(WorkerId from, uint32_t from_vertex, WorkerId target,
                                             StringId qual) {
  Cause cause;
  cause.state = State::kNetwork;
  cause.qual = qual;
  if (from != graph::kNoWorker && from != target) {
    cause.from = from;
    cause.from_vertex = from_vertex;
    cause.kind = LinkKind::kNetwork;
  }
  return cause;
}

StringId KernelModel::ReceiverQual(WorkerId receiver) {
  if (receiver == graph::kNoWorker) return 0;
  if (receiver != rx_qual_worker_) {
    rx_qual_worker_ = receiver;
    const std::string& name = g_->worker(receiver).name;
    rx_qual_ = g_->Intern(name.empty() ? fmt::format("received by tid {}", g_->worker(receiver).tid)
                                       : fmt::format("received by {}", name));
  }
  return rx_qual_;
}

void KernelModel::ResolvePendingWakes(const KernelEvent& e, Cpu* c, int32_t prev) {
  Host& h = hosts_[e.host];
  const bool confirmed = prev == c->current;  // the first guess was right
  const int64_t first = c->pending_wakes.front().ts;
  WorkerId w = graph::kNoWorker;
  if (prev > 0) {
    w = Find(h, prev);
    if (w == graph::kNoWorker || !g_->alive(w))
      w = NewThread(e.host, prev, FirstSeen(h, prev, first), State::kUnknown, e.Name(),
                    q_no_history_);
    if (g_->open_state(w) != State::kRunning) {
      // It ran from the first wake-up at the latest: its switch-in is missing.
      if (g_->open_state(w) != State::kUnknown) {
        ++counters_.missing_switch_ins;
        g_->RelabelOpen(w, State::kUnknown, q_no_switch_in_);
      }
      g_->SetState(w, first, State::kRunning);
    }
  }
  // Latest first: an erased link does not move the earlier ones.
  for (auto p = c->pending_wakes.rbegin(); p != c->pending_wakes.rend(); ++p) {
    graph::Worker& t = g_->mutable_worker(p->target);
    auto link = std::lower_bound(t.in.begin(), t.in.end(), p->target_vertex,
                                 [](const graph::InLink& l, uint32_t v) { return l.vertex < v; });
    const bool linked = link != t.in.end() && link->vertex == p->target_vertex;
    if (linked && confirmed) continue;
    // The wait the wake-up ended, as the wake-up left it (BLOCKED, "unknown waker" when no
    // task was credited).
    const uint32_t wait = p->target_vertex - 1;
    if (p->target_vertex == 0 || t.state(wait) != State::kBlocked ||
        (!linked && t.qualifier(wait) != q_unknown_waker_))
      continue;
    if (w == p->target) continue;
    if (w == graph::kNoWorker) {
      // The idle task ran: no thread woke it.
      if (linked) t.in.erase(link);
      g_->RelabelEdge(p->target, wait, State::kBlocked, q_idle_);
      ++counters_.wakers_corrected;
      continue;
    }
    // prev's vertex current at the wake-up; never one after it (links point back).
    const graph::Worker& src = g_->worker(w);
    const auto after = std::upper_bound(src.ts.begin(), src.ts.end(), p->ts);
    if (after == src.ts.begin()) continue;
    const auto fv = static_cast<uint32_t>(after - src.ts.begin() - 1);
    const graph::InLink corrected{p->target_vertex, w,
                                  (fv << 2) | static_cast<uint32_t>(LinkKind::kWakeup)};
    ++counters_.wakers_corrected;
    if (linked) {
      *link = corrected;
    } else {
      t.in.insert(link, corrected);
      g_->RelabelEdge(p->target, wait, State::kBlocked);
      --counters_.wakeups_unknown_source;
    }
  }
}

void KernelModel::OnFork(const KernelEvent& e, Cpu* c) {
  ++counters_.forks;
  Host& h = hosts_[e.host];
  const WorkerId parent = e.tid > 0 ? RunningTask(e.host, c, e.tid, e.ts) : graph::kNoWorker;
  const WorkerId old = Find(h, e.child_tid());
  if (old != graph::kNoWorker && g_->alive(old)) {
    // The tid is reused and the old thread's end was not seen.
    g_->SetState(old, e.ts, State::kNone);
  }
  // A new task is runnable as soon as the parent's fork returns (wake_up_new_task runs in
  // the same system call); many traces do not record sched_wakeup_new at all.
  const WorkerId child =
      NewThread(e.host, e.child_tid(), e.ts, State::kPreempted, e.Name(), q_new_);
  g_->mutable_worker(child).pid = e.pid;
  if (parent != graph::kNoWorker) {
    if (g_->open_state(parent) != State::kRunning) g_->SetState(parent, e.ts, State::kRunning);
    g_->mutable_worker(child).in.push_back(graph::InLink{
        0, parent, (g_->last_vertex(parent) << 2) | static_cast<uint32_t>(LinkKind::kFork)});
  }
}

void KernelModel::OnStatedump(const KernelEvent& e) {
  Host& h = hosts_[e.host];
  const WorkerId w = Find(h, e.tid);
  if (w != graph::kNoWorker) {
    Name(w, e, NameField::kName);
    if (e.pid >= 0 && g_->worker(w).pid < 0) g_->mutable_worker(w).pid = e.pid;
    return;
  }
  if (e.tid <= 0) return;
  State s = State::kUnknown;
  if (e.statedump_status() == kStatedumpWait) s = State::kBlocked;
  if (e.statedump_status() == kStatedumpWaitCpu) s = State::kPreempted;
  const WorkerId n = NewThread(e.host, e.tid, FirstSeen(h, e.tid, e.ts), s, e.Name(),
                               s == State::kUnknown ? q_no_history_ : 0);
  g_->mutable_worker(n).pid = e.pid;
}

void KernelModel::Push(Cpu* c, Ctx type, StringId q, int32_t softirq_vector) {
  if (!c) return;
  if (c->depth < kMaxDepth) {
    Frame& f = c->stack[c->depth];
    f = Frame{};
    f.type = type;
    f.softirq_vector = softirq_vector;
    f.qual = q;
  } else {
    ++counters_.interrupt_mismatches;
  }
  ++c->depth;
}

void KernelModel::Pop(Cpu* c, Ctx type) {
  if (!c || c->depth == 0) return;  // the trace began inside this context
  if (c->depth <= kMaxDepth && c->stack[c->depth - 1].type != type) {
    // Unbalanced entry/exit (lost events): forget the context rather than guess.
    ++counters_.interrupt_mismatches;
    c->depth = 0;
    return;
  }
  --c->depth;
}

StringId KernelModel::IrqQual(Host& h, const KernelEvent& e) {
  const int64_t irq = e.irq();
  auto it = h.irq_quals.find(irq);
  if (it != h.irq_quals.end()) return it->second;
  const std::string_view name = e.Name();
  const StringId q =
      g_->Intern(name.empty() ? fmt::format("irq {}", irq) : fmt::format("irq {} {}", irq, name));
  h.irq_quals.emplace(irq, q);
  return q;
}

StringId KernelModel::SoftirqQual(int64_t vec) {
  if (vec >= 0 && vec < 10) return softirq_quals_[vec];
  return g_->Intern(fmt::format("softirq {}", vec));
}

void KernelModel::OnPacketSend(const KernelEvent& e, Cpu* c) {
  ++counters_.packets_sent;
  ExpirePackets(e.ts);
  PacketSource src;
  src.ts = e.ts;
  // Only a task can be walked backward; segments sent from interrupt context (ACKs sent by
  // the NET_RX softirq) still match, without a sender to follow.
  const int32_t task = c ? c->current : e.current_tid;
  const bool in_irq = (c && c->depth > 0) ||
                      (e.has_context_flags && (e.context_flags & (kFlagHardirq | kFlagSoftirq)));
  if (!in_irq && task > 0) {
    src.worker = RunningTask(e.host, c, task, e.ts);
    src.vertex = g_->AddVertex(src.worker, e.ts, State::kRunning);
  }
  // The same segment sent again (a retransmission): the last counts.
  packets_.insert_or_assign(PacketKey{e.seq, e.ack_seq, e.tcp_flags}, src);
}

void KernelModel::OnPacketRecv(const KernelEvent& e, Cpu* c) {
  auto it = packets_.find(PacketKey{e.seq, e.ack_seq, e.tcp_flags});
  if (it == packets_.end()) return;
  if (it->second.ts < e.ts - kPacketExpiryNs) {
    // Sent longer ago than the expiry delay (a sweep had not come yet): not this segment.
    packets_.erase(it);
    ++counters_.packets_expired;
    return;
  }
  ++counters_.packets_matched;
  if (Frame* f = c ? c->top() : nullptr) {
    f->packet = true;
    f->pkt_from = it->second.worker;
    f->pkt_vertex = it->second.vertex;
    f->pkt_ts = it->second.ts;
  } else if (c) {
    LooseReceive& rx = c->loose_rx;
    rx.in_irq_flags = e.has_context_flags && (e.context_flags & (kFlagHardirq | kFlagSoftirq));
    rx.task = c->current;
    rx.valid = rx.in_irq_flags || c->current > 0;
    rx.from = it->second.worker;
    rx.from_vertex = it->second.vertex;
  }
  packets_.erase(it);
}

void KernelModel::ExpirePackets(int64_t now) {
  if (now < next_expiry_sweep_) return;
  next_expiry_sweep_ = now + kPacketSweepNs;
  counters_.packets_expired += absl::erase_if(
      packets_, [now](const auto& kv) { return kv.second.ts < now - kPacketExpiryNs; });
}

void KernelModel::OnLost(const KernelEvent& e, Cpu* c) {
  ++counters_.lost_records;
  counters_.lost_events += static_cast<uint64_t>(std::max<int64_t>(e.lost_count(), 0));
  if (!c) return;
  Host& h = hosts_[e.host];
  if (c->current > 0) {
    const WorkerId w = Find(h, c->current);
    if (w != graph::kNoWorker && g_->alive(w)) g_->SetState(w, e.ts, State::kUnknown, q_lost_);
  }
  c->current = kUnknownTid;
  c->depth = 0;
  c->block_task = kUnknownTid;
  RecordCpuTask(e, kUnknownTid, graph::kNoWorker);
  MarkLostWindow(e.host, e.cpu, e.ts, e.end_ts);
  c->loose_rx.valid = false;
  // Wake-ups before the loss keep the task then current: the next switch is no evidence.
  c->pending_wakes.clear();
  c->pending_unlinked = false;
}

StringId KernelModel::DevQual(Host& h, int64_t dev, bool throttle) {
  auto& quals = throttle ? h.throttle_quals : h.dev_quals;
  auto it = quals.find(dev);
  if (it != quals.end()) return it->second;
  // dev_t as the kernel keeps it: major in the high 12 bits, minor in the low 20.
  const uint64_t d = static_cast<uint64_t>(dev);
  const StringId q = g_->Intern(
      fmt::format("{}disk {}:{}", throttle ? "blkio throttle, " : "", d >> 20, d & 0xfffff));
  quals.emplace(dev, q);
  return q;
}

void KernelModel::OnBlockComplete(const KernelEvent& e, Cpu* c) {
  if (!c) return;
  Host& h = hosts_[e.host];
  BlockDone done;
  done.dev = e.dev();
  done.qual = DevQual(h, e.dev(), false);
  done.matched = block_requests_.Complete(e.host, e.dev(), e.sector, e.ts, &done.times);
  if (Frame* f = c->top()) {
    f->block = true;
    f->block_done = done;
  } else if (e.has_context_flags && (e.context_flags & (kFlagHardirq | kFlagSoftirq))) {
    c->block_task = kFlaggedInterrupt;
    c->block_done = done;
  } else if (c->current > 0) {
    c->block_task = c->current;
    c->block_done = done;
  }
}

void KernelModel::SplitBlockWait(uint32_t host, WorkerId t, int64_t now, const BlockDone& b) {
  ++counters_.block_waits_split;
  const int64_t t0 = g_->worker(t).ts.back();
  now = std::max(now, t0);  // a timeline is ordered even when the trace's time is not
  auto clamp = [&](int64_t x) { return std::clamp(x, t0, now); };
  // A request seen only at its issue was queued then for all the trace says; one never
  // issued (its issue event lost) was on the device from its queueing.
  const int64_t issued = clamp(b.times.issued >= 0 ? b.times.issued : b.times.queued);
  const int64_t queued = std::min(issued, clamp(b.times.queued >= 0 ? b.times.queued : issued));
  struct Part {
    int64_t start;
    State state;
    StringId qual;
  };
  // Before the request was queued the thread waited on something else, or (throttled) on
  // the throttle that held the request back before the block layer saw it.
  const Part parts[3] = {{t0, b.times.throttled ? State::kBlockQueue : State::kBlocked,
                          b.times.throttled ? DevQual(hosts_[host], b.dev, true) : q_before_io_},
                         {queued, State::kBlockQueue, b.qual},
                         {issued, State::kBlockDevice, b.qual}};
  bool first = true;
  for (int i = 0; i < 3; ++i) {
    const int64_t end = i < 2 ? parts[i + 1].start : now;
    if (end <= parts[i].start) continue;
    if (first)
      g_->RelabelOpen(t, parts[i].state, parts[i].qual);
    else
      g_->SetState(t, parts[i].start, parts[i].state, parts[i].qual);
    first = false;
  }
  if (first) g_->RelabelOpen(t, State::kBlockDevice, b.qual);  // a wait of no length
}

void KernelModel::MarkLostWindow(uint32_t host, int32_t cpu, int64_t from, int64_t until) {
  if (until <= from) return;
  for (WorkerId w = 0; w < g_->num_workers(); ++w) {
    const graph::Worker& k = g_->worker(w);
    if (k.host != host) continue;
    const State s = k.open_state();
    // Running elsewhere (seen), unknown already, or gone: nothing more to say. A thread
    // queued on another CPU waits there, whatever this one did; a sleeper could have been
    // woken by a task of this CPU, and a thread queued here could have run.
    if (s == State::kRunning || s == State::kNone) continue;
    if (s == State::kPreempted && last_cpu_[w] >= 0 && last_cpu_[w] != cpu) continue;
    const bool in_window = s == State::kUnknown && k.qualifier(k.size() - 1) == q_lost_window_;
    auto it = lost_window_waits_.find(w);
    if (it != lost_window_waits_.end()) {
      if (in_window) {  // in another window already: until the later end
        it->second.until = std::max(it->second.until, until);
        continue;
      }
      lost_window_waits_.erase(it);  // an event of its own came since
    }
    if (s == State::kUnknown) continue;
    const int64_t at = std::max(from, k.ts.back());
    if (at >= until) continue;
    lost_window_waits_[w] = {until, s, k.qualifier(k.size() - 1)};
    ++counters_.lost_window_waits;
    g_->SetState(w, at, State::kUnknown, q_lost_window_);
  }
  next_lost_window_end_ = std::min(next_lost_window_end_, until);
}

void KernelModel::RestoreLostWindows(int64_t now) {
  next_lost_window_end_ = INT64_MAX;
  for (auto it = lost_window_waits_.begin(); it != lost_window_waits_.end();) {
    const auto [w, wait] = *it;
    if (wait.until > now) {
      next_lost_window_end_ = std::min(next_lost_window_end_, wait.until);
      ++it;
      continue;
    }
    // Still as the window left it (no event of the thread since): back to the wait it was
    // in, from the window's end on.
    const graph::Worker& k = g_->worker(w);
    if (k.open_state() == State::kUnknown && k.qualifier(k.size() - 1) == q_lost_window_)
      g_->SetState(w, wait.until, wait.state, wait.qual);
    lost_window_waits_.erase(it++);
  }
}

void KernelModel::Finish(int64_t end) {
  RestoreLostWindows(end > 0 ? end : last_ts_);
  g_->set_end(end > 0 ? end : last_ts_);
  // A wait still open was cut off by the end of the trace: say so, rather than leave a
  // BLOCKED without a word that reads like a cause the analysis failed to find.
  for (WorkerId w = 0; w < g_->num_workers(); ++w)
    if (g_->open_state(w) == State::kBlocked && g_->worker(w).qualifier(g_->last_vertex(w)) == 0)
      g_->RelabelOpen(w, State::kBlocked, q_end_of_trace_);
  counters_.unnamed_qualifiers = g_->unnamed_qualifiers();
  counters_.block = block_requests_.counters();
}

}  // namespace causeway::kernel
