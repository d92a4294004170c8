#include "make_kernel_trace/scheduler.h"

#include <algorithm>

namespace make_kernel_trace {

void Scheduler::ScheduleRun(Cpu& c, uint64_t t) {
  ++c.run_gen;
  if (&c == active_) {
    deferred_ = true;
    deferred_t_ = t;
    deferred_gen_ = c.run_gen;
    return;
  }
  queue_.Push(t, c.id, Ev::kRun, c.run_gen, 0);
}

void Scheduler::RunSteps(Cpu& c, const std::function<void(Cpu&)>& step) {
  active_ = &c;
  for (int k = 0; k < 64; ++k) {
    deferred_ = false;
    step(c);
    if (!deferred_ || deferred_gen_ != c.run_gen) break;
    if (k == 63 || (!queue_.empty() && queue_.top().t <= deferred_t_)) {
      queue_.Push(deferred_t_, c.id, Ev::kRun, c.run_gen, 0);
      break;
    }
    if (deferred_t_ > c.now) c.now = deferred_t_;
  }
  deferred_ = false;
  active_ = nullptr;
}

int32_t Scheduler::PopRq(Cpu& c) {
  int32_t i = c.rq.front();
  c.rq.pop_front();
  return i;
}

void Scheduler::SwitchTo(Cpu& c, int32_t next, int64_t prev_state, bool emit) {
  int32_t prev = c.current;
  Thread& n = threads_[next];
  if (emit && prev >= 0) {
    Thread& p = threads_[prev];
    if (p.prof != Prof::kIdle && prev_state == kTaskRunning) {
      uint64_t ran = c.now - p.run_start;
      p.vruntime += ran;
    }
    if (prev == c.swapper && out_.Keep(c))
      out_.Event(c, ids_.power_cpu_idle).U32(4294967295u).U32(c.id);
    if (prev == c.swapper) out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.sched_switch)
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
      out_.Soon(c);
      if (out_.Keep(c)) out_.Event(c, ids_.power_cpu_idle).U32(1).U32(c.id);
    }
    c.tick_on = false;  // NOHZ idle
    c.tick_gen++;
    MaybeDeepIdle(c);
  } else {
    if (!c.tick_on) StartTick(c);
    ScheduleRun(c, c.now + rng_.Range(300, 3 * kUs));
  }
}

void Scheduler::StartTick(Cpu& c) {
  c.tick_on = true;
  queue_.Push(c.now + rng_.Range(50 * kUs, 4 * kMs), c.id, Ev::kTick, ++c.tick_gen, 0);
}

void Scheduler::Deschedule(Cpu& c, int64_t state) {
  Thread& cur = threads_[c.current];
  cur.state = state == kTaskDead ? TState::kDead : TState::kBlocked;
  out_.Soon(c);
  SwitchTo(c, c.rq.empty() ? c.swapper : PopRq(c), state);
}

void Scheduler::MaybeDeepIdle(Cpu& c) {
  // Sometimes a CPU goes to deep sleep for 140-500 ms: its wakeups go elsewhere.
  if (cpus_.size() < 2 || !rng_.Chance(1000)) return;
  size_t sleeping = 0;
  for (const auto& o : cpus_) sleeping += o.deep_idle_until > c.now;
  if (sleeping + 1 >= cpus_.size()) return;
  c.deep_idle_until = c.now + rng_.Range(140 * kMs, 500 * kMs);
  queue_.Push(c.deep_idle_until, c.id, Ev::kIdleEnd, 0, 0);
}

uint32_t Scheduler::AwakeCpu(uint32_t preferred, uint64_t now) const {
  if (!Asleep(cpus_[preferred], now)) return preferred;
  for (size_t k = 1; k < cpus_.size(); ++k) {
    uint32_t o = static_cast<uint32_t>((preferred + k) % cpus_.size());
    if (!Asleep(cpus_[o], now)) return o;
  }
  return preferred;
}

void Scheduler::Wake(Cpu& c, int32_t i, int64_t ret) {
  Thread& t = threads_[i];
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
    out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.sched_migrate_task)
          .Chars16(t.Comm())
          .S32(t.tid)
          .S32(t.prio)
          .S32(static_cast<int32_t>(t.cpu))
          .S32(static_cast<int32_t>(target));
    t.cpu = target;
  }
  out_.SchedWakeup(c, ids_.sched_waking, t, target);
  out_.SchedWakeup(c, ids_.sched_wakeup, t, target);
  Enqueue(c, i, target);
}

void Scheduler::Enqueue(Cpu& waker, int32_t i, uint32_t target) {
  threads_[i].state = TState::kRunnable;
  Cpu& tc = cpus_[target];
  tc.rq.push_back(i);
  if (tc.current == tc.swapper && !tc.kick_pending) {
    tc.kick_pending = true;
    uint64_t lat = target == waker.id ? rng_.Range(500, 3 * kUs) : rng_.Range(2 * kUs, 25 * kUs);
    ScheduleRun(tc, std::max(waker.now + lat, tc.now));
  }
}

}  // namespace make_kernel_trace
