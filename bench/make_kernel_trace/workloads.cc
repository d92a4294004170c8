#include "make_kernel_trace/workloads.h"

#include <cstring>
#include <iterator>
#include <string_view>

namespace make_kernel_trace {

void Workloads::RunStep(Cpu& c) {
  c.kick_pending = false;
  if (c.current == c.swapper) {
    if (c.rq.empty()) return;
    scheduler_.SwitchTo(c, scheduler_.PopRq(c), kTaskRunning);
    return;
  }
  int32_t self = c.current;
  Thread& t = threads_[self];
  if (t.pending >= 0) {
    Sys s = static_cast<Sys>(t.pending);
    t.pending = -1;
    syscalls_.Exit(c, t, s, t.pending_ret);
    if (s == kEpollWait && t.prof == Prof::kNet) t.in_epoll = false;
    scheduler_.ScheduleRun(c, c.now + rng_.Range(300, 20 * kUs));
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
  if (c.current == self) scheduler_.ScheduleRun(c, c.now + rng_.Range(300, 30 * kUs));
}

void Workloads::StepHog(Cpu& c, Thread& t) {
  uint64_t r = rng_.Below(100);
  if (r < 40)
    syscalls_.Quick(c, t, kWrite, static_cast<int64_t>(rng_.Range(1, 4096)));
  else if (r < 55)
    syscalls_.Quick(c, t, kMmap,
                    static_cast<int64_t>(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)));
  else if (r < 70)
    syscalls_.Quick(c, t, kMunmap, 0);
  else if (r < 80)
    syscalls_.Quick(c, t, kSchedYield, 0);
  else if (r < 95)
    syscalls_.Quick(c, t, kRead, static_cast<int64_t>(rng_.Range(0, 65536)));
  else
    syscalls_.Quick(c, t, kIoctl, 0);
  out_.At(c, 5 * kUs, 200 * kUs);  // compute
}

void Workloads::StepIo(Cpu& c, Thread& t) {
  switch (t.step % 8) {
    case 0:
      syscalls_.Quick(c, t, kOpenat, 3 + static_cast<int64_t>(rng_.Below(20)));
      break;
    case 1:
      syscalls_.Quick(c, t, kNewfstat, 0);
      break;
    case 5:
      syscalls_.Quick(c, t, kLseek, static_cast<int64_t>(rng_.Below(1 << 30)));
      break;
    case 7:
      syscalls_.Quick(c, t, kClose, 0);
      break;
    default:
      if (rng_.Chance(350000)) {  // page cache miss: wait for the disk
        syscalls_.Entry(c, t, kRead);
        t.io_sector = rng_.Below(1ULL << 30) * 8;
        t.io_nr = static_cast<uint32_t>(8 * rng_.Range(1, 32));
        out_.BlockRq(c, ids_.block_rq_insert, t);
        out_.BlockRq(c, ids_.block_rq_issue, t);
        queue_.Push(c.now + rng_.Range(60 * kUs, 4 * kMs), scheduler_.AwakeCpu(0, c.now),
                    Ev::kDiskIrq, 0, threads_.IndexOf(t));
        t.pending = kRead;
        t.pending_ret = t.io_nr * 512;
        scheduler_.Deschedule(c, kTaskUninterruptible);
        return;
      }
      syscalls_.Quick(c, t, rng_.Chance(200000) ? kWrite : kRead,
                      static_cast<int64_t>(rng_.Range(1, 65536)));
  }
  out_.At(c, 500, 40 * kUs);
}

void Workloads::StepNet(Cpu& c, Thread& t) {
  switch (t.step % 4) {
    case 0:
      if (net_.packets > 0) {
        --net_.packets;
        syscalls_.Quick(c, t, kEpollWait, 1);
      } else {
        t.in_epoll = true;
        net_.waiters.push_back(threads_.IndexOf(t));
        syscalls_.Blocking(c, t, kEpollWait, kTaskInterruptible, 1);
      }
      break;
    case 1:
      syscalls_.Quick(c, t, kRecvfrom, static_cast<int64_t>(rng_.Range(40, 1448)));
      break;
    case 2: {
      syscalls_.Entry(c, t, kSendto);
      out_.Soon(c);
      uint32_t len = static_cast<uint32_t>(rng_.Range(54, 1514));
      if (out_.Keep(c))
        out_.Event(c, ids_.net_dev_queue)
            .Hex64(0xffff8800b0000000ULL + (rng_.Below(1 << 20) << 8))
            .U32(len)
            .String("enp0s25");
      out_.At(c, 500, 4 * kUs);
      syscalls_.Exit(c, t, kSendto, len - 54);
      break;
    }
    default:
      if (rng_.Chance(300000))
        syscalls_.Quick(c, t, kIoctl, 0);
      else
        syscalls_.Quick(c, t, kPoll, 1);
  }
  out_.At(c, 500, 10 * kUs);
}

void Workloads::StepFutex(Cpu& c, Thread& t) {
  if (t.step % 2 == 1) {
    // Wake the partner.
    syscalls_.Entry(c, t, kFutex);
    int64_t woke = 0;
    if (t.partner >= 0 && threads_[t.partner].state == TState::kBlocked &&
        threads_[t.partner].pending == kFutex) {
      scheduler_.Wake(c, t.partner, 0);
      woke = 1;
    }
    out_.At(c, 300, 2 * kUs);
    syscalls_.Exit(c, t, kFutex, woke);
    out_.At(c, 1 * kUs, 60 * kUs);
  } else {
    // Wait, with a timeout.
    syscalls_.SleepFor(c, t, rng_.Range(2 * kMs, 20 * kMs));
    syscalls_.Blocking(c, t, kFutex, kTaskInterruptible, -110);
  }
}

void Workloads::StepSleeper(Cpu& c, Thread& t) {
  if (t.step % 3 == 0) {
    syscalls_.Entry(c, t, kNanosleep);
    syscalls_.SleepFor(c, t, rng_.Range(1 * kMs, 50 * kMs));
    t.pending = kNanosleep;
    t.pending_ret = 0;
    scheduler_.Deschedule(c, kTaskInterruptible);
  } else {
    syscalls_.Quick(c, t, t.step % 3 == 1 ? kOpenat : kWrite, 3);
    out_.At(c, 1 * kUs, 30 * kUs);
  }
}

void Workloads::StepShell(Cpu& c, Thread& t) {
  if (t.step % 6 == 0 && threads_.children() < kMaxChildren) {
    syscalls_.Entry(c, t, kClone);
    uint32_t target = scheduler_.AwakeCpu(static_cast<uint32_t>(rng_.Below(cpus_.size())), c.now);
    char comm[16];
    std::memcpy(comm, t.comm, 16);
    int32_t parent = c.current;
    int32_t child = threads_.New(rng_, {comm, strnlen(comm, 16)}, Prof::kChild, target);
    Thread& p = threads_[parent];
    Thread& k = threads_[child];
    k.pid = k.tid;
    k.ppid = p.pid;
    k.prio = p.prio;
    k.life = static_cast<int32_t>(rng_.Range(5, 60));
    k.pending = kClone;
    k.pending_ret = 0;
    out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.sched_process_fork)
          .Chars16(p.Comm())
          .S32(p.tid)
          .S32(p.pid)
          .U32(4026531836u)
          .Chars16(k.Comm())
          .S32(k.tid)
          .S32(k.pid)
          .U32(4026531836u);
    out_.SchedWakeup(c, ids_.sched_wakeup_new, k, target);
    scheduler_.Enqueue(c, child, target);
    out_.At(c, 2 * kUs, 20 * kUs);
    syscalls_.Exit(c, p, kClone, k.tid);
  } else if (t.step % 6 == 1) {
    // Wait for the child or the terminal, with a timeout.
    syscalls_.SleepFor(c, t, rng_.Range(100 * kUs, 5 * kMs));
    syscalls_.Blocking(c, t, kPoll, kTaskInterruptible, 0);
  } else {
    syscalls_.Quick(c, t, t.step % 2 ? kRead : kWrite, static_cast<int64_t>(rng_.Range(1, 512)));
    out_.At(c, 2 * kUs, 50 * kUs);
  }
}

