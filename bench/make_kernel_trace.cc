// make_kernel_trace: writes a synthetic LTTng-kernel-like CTF trace (lttng-modules 2.8
// event names and layouts) of about N MB of stream data.
//
//   make_kernel_trace OUT_DIR --size-mb N [--cpus 4] [--seed S] [--lost] [--packet-kb 256]
//                     [--plain-header] [--rotate-mb M]
//
// A small discrete-event simulation of a Linux machine drives the writer: per CPU a
// scheduler with a run queue and an idle task; threads with behaviours (CPU hogs, file I/O
// that blocks on the disk, network servers woken by NIC interrupts, futex ping-pong pairs
// with timeouts, sleepers woken by hrtimers, kworkers, a shell forking short-lived
// children that exec, run and exit); scheduler ticks with preemption; irq, softirq, block,
// timer, kmem, net and power events; an initial state dump. Timestamps increase per CPU
// with gaps of hundreds of ns to µs, and CPUs sometimes sleep for 140-500 ms (gaps above
// 2^27 ns, so the writer must use extended event headers). --lost drops bursts of events
// and records them as discarded (packet-context events_discarded). --plain-header writes
// perf's event header (u32 id, u64 timestamp) instead of LTTng's compact one, to measure
// the reader's plain-header path on the same events. --rotate-mb M cuts the recording into
// chunks every M MB, as `lttng rotate` does (CtfWriter::Rotate), to measure reading a
// rotated recording. Output is a pure function of the arguments (the trace UUID too).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ctf/writer/ctf_writer.h"
#include "kernel/lttng_kernel_layout.h"