void Workloads::StepChild(Cpu& c, int32_t self) {
  Thread& t = threads_[self];
  if (t.step == 1 && rng_.Chance(700000)) {
    static constexpr const char* kProgs[] = {"/usr/bin/ls", "/usr/bin/grep", "/usr/bin/cc1plus",
                                             "/bin/sed",    "/usr/bin/git",  "/usr/bin/awk"};
    const char* path = kProgs[rng_.Below(std::size(kProgs))];
    syscalls_.set_exec_path(path);
    syscalls_.Entry(c, t, kExecve);
    out_.At(c, 50 * kUs, 400 * kUs);
    std::string_view base = path;
    base = base.substr(base.rfind('/') + 1);
    t.SetComm(base);
    out_.Soon(c);
    if (out_.Keep(c)) out_.Event(c, ids_.sched_process_exec).String(path).S32(t.tid).S32(t.tid);
    syscalls_.Exit(c, t, kExecve, 0);
  } else if (--t.life > 0) {
    uint64_t r = rng_.Below(6);
    Sys s = r == 0   ? kMmap
            : r == 1 ? kOpenat
            : r == 2 ? kRead
            : r == 3 ? kWrite
            : r == 4 ? kClose
                     : kMunmap;
    syscalls_.Quick(
        c, t, s,
        s == kMmap ? static_cast<int64_t>(0x7f0000000000ULL + (rng_.Below(1 << 24) << 12)) : 3);
  } else {
    syscalls_.Entry(c, t, kExitGroup);
    out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.sched_process_exit).Chars16(t.Comm()).S32(t.tid).S32(t.prio);
    queue_.Push(c.now + rng_.Range(100 * kUs, 20 * kMs),
                scheduler_.AwakeCpu(static_cast<uint32_t>(rng_.Below(cpus_.size())), c.now),
                Ev::kFree, 0, self);
    scheduler_.Deschedule(c, kTaskDead);
    return;
  }
  out_.At(c, 1 * kUs, 50 * kUs);
  if (c.current == self) scheduler_.ScheduleRun(c, c.now + rng_.Range(300, 10 * kUs));
}

void Workloads::StepKworker(Cpu& c, Thread& t) {
  // Kernel work, no syscalls, then back to sleep until a timer.
  if (rng_.Chance(500000)) syscalls_.Kmalloc(c);
  out_.At(c, 1 * kUs, 30 * kUs);
  if (rng_.Chance(500000)) syscalls_.Kfree(c);
  syscalls_.SleepFor(c, t, rng_.Range(1 * kMs, 100 * kMs));
  scheduler_.Deschedule(c, kTaskInterruptible);
}

}  // namespace make_kernel_trace