namespace {

using causeway::Status;
using causeway::ctf::CtfWriter;
using causeway::ctf::FieldKind;
using causeway::ctf::FieldSpec;
using causeway::ctf::TraceOptions;
using causeway::kernel::LttngDeclaration;
using causeway::kernel::LttngEvent;

// ---------------------------------------------------------------------------------------
// Random numbers: xoshiro256**, seeded with splitmix64.

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& x : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      x = z ^ (z >> 31);
    }
  }
  uint64_t Next() {
    uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<__uint128_t>(Next()) * n) >> 64);
  }
  // Uniform in [lo, hi].
  uint64_t Range(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
  // True with probability per_million / 1e6.
  bool Chance(uint32_t per_million) { return Below(1000000) < per_million; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// ---------------------------------------------------------------------------------------
// Event classes, in an lttng-modules-like id order: state dump, syscall entries (by
// syscall number), syscall exits, then tracepoints. Ids >= 31 use the extended header.

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

struct Ids {
  uint32_t statedump_start, statedump_end, statedump_process_state;
  uint32_t sys_entry[kSysCount], sys_exit[kSysCount];
  uint32_t sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
      sched_stat_runtime, sched_process_fork, sched_process_exec, sched_process_exit,
      sched_process_free;
  uint32_t irq_handler_entry, irq_handler_exit, softirq_raise, softirq_entry, softirq_exit;
  uint32_t hrtimer_start, hrtimer_cancel, hrtimer_expire_entry, hrtimer_expire_exit;
  uint32_t block_rq_insert, block_rq_issue, block_rq_complete;
  uint32_t kmalloc, kfree, net_dev_queue, netif_receive_skb, power_cpu_idle, power_cpu_frequency;
};

Status Declare(CtfWriter& w, Ids& ids) {
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

// ---------------------------------------------------------------------------------------
// The simulated machine.

enum class Prof : uint8_t { kIdle, kHog, kIo, kNet, kFutex, kSleeper, kShell, kChild, kKworker };
enum class TState : uint8_t { kRunning, kRunnable, kBlocked, kDead };

struct Thread {
  int32_t tid = 0, pid = 0, ppid = 0, prio = 20;
  char comm[16] = {};
  Prof prof = Prof::kHog;
  TState state = TState::kRunnable;
  uint32_t cpu = 0;
  int8_t pending = -1;  // syscall to return from when next run
  int64_t pending_ret = 0;
  int32_t partner = -1;   // futex pair
  uint32_t wake_gen = 0;  // invalidates timer wakeups after another wakeup
  uint32_t step = 0;      // position in the behaviour's cycle
  int32_t life = 0;       // children: actions left
  uint64_t uaddr = 0;     // futex word / misc address
  uint64_t hrtimer = 0;   // its sleep timer
  uint64_t io_sector = 0;
  uint32_t io_nr = 0;
  uint64_t vruntime = 0;
  uint64_t run_start = 0;  // when it was switched in
  bool in_epoll = false;

  std::string_view Comm() const { return {comm, 16}; }
  void SetComm(std::string_view s) {
    std::memset(comm, 0, sizeof(comm));
    std::memcpy(comm, s.data(), std::min<size_t>(s.size(), 15));
  }
};

struct Cpu {
  uint32_t id = 0;
  uint64_t now = 0;
  int32_t current = -1;  // thread index; the swapper when idle
  int32_t swapper = -1;
  std::deque<int32_t> rq;
  uint32_t run_gen = 0;
  bool kick_pending = false;
  bool tick_on = false;
  uint32_t tick_gen = 0;
  uint64_t deep_idle_until = 0;
  uint64_t tick_timer = 0;
  uint64_t drop_left = 0;   // --lost: events still to drop
  uint64_t until_drop = 0;  // --lost: kept events before the next burst of drops
  uint64_t lost = 0;
};

enum class Ev : uint8_t { kRun, kTick, kDiskIrq, kNetIrq, kTimerWake, kFree, kIdleEnd };
// A timed action, 16 bytes: bits = cpu (8) | ev (3) | arg (21) | gen (32).
struct Pending {
  uint64_t t;
  uint64_t bits;
  uint32_t cpu() const { return static_cast<uint32_t>(bits >> 56); }
  Ev ev() const { return static_cast<Ev>((bits >> 53) & 7); }
  int32_t arg() const { return static_cast<int32_t>((bits >> 32) & 0x1fffff); }
  uint32_t gen() const { return static_cast<uint32_t>(bits); }
  bool operator>(const Pending& o) const { return t != o.t ? t > o.t : bits > o.bits; }
};

constexpr uint64_t kUs = 1000, kMs = 1000 * kUs;
constexpr int64_t kTaskRunning = 0, kTaskInterruptible = 1, kTaskUninterruptible = 2,
                  kTaskDead = 64;
constexpr uint32_t kSoftirqTimer = 1, kSoftirqNetTx = 2, kSoftirqNetRx = 3, kSoftirqBlock = 4,
                   kSoftirqSched = 7, kSoftirqRcu = 9;
constexpr uint64_t kFnTickSched = 0xffffffff810f1c30ULL, kFnHrtimerWakeup = 0xffffffff810e3a90ULL;
constexpr int kMaxChildren = 64;

class Machine {
 public:
  Machine(CtfWriter& w, const Ids& ids, uint32_t ncpus, uint64_t seed, bool lost)
      : w_(w), ids_(ids), rng_(seed), lost_(lost) {
    cpus_.resize(ncpus);
    uint64_t start = 3600 * 1000 * kMs + rng_.Below(1000 * kMs);
    for (uint32_t c = 0; c < ncpus; ++c) {
      cpus_[c].id = c;
      cpus_[c].now = start + rng_.Below(50 * kUs);
      cpus_[c].tick_timer = 0xffff88007fc0e0a0ULL + 0x40000ULL * c;
      cpus_[c].until_drop = rng_.Range(5000, 60000);
    }
    next_tid_ = 1000 + static_cast<int32_t>(rng_.Below(3000));
    threads_.reserve(ncpus * 8 + 64 + kMaxChildren);
    CreateThreads();
  }

  // Writes until `target_bytes` of stream data; with `rotate_bytes`, calls `rotate` each
  // time that many more have been written (between events, as `lttng rotate` cuts).
  void Run(uint64_t target_bytes, uint64_t rotate_bytes = 0,
           const std::function<void()>& rotate = {}) {
    uint64_t next_rotation = rotate_bytes ? rotate_bytes : UINT64_MAX;
    StateDump();
    for (auto& c : cpus_) {
      SwitchTo(c, c.rq.empty() ? c.swapper : PopRq(c), kTaskRunning, /*emit=*/false);
      if (c.current != c.swapper) StartTick(c);
    }
    Push(cpus_[0].now + rng_.Range(20 * kUs, 200 * kUs), 0, Ev::kNetIrq, 0, 0);
    for (uint64_t iter = 0;; ++iter) {
      if ((iter & 1023) == 0) {
        const uint64_t written = w_.bytes_written();
        if (written >= target_bytes) break;
        if (written >= next_rotation) {
          rotate();
          next_rotation += rotate_bytes;
        }
      }
      if (!w_.status().ok()) break;
      Pending p = queue_.top();
      queue_.pop();
      uint32_t cpu = p.cpu();
      Ev ev = p.ev();
      if ((ev == Ev::kDiskIrq || ev == Ev::kNetIrq || ev == Ev::kFree) && Asleep(cpus_[cpu], p.t))
        cpu = AwakeCpu(cpu, p.t);  // interrupts are routed to awake CPUs
      Cpu& c = cpus_[cpu];
      if (p.t > c.now) c.now = p.t;
      switch (ev) {
        case Ev::kRun:
          if (p.gen() == c.run_gen) RunSteps(c);
          break;
        case Ev::kTick:
          if (p.gen() == c.tick_gen) Tick(c);
          break;
        case Ev::kDiskIrq:
          DiskIrq(c, p.arg());
          break;
        case Ev::kNetIrq:
          NetIrq(c);
          break;
        case Ev::kTimerWake:
          TimerWake(c, p.arg(), p.gen());
          break;
        case Ev::kFree:
          ProcessFree(c, p.arg());
          break;
        case Ev::kIdleEnd:
          IdleEnd(c);
          break;
      }
    }
    for (Cpu& c : cpus_)  // a burst of drops still running at the end
      if (c.drop_left) (void)w_.SetDiscarded(c.id, c.lost);
  }

  uint64_t lost() const {
    uint64_t n = 0;
    for (const auto& c : cpus_) n += c.lost;
    return n;
  }

 private:
  // --- Time, queue, emission helpers.

  uint64_t At(Cpu& c, uint64_t lo, uint64_t hi) { return c.now += rng_.Range(lo, hi); }
  // Most events are a few hundred ns apart.
  uint64_t Soon(Cpu& c) { return At(c, 150, 900); }

  void Push(uint64_t t, uint32_t cpu, Ev ev, uint32_t gen, int32_t arg) {
    queue_.push(Pending{
        t, uint64_t{cpu} << 56 | uint64_t(ev) << 53 | uint64_t(arg & 0x1fffff) << 32 | gen});
  }
  // The CPU whose thread is running a step keeps going without a trip through the queue
  // when its next step comes before anything else (RunSteps).
  void ScheduleRun(Cpu& c, uint64_t t) {
    ++c.run_gen;
    if (&c == active_) {
      deferred_ = true;
      deferred_t_ = t;
      deferred_gen_ = c.run_gen;
      return;
    }
    Push(t, c.id, Ev::kRun, c.run_gen, 0);
  }

  void RunSteps(Cpu& c) {
    active_ = &c;
    for (int k = 0; k < 64; ++k) {
      deferred_ = false;
      RunStep(c);
      if (!deferred_ || deferred_gen_ != c.run_gen) break;
      if (k == 63 || (!queue_.empty() && queue_.top().t <= deferred_t_)) {
        Push(deferred_t_, c.id, Ev::kRun, c.run_gen, 0);
        break;
      }
      if (deferred_t_ > c.now) c.now = deferred_t_;
    }
    deferred_ = false;
    active_ = nullptr;
  }

  // --lost: bursts of dropped events, reported as discarded before the next kept event.
  bool Keep(Cpu& c) {
    if (!lost_) return true;
    if (c.drop_left) {
      c.lost++;
      if (--c.drop_left == 0) (void)w_.SetDiscarded(c.id, c.lost);
      return false;
    }
    if (--c.until_drop == 0) {
      c.drop_left = rng_.Range(50, 3000);
      c.until_drop = rng_.Range(50000, 300000);
    }
    return true;
  }

  CtfWriter::EventBuilder Event(Cpu& c, uint32_t id) { return w_.Begin(c.id, id, c.now); }

  Thread& T(int32_t i) { return threads_[static_cast<size_t>(i)]; }

  // --- Threads.

  int32_t NewThread(std::string_view comm, Prof prof, uint32_t cpu, int32_t pid = -1,
                    int32_t prio = 20) {
    Thread t;
    t.tid = next_tid_++;
    t.pid = pid < 0 ? t.tid : pid;
    t.ppid = 1;
    t.prio = prio;
    t.SetComm(comm);
    t.prof = prof;
    t.cpu = cpu;
    t.uaddr = 0x7f0000000000ULL + (rng_.Below(1 << 20) << 12) + rng_.Below(64) * 8;
    t.hrtimer = 0xffff880000000000ULL + (rng_.Below(1 << 24) << 6);
    t.vruntime = rng_.Below(1000 * kMs);
    t.wake_gen = gen_base_;  // stale timer wakeups of a reused slot never match
    gen_base_ += 1u << 16;
    int32_t idx;
    if (!free_slots_.empty()) {
      idx = free_slots_.back();
      free_slots_.pop_back();
      threads_[static_cast<size_t>(idx)] = t;
    } else {
      // References to threads stay valid during a step: threads_ never reallocates.
      if (threads_.size() == threads_.capacity()) {
        std::fprintf(stderr, "make_kernel_trace: too many threads\n");
        std::abort();
      }
      idx = static_cast<int32_t>(threads_.size());
      threads_.push_back(t);
    }
    return idx;
  }

  void CreateThreads() {
    uint32_t n = static_cast<uint32_t>(cpus_.size());
    for (uint32_t c = 0; c < n; ++c) {
      Thread s;
      s.tid = 0;
      s.pid = 0;
      s.ppid = 0;
      s.SetComm("swapper/" + std::to_string(c));
      s.prof = Prof::kIdle;
      s.cpu = c;
      cpus_[c].swapper = static_cast<int32_t>(threads_.size());
      threads_.push_back(s);
    }
    auto add = [&](std::string_view comm, Prof prof, uint32_t cpu, int32_t pid = -1,
                   int32_t prio = 20) {
      int32_t i = NewThread(comm, prof, cpu % n, pid, prio);
      T(i).state = TState::kRunnable;
      cpus_[cpu % n].rq.push_back(i);
      return i;
    };
    for (uint32_t c = 0; c < n; ++c) {
      int32_t k = add("kworker/" + std::to_string(c) + ":1", Prof::kKworker, c);
      T(k).ppid = 2;
      int32_t kh = add("kworker/" + std::to_string(c) + ":1H", Prof::kKworker, c, -1, 0);
      T(kh).ppid = 2;
    }
    uint32_t c = 0;
    add("systemd-journal", Prof::kIo, c++);
    add("postgres", Prof::kIo, c++);
    add("updatedb", Prof::kIo, c++);
    int32_t nginx = add("nginx", Prof::kNet, c++);
    add("nginx", Prof::kNet, c++, T(nginx).pid);
    add("sshd", Prof::kNet, c++);
    add("python3", Prof::kHog, c++);
    add("cc1plus", Prof::kHog, c++);
    add("cron", Prof::kSleeper, c++);
    add("irqbalance", Prof::kSleeper, c++);
    add("bash", Prof::kShell, c++);
    add("make", Prof::kShell, c++);
    // Futex ping-pong pairs in one multi-threaded process per ~2 CPUs.
    int32_t leader = -1;
    for (uint32_t i = 0; i < std::max<uint32_t>(2, n); ++i) {
      int32_t a = add(i % 2 ? "Web Content" : "firefox", Prof::kFutex, c++, leader);
      if (leader < 0) leader = T(a).pid;
      int32_t b = add("Compositor", Prof::kFutex, c++, T(a).pid);
      T(a).partner = b;
      T(b).partner = a;
      T(b).uaddr = T(a).uaddr;
    }
    // More hogs and I/O threads on bigger machines.
    for (uint32_t i = 12; i < n; i += 4) {
      add("ld", Prof::kHog, c++);
      add("rsync", Prof::kIo, c++);
    }
  }

  // --- Scheduling.

  int32_t PopRq(Cpu& c) {
    int32_t i = c.rq.front();
    c.rq.pop_front();
    return i;
  }

  // Switches c to `next`, the previous current thread having been left in `prev_state`.
  void SwitchTo(Cpu& c, int32_t next, int64_t prev_state, bool emit = true) {
    int32_t prev = c.current;
    Thread& n = T(next);
    if (emit && prev >= 0) {
      Thread& p = T(prev);
      if (p.prof != Prof::kIdle && prev_state == kTaskRunning) {
        uint64_t ran = c.now - p.run_start;
        p.vruntime += ran;
      }
      if (prev == c.swapper && Keep(c)) Event(c, ids_.power_cpu_idle).U32(4294967295u).U32(c.id);
      if (prev == c.swapper) Soon(c);
      if (Keep(c))
        Event(c, ids_.sched_switch)
            .Chars16(p.Comm())
            .S32(p.tid)
            .S32(p.prio)
            .S64(prev_state)
            .Chars16(n.Comm())
            .S32(n.tid)
            .S32(n.prio);
    }
    c.current = next;
    n.state = TState::kRunning;
    n.cpu = c.id;
    n.run_start = c.now;
    if (next == c.swapper) {
      c.run_gen++;  // nothing to run
      if (emit) {
        Soon(c);
        if (Keep(c)) Event(c, ids_.power_cpu_idle).U32(1).U32(c.id);
      }
      c.tick_on = false;  // NOHZ idle
      c.tick_gen++;
      MaybeDeepIdle(c);
    } else {
      if (!c.tick_on) StartTick(c);
      ScheduleRun(c, c.now + rng_.Range(300, 3 * kUs));
    }
  }

  void StartTick(Cpu& c) {
    c.tick_on = true;
    Push(c.now + rng_.Range(50 * kUs, 4 * kMs), c.id, Ev::kTick, ++c.tick_gen, 0);
  }

  // The current thread stops running (blocks or exits); the next runnable one, or the
  // idle task, takes the CPU.
  void Deschedule(Cpu& c, int64_t state) {
    Thread& cur = T(c.current);
    cur.state = state == kTaskDead ? TState::kDead : TState::kBlocked;
    Soon(c);
    SwitchTo(c, c.rq.empty() ? c.swapper : PopRq(c), state);
  }

  void MaybeDeepIdle(Cpu& c) {
    // Sometimes a CPU goes to deep sleep for 140-500 ms: its wakeups go elsewhere.
    if (cpus_.size() < 2 || !rng_.Chance(1000)) return;
    size_t sleeping = 0;
    for (const auto& o : cpus_) sleeping += o.deep_idle_until > c.now;
    if (sleeping + 1 >= cpus_.size()) return;
    c.deep_idle_until = c.now + rng_.Range(140 * kMs, 500 * kMs);
    Push(c.deep_idle_until, c.id, Ev::kIdleEnd, 0, 0);
  }

  bool Asleep(const Cpu& c, uint64_t now) const { return c.deep_idle_until > now; }

  uint32_t AwakeCpu(uint32_t preferred, uint64_t now) {
    if (!Asleep(cpus_[preferred], now)) return preferred;
    for (size_t k = 1; k < cpus_.size(); ++k) {
      uint32_t o = static_cast<uint32_t>((preferred + k) % cpus_.size());
      if (!Asleep(cpus_[o], now)) return o;
    }
    return preferred;
  }

  // The waker, running on c, makes thread i runnable.
  void Wake(Cpu& c, int32_t i, int64_t ret) {
    Thread& t = T(i);
    if (t.state != TState::kBlocked) return;
    t.wake_gen++;
    t.pending_ret = ret;
    uint32_t target = AwakeCpu(t.cpu, c.now);
    if (cpus_[target].current != cpus_[target].swapper && rng_.Chance(500000)) {
      // select_task_rq: prefer an idle CPU (starting the scan at a random one).
      uint32_t start = static_cast<uint32_t>(rng_.Below(cpus_.size()));
      for (size_t k = 0; k < cpus_.size(); ++k) {
        const Cpu& o = cpus_[(start + k) % cpus_.size()];
        if (o.current == o.swapper && o.rq.empty() && !Asleep(o, c.now)) {
          target = o.id;
          break;
        }
      }
    }
    if (target != t.cpu) {
      Soon(c);
      if (Keep(c))
        Event(c, ids_.sched_migrate_task)
            .Chars16(t.Comm())
            .S32(t.tid)
            .S32(t.prio)
            .S32(static_cast<int32_t>(t.cpu))
            .S32(static_cast<int32_t>(target));
      t.cpu = target;
    }
    Soon(c);
    if (Keep(c))
      Event(c, ids_.sched_waking)
          .Chars16(t.Comm())
          .S32(t.tid)
          .S32(t.prio)
          .S32(static_cast<int32_t>(target));
    Soon(c);
    if (Keep(c))
      Event(c, ids_.sched_wakeup)
          .Chars16(t.Comm())
          .S32(t.tid)
          .S32(t.prio)
          .S32(static_cast<int32_t>(target));
    Enqueue(c, i, target);
  }

  void Enqueue(Cpu& waker, int32_t i, uint32_t target) {
    T(i).state = TState::kRunnable;
    Cpu& tc = cpus_[target];
    tc.rq.push_back(i);
    if (tc.current == tc.swapper && !tc.kick_pending) {
      tc.kick_pending = true;
      uint64_t lat = target == waker.id ? rng_.Range(500, 3 * kUs) : rng_.Range(2 * kUs, 25 * kUs);
      ScheduleRun(tc, std::max(waker.now + lat, tc.now));
    }
  }

  // --- Syscalls.

  void Entry(Cpu& c, Thread& t, Sys s) {
    Soon(c);
    if (!Keep(c)) return;
    auto e = Event(c, ids_.sys_entry[s]);
    uint64_t buf = 0x7ffd00000000ULL + (rng_.Below(1 << 20) << 4);
    switch (s) {
      case kRead:
        e.U32(3 + static_cast<uint32_t>(rng_.Below(20))).U64(rng_.Chance(500000) ? 4096 : 65536);
        break;
      case kWrite:
        e.U32(1 + static_cast<uint32_t>(rng_.Below(20))).U64(buf).U64(rng_.Range(1, 8192));
        break;
      case kClose:
        e.U32(3 + static_cast<uint32_t>(rng_.Below(20)));
        break;
      case kNewfstat:
        e.U32(3 + static_cast<uint32_t>(rng_.Below(20)));
        break;
      case kPoll:
        e.U64(buf)
            .U32(static_cast<uint32_t>(rng_.Range(1, 8)))
            .S32(rng_.Chance(500000) ? -1 : 1000);
        break;
      case kLseek:
        e.U32(3 + static_cast<uint32_t>(rng_.Below(20)))
            .S64(static_cast<int64_t>(rng_.Below(1 << 30)))
            .U32(0);
        break;
      case kMmap:
        e.Hex64(0).U64(rng_.Range(1, 256) << 12).S32(3).S32(34).S32(-1).S64(0);
        break;
      case kMunmap:
        e.U64(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)).U64(rng_.Range(1, 256) << 12);
        break;
      case kIoctl:
        e.U32(3 + static_cast<uint32_t>(rng_.Below(20))).U32(21505).U64(buf);
        break;
      case kSchedYield:
        break;
      case kNanosleep:
        e.U64(buf);
        break;
      case kSendto:
        e.S32(5 + static_cast<int32_t>(rng_.Below(100)))
            .U64(buf)
            .U64(rng_.Range(40, 1448))
            .U32(64)
            .U64(0)
            .S32(0);
        break;
      case kRecvfrom:
        e.S32(5 + static_cast<int32_t>(rng_.Below(100))).U64(65536).U32(64).U64(0);
        break;
      case kClone:
        e.Hex64(0x1200011).Hex64(0).Hex64(0).Hex64(0x7f3c5a1d59d0ULL);
        break;
      case kExecve:
        e.String(exec_path_).Hex64(buf).Hex64(buf + 64);
        break;
      case kFutex:
        e.U64(t.uaddr).S32(t.step % 2 ? 129 : 128).U32(1).U64(0).U64(0).U32(0);
        break;
      case kExitGroup:
        e.S32(0);
        break;
      case kEpollWait:
        e.S32(4).S32(512).S32(-1);
        break;
      case kOpenat:
        e.S32(-100).String(OpenPath()).S32(524288).U16(0);
        break;
      case kSysCount:
        break;
    }
  }

  void Exit(Cpu& c, Thread& t, Sys s, int64_t ret) {
    Soon(c);
    if (!Keep(c)) return;
    auto e = Event(c, ids_.sys_exit[s]);
    e.S64(ret);
    switch (s) {
      case kRead:
        e.U64(0x7ffd00000000ULL + (rng_.Below(1 << 20) << 4));
        break;
      case kNewfstat:
        e.U64(0x7ffd00001000ULL);
        break;
      case kPoll:
        e.U64(0x7ffd00002000ULL);
        break;
      case kIoctl:
        e.U64(0x7ffd00003000ULL);
        break;
      case kNanosleep:
        e.U64(0);
        break;
      case kRecvfrom:
        e.U64(0x7f1200000000ULL + (rng_.Below(1 << 16) << 8)).U64(0).U64(0);
        break;
      case kFutex:
        e.U64(t.uaddr).U64(0);
        break;
      case kEpollWait:
        e.U64(0x7ffd00004000ULL);
        break;
      default:
        break;
    }
  }

  // A syscall that does not block: entry, some kernel work, exit.
  void Quick(Cpu& c, Thread& t, Sys s, int64_t ret) {
    Entry(c, t, s);
    if ((s == kOpenat || s == kMmap) && rng_.Chance(300000)) Kmalloc(c);
    if (s == kClose && rng_.Chance(300000)) Kfree(c);
    At(c, 200, 3 * kUs);
    Exit(c, t, s, ret);
  }

  // A syscall that blocks: entry, then the thread sleeps; `ret` is what it returns unless
  // the waker says otherwise.
  void Blocking(Cpu& c, Thread& t, Sys s, int64_t state, int64_t ret) {
    Entry(c, t, s);
    t.pending = static_cast<int8_t>(s);
    t.pending_ret = ret;
    Deschedule(c, state);
  }

  void SleepFor(Cpu& c, Thread& t, uint64_t ns) {
    Soon(c);
    if (Keep(c))
      Event(c, ids_.hrtimer_start)
          .Hex64(t.hrtimer)
          .Hex64(kFnHrtimerWakeup)
          .S64(static_cast<int64_t>(c.now + ns))
          .S64(static_cast<int64_t>(c.now + ns));
    Push(c.now + ns, t.cpu, Ev::kTimerWake, t.wake_gen + 1,
         static_cast<int32_t>(&t - threads_.data()));
  }

  const char* OpenPath() {
    static constexpr const char* kPaths[] = {"/etc/ld.so.cache",
                                             "/lib/x86_64-linux-gnu/libc.so.6",
                                             "/proc/self/stat",
                                             "/var/lib/postgresql/base/16384/2619",
                                             "/home/user/src/main.cc",
                                             "/usr/share/locale/locale.alias",
                                             "/sys/devices/system/cpu/online",
                                             "/dev/null"};
    return kPaths[rng_.Below(std::size(kPaths))];
  }

  void Kmalloc(Cpu& c) {
    Soon(c);
    if (Keep(c))
      Event(c, ids_.kmalloc)
          .Hex64(0xffffffff811a2b3cULL)
          .Hex64(0xffff880000000000ULL + (rng_.Below(1 << 26) << 6))
          .U64(rng_.Range(8, 4096))
          .U64(4096)
          .U32(37748928);
  }
  void Kfree(Cpu& c) {
    Soon(c);
    if (Keep(c))
      Event(c, ids_.kfree)
          .Hex64(0xffffffff811a4f10ULL)
          .Hex64(0xffff880000000000ULL + (rng_.Below(1 << 26) << 6));
  }

  // --- Behaviours: one step of the current thread.

  void RunStep(Cpu& c) {
    c.kick_pending = false;
    if (c.current == c.swapper) {
      if (c.rq.empty()) return;
      SwitchTo(c, PopRq(c), kTaskRunning);
      return;
    }
    int32_t self = c.current;
    Thread& t = T(self);
    if (t.pending >= 0) {
      Sys s = static_cast<Sys>(t.pending);
      t.pending = -1;
      Exit(c, t, s, t.pending_ret);
      if (s == kEpollWait && t.prof == Prof::kNet) t.in_epoll = false;
      ScheduleRun(c, c.now + rng_.Range(300, 20 * kUs));
      return;
    }
    t.step++;
    switch (t.prof) {
      case Prof::kIdle:
        return;
      case Prof::kHog:
        StepHog(c, t);
        break;
      case Prof::kIo:
        StepIo(c, t);
        break;
      case Prof::kNet:
        StepNet(c, t);
        break;
      case Prof::kFutex:
        StepFutex(c, t);
        break;
      case Prof::kSleeper:
        StepSleeper(c, t);
        break;
      case Prof::kShell:
        StepShell(c, t);
        break;
      case Prof::kChild:
        StepChild(c, self);
        return;
      case Prof::kKworker:
        StepKworker(c, t);
        return;
    }
    if (c.current == self) ScheduleRun(c, c.now + rng_.Range(300, 30 * kUs));
  }

  void StepHog(Cpu& c, Thread& t) {
    uint64_t r = rng_.Below(100);
    if (r < 40)
      Quick(c, t, kWrite, static_cast<int64_t>(rng_.Range(1, 4096)));
    else if (r < 55)
      Quick(c, t, kMmap, static_cast<int64_t>(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)));
    else if (r < 70)
      Quick(c, t, kMunmap, 0);
    else if (r < 80)
      Quick(c, t, kSchedYield, 0);
    else if (r < 95)
      Quick(c, t, kRead, static_cast<int64_t>(rng_.Range(0, 65536)));
    else
      Quick(c, t, kIoctl, 0);
    At(c, 5 * kUs, 200 * kUs);  // compute
  }

  void StepIo(Cpu& c, Thread& t) {
    switch (t.step % 8) {
      case 0:
        Quick(c, t, kOpenat, 3 + static_cast<int64_t>(rng_.Below(20)));
        break;
      case 1:
        Quick(c, t, kNewfstat, 0);
        break;
      case 5:
        Quick(c, t, kLseek, static_cast<int64_t>(rng_.Below(1 << 30)));
        break;
      case 7:
        Quick(c, t, kClose, 0);
        break;
      default:
        if (rng_.Chance(350000)) {  // page cache miss: wait for the disk
          Entry(c, t, kRead);
          t.io_sector = rng_.Below(1ULL << 30) * 8;
          t.io_nr = static_cast<uint32_t>(8 * rng_.Range(1, 32));
          Soon(c);
          if (Keep(c))
            Event(c, ids_.block_rq_insert)
                .U32(8388608)
                .U64(t.io_sector)
                .U32(t.io_nr)
                .U32(t.io_nr * 512)
                .S32(t.tid)
                .U32(8)
                .Chars16(t.Comm());
          Soon(c);
          if (Keep(c))
            Event(c, ids_.block_rq_issue)
                .U32(8388608)
                .U64(t.io_sector)
                .U32(t.io_nr)
                .U32(t.io_nr * 512)
                .S32(t.tid)
                .U32(8)
                .Chars16(t.Comm());
          Push(c.now + rng_.Range(60 * kUs, 4 * kMs), AwakeCpu(0, c.now), Ev::kDiskIrq, 0,
               static_cast<int32_t>(&t - threads_.data()));
          t.pending = kRead;
          t.pending_ret = t.io_nr * 512;
          Deschedule(c, kTaskUninterruptible);
          return;
        }
        Quick(c, t, rng_.Chance(200000) ? kWrite : kRead,
              static_cast<int64_t>(rng_.Range(1, 65536)));
    }
    At(c, 500, 40 * kUs);
  }

  void StepNet(Cpu& c, Thread& t) {
    switch (t.step % 4) {
      case 0:
        if (net_backlog_ > 0) {
          --net_backlog_;
          Quick(c, t, kEpollWait, 1);
        } else {
          t.in_epoll = true;
          net_waiters_.push_back(static_cast<int32_t>(&t - threads_.data()));
          Blocking(c, t, kEpollWait, kTaskInterruptible, 1);
        }
        break;
      case 1:
        Quick(c, t, kRecvfrom, static_cast<int64_t>(rng_.Range(40, 1448)));
        break;
      case 2: {
        Entry(c, t, kSendto);
        Soon(c);
        uint32_t len = static_cast<uint32_t>(rng_.Range(54, 1514));
        if (Keep(c))
          Event(c, ids_.net_dev_queue)
              .Hex64(0xffff8800b0000000ULL + (rng_.Below(1 << 20) << 8))
              .U32(len)
              .String("enp0s25");
        At(c, 500, 4 * kUs);
        Exit(c, t, kSendto, len - 54);
        break;
      }
      default:
        if (rng_.Chance(300000))
          Quick(c, t, kIoctl, 0);
        else
          Quick(c, t, kPoll, 1);
    }
    At(c, 500, 10 * kUs);
  }

  void StepFutex(Cpu& c, Thread& t) {
    if (t.step % 2 == 1) {
      // Wake the partner.
      Entry(c, t, kFutex);
      int64_t woke = 0;
      if (t.partner >= 0 && T(t.partner).state == TState::kBlocked &&
          T(t.partner).pending == kFutex) {
        Wake(c, t.partner, 0);
        woke = 1;
      }
      At(c, 300, 2 * kUs);
      Exit(c, t, kFutex, woke);
      At(c, 1 * kUs, 60 * kUs);
    } else {
      // Wait, with a timeout.
      SleepFor(c, t, rng_.Range(2 * kMs, 20 * kMs));
      Blocking(c, t, kFutex, kTaskInterruptible, -110);
    }
  }

  void StepSleeper(Cpu& c, Thread& t) {
    if (t.step % 3 == 0) {
      Entry(c, t, kNanosleep);
      SleepFor(c, t, rng_.Range(1 * kMs, 50 * kMs));
      t.pending = kNanosleep;
      t.pending_ret = 0;
      Deschedule(c, kTaskInterruptible);
    } else {
      Quick(c, t, t.step % 3 == 1 ? kOpenat : kWrite, 3);
      At(c, 1 * kUs, 30 * kUs);
    }
  }

  void StepShell(Cpu& c, Thread& t) {
    if (t.step % 6 == 0 && children_ < kMaxChildren) {
      Entry(c, t, kClone);
      uint32_t target = AwakeCpu(static_cast<uint32_t>(rng_.Below(cpus_.size())), c.now);
      char comm[16];
      std::memcpy(comm, t.comm, 16);
      int32_t parent = c.current;
      int32_t child =
          NewThread({comm, strnlen(comm, 16)}, Prof::kChild, target);  // may move threads_
      Thread& p = T(parent);
      Thread& k = T(child);
      k.pid = k.tid;
      k.ppid = p.pid;
      k.prio = p.prio;
      k.life = static_cast<int32_t>(rng_.Range(5, 60));
      k.pending = kClone;
      k.pending_ret = 0;
      children_++;
      Soon(c);
      if (Keep(c))
        Event(c, ids_.sched_process_fork)
            .Chars16(p.Comm())
            .S32(p.tid)
            .S32(p.pid)
            .U32(4026531836u)
            .Chars16(k.Comm())
            .S32(k.tid)
            .S32(k.pid)
            .U32(4026531836u);
      Soon(c);
      if (Keep(c))
        Event(c, ids_.sched_wakeup_new)
            .Chars16(k.Comm())
            .S32(k.tid)
            .S32(k.prio)
            .S32(static_cast<int32_t>(target));
      Enqueue(c, child, target);
      At(c, 2 * kUs, 20 * kUs);
      Exit(c, p, kClone, k.tid);
    } else if (t.step % 6 == 1) {
      // Wait for the child or the terminal, with a timeout.
      SleepFor(c, t, rng_.Range(100 * kUs, 5 * kMs));
      Blocking(c, t, kPoll, kTaskInterruptible, 0);
    } else {
      Quick(c, t, t.step % 2 ? kRead : kWrite, static_cast<int64_t>(rng_.Range(1, 512)));
      At(c, 2 * kUs, 50 * kUs);
    }
  }

  void StepChild(Cpu& c, int32_t self) {
    Thread& t = T(self);
    if (t.step == 1 && rng_.Chance(700000)) {
      static constexpr const char* kProgs[] = {"/usr/bin/ls", "/usr/bin/grep", "/usr/bin/cc1plus",
                                               "/bin/sed",    "/usr/bin/git",  "/usr/bin/awk"};
      exec_path_ = kProgs[rng_.Below(std::size(kProgs))];
      Entry(c, t, kExecve);
      At(c, 50 * kUs, 400 * kUs);
      std::string_view base = exec_path_;
      base = base.substr(base.rfind('/') + 1);
      t.SetComm(base);
      Soon(c);
      if (Keep(c)) Event(c, ids_.sched_process_exec).String(exec_path_).S32(t.tid).S32(t.tid);
      Exit(c, t, kExecve, 0);
    } else if (--t.life > 0) {
      uint64_t r = rng_.Below(6);
      Sys s = r == 0   ? kMmap
              : r == 1 ? kOpenat
              : r == 2 ? kRead
              : r == 3 ? kWrite
              : r == 4 ? kClose
                       : kMunmap;
      Quick(c, t, s,
            s == kMmap ? static_cast<int64_t>(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)) : 3);
    } else {
      Entry(c, t, kExitGroup);
      Soon(c);
      if (Keep(c)) Event(c, ids_.sched_process_exit).Chars16(t.Comm()).S32(t.tid).S32(t.prio);
      Push(c.now + rng_.Range(100 * kUs, 20 * kMs),
           AwakeCpu(static_cast<uint32_t>(rng_.Below(cpus_.size())), c.now), Ev::kFree, 0, self);
      Deschedule(c, kTaskDead);
      return;
    }
    At(c, 1 * kUs, 50 * kUs);
    if (c.current == self) ScheduleRun(c, c.now + rng_.Range(300, 10 * kUs));
  }

  void StepKworker(Cpu& c, Thread& t) {
    // Kernel work, no syscalls, then back to sleep until a timer.
    if (rng_.Chance(500000)) Kmalloc(c);
    At(c, 1 * kUs, 30 * kUs);
    if (rng_.Chance(500000)) Kfree(c);
    SleepFor(c, t, rng_.Range(1 * kMs, 100 * kMs));
    Deschedule(c, kTaskInterruptible);
  }

  // --- Interrupts and timers.

  void Tick(Cpu& c) {
    Thread& cur = T(c.current);
    Soon(c);
    if (Keep(c))
      Event(c, ids_.hrtimer_expire_entry)
          .Hex64(c.tick_timer)
          .S64(static_cast<int64_t>(c.now))
          .Hex64(kFnTickSched);
    if (c.current != c.swapper) {
      Soon(c);
      uint64_t ran = c.now - cur.run_start;
      if (Keep(c))
        Event(c, ids_.sched_stat_runtime)
            .Chars16(cur.Comm())
            .S32(cur.tid)
            .U64(ran)
            .U64(cur.vruntime + ran);
    }
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_raise).U32(kSoftirqTimer);
    bool rcu = rng_.Chance(300000);
    if (rcu) {
      Soon(c);
      if (Keep(c)) Event(c, ids_.softirq_raise).U32(kSoftirqRcu);
    }
    Soon(c);
    if (Keep(c)) Event(c, ids_.hrtimer_expire_exit).Hex64(c.tick_timer);
    Softirq(c, kSoftirqTimer);
    if (rcu) Softirq(c, kSoftirqRcu);
    if (rng_.Chance(20000)) {
      Soon(c);
      if (Keep(c))
        Event(c, ids_.power_cpu_frequency)
            .U32(static_cast<uint32_t>(rng_.Range(8, 34)) * 100000)
            .U32(c.id);
    }
    // Preempt a thread that used its slice when others wait.
    if (c.current != c.swapper && !c.rq.empty() && c.now - cur.run_start > 3 * kMs) {
      if (rng_.Chance(500000)) Softirq(c, kSoftirqSched);
      cur.state = TState::kRunnable;
      c.rq.push_back(c.current);
      Soon(c);
      SwitchTo(c, PopRq(c), kTaskRunning);
    }
    if (c.tick_on) Push(c.now + 4 * kMs - rng_.Below(20 * kUs), c.id, Ev::kTick, c.tick_gen, 0);
  }

  void Softirq(Cpu& c, uint32_t vec) {
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_entry).U32(vec);
    At(c, 300, 6 * kUs);
    if (Keep(c)) Event(c, ids_.softirq_exit).U32(vec);
  }

  void IrqEntry(Cpu& c, int32_t irq, const char* name, uint32_t vec) {
    Soon(c);
    if (Keep(c)) Event(c, ids_.irq_handler_entry).S32(irq).String(name);
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_raise).U32(vec);
    Soon(c);
    if (Keep(c)) Event(c, ids_.irq_handler_exit).S32(irq).S32(1);
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_entry).U32(vec);
  }

  void DiskIrq(Cpu& c, int32_t i) {
    Thread& t = T(i);
    IrqEntry(c, 26, "0000:00:1f.2", kSoftirqBlock);
    Soon(c);
    if (Keep(c))
      Event(c, ids_.block_rq_complete).U32(8388608).U64(t.io_sector).U32(t.io_nr).S32(0).U32(8);
    Wake(c, i, t.pending_ret);
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_exit).U32(kSoftirqBlock);
  }

  void NetIrq(Cpu& c) {
    IrqEntry(c, 30, "enp0s25", kSoftirqNetRx);
    uint32_t packets = static_cast<uint32_t>(rng_.Range(1, 3));
    for (uint32_t k = 0; k < packets; ++k) {
      Soon(c);
      if (Keep(c))
        Event(c, ids_.netif_receive_skb)
            .Hex64(0xffff8800b0000000ULL + (rng_.Below(1 << 20) << 8))
            .U32(static_cast<uint32_t>(rng_.Range(60, 1500)))
            .String("enp0s25");
      if (!net_waiters_.empty()) {
        int32_t i = net_waiters_.front();
        net_waiters_.pop_front();
        Wake(c, i, 1);
      } else if (net_backlog_ < 64) {
        net_backlog_++;
      }
    }
    Soon(c);
    if (Keep(c)) Event(c, ids_.softirq_exit).U32(kSoftirqNetRx);
    if (rng_.Chance(100000)) Softirq(c, kSoftirqNetTx);
    uint32_t next =
        AwakeCpu(static_cast<uint32_t>(rng_.Below(std::min<size_t>(cpus_.size(), 2))), c.now);
    Push(c.now + rng_.Range(10 * kUs, 600 * kUs), next, Ev::kNetIrq, 0, 0);
  }

  void TimerWake(Cpu& c, int32_t i, uint32_t gen) {
    Thread& t = T(i);
    if (t.state != TState::kBlocked || t.wake_gen + 1 != gen) return;
    Cpu& tc =
        Asleep(c, c.now) ? cpus_[AwakeCpu(c.id, c.now)] : c;  // timers migrate off sleeping CPUs
    if (tc.now < c.now) tc.now = c.now;
    Soon(tc);
    if (Keep(tc))
      Event(tc, ids_.hrtimer_expire_entry)
          .Hex64(t.hrtimer)
          .S64(static_cast<int64_t>(tc.now))
          .Hex64(kFnHrtimerWakeup);
    Wake(tc, i, t.pending_ret);
    Soon(tc);
    if (Keep(tc)) Event(tc, ids_.hrtimer_expire_exit).Hex64(t.hrtimer);
  }

  void ProcessFree(Cpu& c, int32_t i) {
    Thread& t = T(i);
    Soon(c);
    if (Keep(c)) Event(c, ids_.sched_process_free).Chars16(t.Comm()).S32(t.tid).S32(t.prio);
    children_--;
    free_slots_.push_back(i);
  }

  void IdleEnd(Cpu& c) {
    c.deep_idle_until = 0;
    if (c.current == c.swapper && !c.tick_on) {
      // The tick restarts when the CPU wakes: a first event after the long gap.
      Soon(c);
      if (Keep(c))
        Event(c, ids_.hrtimer_expire_entry)
            .Hex64(c.tick_timer)
            .S64(static_cast<int64_t>(c.now))
            .Hex64(kFnTickSched);
      Soon(c);
      if (Keep(c)) Event(c, ids_.hrtimer_expire_exit).Hex64(c.tick_timer);
    }
  }

  // --- State dump at the start (cpu 0).

  void StateDump() {
    Cpu& c = cpus_[0];
    Soon(c);
    Event(c, ids_.statedump_start);
    for (const Thread& t : threads_) {
      if (t.prof == Prof::kIdle && t.cpu != 0) continue;
      Soon(c);
      bool kthread = t.prof == Prof::kKworker || t.prof == Prof::kIdle;
      Event(c, ids_.statedump_process_state)
          .S32(t.tid)
          .S32(t.tid)
          .S32(t.pid)
          .S32(t.pid)
          .S32(t.ppid)
          .S32(t.ppid)
          .Chars16(t.Comm())
          .S32(kthread ? 1 : 0)
          .S32(5)
          .S32(0)
          .S32(5)
          .S32(0)
          .U32(4026531836u);
    }
    Soon(c);
    Event(c, ids_.statedump_end);
  }

  CtfWriter& w_;
  const Ids& ids_;
  Rng rng_;
  bool lost_;
  std::vector<Cpu> cpus_;
  std::vector<Thread> threads_;
  std::vector<int32_t> free_slots_;
  std::deque<int32_t> net_waiters_;
  uint32_t net_backlog_ = 0;
  int children_ = 0;
  int32_t next_tid_ = 1000;
  uint32_t gen_base_ = 0;
  const char* exec_path_ = "/usr/bin/ls";
  Cpu* active_ = nullptr;
  bool deferred_ = false;
  uint64_t deferred_t_ = 0;
  uint32_t deferred_gen_ = 0;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> queue_;
};

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s OUT_DIR --size-mb N [--cpus 4] [--seed S] [--lost] [--packet-kb 256]\n"
               "       [--plain-header] [--rotate-mb M]\n"
               "Writes a synthetic LTTng-kernel-like CTF trace of about N MB of stream data.\n"
               "--plain-header: perf's event header (u32 id, u64 timestamp), not LTTng's.\n"
               "--rotate-mb M: a rotated recording, as `lttng rotate` every M MB writes it:\n"
               "  chunks OUT_DIR/chunk-0, chunk-1, ... that share the trace UUID.\n",
               argv0);
  return 2;
}

bool ParseU64(const char* s, uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || !end || *end || *s == '-' || end == s) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir;
  uint64_t size_mb = 0, cpus = 4, seed = 1, packet_kb = 256, rotate_mb = 0;
  bool lost = false, have_size = false, plain_header = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](uint64_t& v) {
      if (i + 1 >= argc || !ParseU64(argv[i + 1], v)) return false;
      ++i;
      return true;
    };
    if (a == "--size-mb") {
      if (!value(size_mb)) return Usage(argv[0]);
      have_size = true;
    } else if (a == "--cpus") {
      if (!value(cpus) || cpus < 1 || cpus > 256) return Usage(argv[0]);
    } else if (a == "--seed") {
      if (!value(seed)) return Usage(argv[0]);
    } else if (a == "--packet-kb") {
      if (!value(packet_kb) || packet_kb < 4 || packet_kb > 65536) return Usage(argv[0]);
    } else if (a == "--rotate-mb") {
      if (!value(rotate_mb) || rotate_mb < 1) return Usage(argv[0]);
    } else if (a == "--lost") {
      lost = true;
    } else if (a == "--plain-header") {
      plain_header = true;
    } else if (a == "-h" || a == "--help") {
      Usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] != '-' && out_dir.empty()) {
      out_dir = a;
    } else {
      return Usage(argv[0]);
    }
  }
  if (out_dir.empty() || !have_size) return Usage(argv[0]);

  TraceOptions opts;
  opts.hostname = "causeway-sim";
  opts.domain = "kernel";
  opts.tracer_name = "lttng-modules";
  opts.tracer_major = 2;
  opts.tracer_minor = 8;
  opts.tracer_patchlevel = 0;
  opts.kernel_release = "4.4.3-1-ARCH";
  opts.kernel_version = "#1 SMP PREEMPT Fri Feb 26 15:09:29 CET 2016";
  opts.clock_offset_ns = 1457111225177515989LL;
  opts.packet_size = packet_kb * 1024;
  opts.plain_event_header = plain_header;
  opts.extra_env.push_back({"generator", std::string("causeway make_kernel_trace")});
  opts.extra_env.push_back({"generator_seed", static_cast<int64_t>(seed)});
  Rng id_rng(seed ^ 0x5eed5eed5eedULL);
  std::array<uint8_t, 16> uuid{}, clock_uuid{};
  for (size_t i = 0; i < 16; ++i) {
    uuid[i] = static_cast<uint8_t>(id_rng.Next());
    clock_uuid[i] = static_cast<uint8_t>(id_rng.Next());
  }
  for (auto* u : {&uuid, &clock_uuid}) {
    (*u)[6] = static_cast<uint8_t>(((*u)[6] & 0x0f) | 0x40);
    (*u)[8] = static_cast<uint8_t>(((*u)[8] & 0x3f) | 0x80);
  }
  opts.uuid = uuid;
  opts.clock_uuid = clock_uuid;

  auto start = std::chrono::steady_clock::now();
  int chunk = 0;
  auto chunk_dir = [&] { return rotate_mb ? fmt::format("{}/chunk-{}", out_dir, chunk) : out_dir; };
  auto writer = CtfWriter::Create(chunk_dir(), opts);
  if (!writer.ok()) {
    std::fprintf(stderr, "make_kernel_trace: %s\n", writer.status().ToString().c_str());
    return 1;
  }
  CtfWriter& w = **writer;
  Ids ids{};
  if (Status st = Declare(w, ids); !st.ok()) {
    std::fprintf(stderr, "make_kernel_trace: %s\n", st.ToString().c_str());
    return 1;
  }
  Machine m(w, ids, static_cast<uint32_t>(cpus), seed, lost);
  m.Run(size_mb * 1024 * 1024, rotate_mb * 1024 * 1024, [&] {
    ++chunk;
    (void)w.Rotate(chunk_dir());  // an error is sticky: Run stops, Close reports it
  });
  uint64_t events = w.events_written();
  Status st = w.Close();
  if (!st.ok()) {
    std::fprintf(stderr, "make_kernel_trace: %s\n", st.ToString().c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t bytes = w.bytes_written();
  std::printf("events=%" PRIu64 " bytes=%" PRIu64 " discarded=%" PRIu64 " cpus=%" PRIu64
              " chunks=%d seconds=%.2f MB/s=%.0f\n",
              events, bytes, m.lost(), cpus, chunk + 1, secs,
              static_cast<double>(bytes) / 1048576.0 / secs);
  return 0;
}
