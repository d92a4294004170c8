#include "make_kernel_trace/interrupts.h"

#include <algorithm>

namespace make_kernel_trace {

void Interrupts::Tick(Cpu& c) {
  Thread& cur = threads_[c.current];
  out_.HrtimerExpireEntry(c, c.tick_timer, kFnTickSched);
  if (c.current != c.swapper) {
    out_.Soon(c);
    uint64_t ran = c.now - cur.run_start;
    if (out_.Keep(c))
      out_.Event(c, ids_.sched_stat_runtime)
          .Chars16(cur.Comm())
          .S32(cur.tid)
          .U64(ran)
          .U64(cur.vruntime + ran);
  }
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_raise).U32(kSoftirqTimer);
  bool rcu = rng_.Chance(300000);
  if (rcu) {
    out_.Soon(c);
    if (out_.Keep(c)) out_.Event(c, ids_.softirq_raise).U32(kSoftirqRcu);
  }
  out_.HrtimerExpireExit(c, c.tick_timer);
  Softirq(c, kSoftirqTimer);
  if (rcu) Softirq(c, kSoftirqRcu);
  if (rng_.Chance(20000)) {
    out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.power_cpu_frequency)
          .U32(static_cast<uint32_t>(rng_.Range(8, 34)) * 100000)
          .U32(c.id);
  }
  // Preempt a thread that used its slice when others wait.
  if (c.current != c.swapper && !c.rq.empty() && c.now - cur.run_start > 3 * kMs) {
    if (rng_.Chance(500000)) Softirq(c, kSoftirqSched);
    cur.state = TState::kRunnable;
    c.rq.push_back(c.current);
    out_.Soon(c);
    scheduler_.SwitchTo(c, scheduler_.PopRq(c), kTaskRunning);
  }
  if (c.tick_on)
    queue_.Push(c.now + 4 * kMs - rng_.Below(20 * kUs), c.id, Ev::kTick, c.tick_gen, 0);
}

void Interrupts::Softirq(Cpu& c, uint32_t vec) {
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_entry).U32(vec);
  out_.At(c, 300, 6 * kUs);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_exit).U32(vec);
}

void Interrupts::IrqEntry(Cpu& c, int32_t irq, const char* name, uint32_t vec) {
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.irq_handler_entry).S32(irq).String(name);
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_raise).U32(vec);
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.irq_handler_exit).S32(irq).S32(1);
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_entry).U32(vec);
}

void Interrupts::DiskIrq(Cpu& c, int32_t i) {
  Thread& t = threads_[i];
  IrqEntry(c, 26, "0000:00:1f.2", kSoftirqBlock);
  out_.Soon(c);
  if (out_.Keep(c))
    out_.Event(c, ids_.block_rq_complete).U32(8388608).U64(t.io_sector).U32(t.io_nr).S32(0).U32(8);
  scheduler_.Wake(c, i, t.pending_ret);
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_exit).U32(kSoftirqBlock);
}

void Interrupts::NetIrq(Cpu& c) {
  IrqEntry(c, 30, "enp0s25", kSoftirqNetRx);
  uint32_t packets = static_cast<uint32_t>(rng_.Range(1, 3));
  for (uint32_t k = 0; k < packets; ++k) {
    out_.Soon(c);
    if (out_.Keep(c))
      out_.Event(c, ids_.netif_receive_skb)
          .Hex64(0xffff8800b0000000ULL + (rng_.Below(1 << 20) << 8))
          .U32(static_cast<uint32_t>(rng_.Range(60, 1500)))
          .String("enp0s25");
    if (!net_.waiters.empty()) {
      int32_t i = net_.waiters.front();
      net_.waiters.pop_front();
      scheduler_.Wake(c, i, 1);
    } else if (net_.packets < 64) {
      net_.packets++;
    }
  }
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.softirq_exit).U32(kSoftirqNetRx);
  if (rng_.Chance(100000)) Softirq(c, kSoftirqNetTx);
  uint32_t next = scheduler_.AwakeCpu(
      static_cast<uint32_t>(rng_.Below(std::min<size_t>(cpus_.size(), 2))), c.now);
  queue_.Push(c.now + rng_.Range(10 * kUs, 600 * kUs), next, Ev::kNetIrq, 0, 0);
}

void Interrupts::TimerWake(Cpu& c, int32_t i, uint32_t gen) {
  Thread& t = threads_[i];
  if (t.state != TState::kBlocked || t.wake_gen + 1 != gen) return;
  // Timers migrate off sleeping CPUs.
  Cpu& tc = scheduler_.Asleep(c, c.now) ? cpus_[scheduler_.AwakeCpu(c.id, c.now)] : c;
  if (tc.now < c.now) tc.now = c.now;
  out_.HrtimerExpireEntry(tc, t.hrtimer, kFnHrtimerWakeup);
  scheduler_.Wake(tc, i, t.pending_ret);
  out_.HrtimerExpireExit(tc, t.hrtimer);
}

void Interrupts::ProcessFree(Cpu& c, int32_t i) {
  Thread& t = threads_[i];
  out_.Soon(c);
  if (out_.Keep(c)) out_.Event(c, ids_.sched_process_free).Chars16(t.Comm()).S32(t.tid).S32(t.prio);
  threads_.Free(i);
}

void Interrupts::IdleEnd(Cpu& c) {
  c.deep_idle_until = 0;
  if (c.current == c.swapper && !c.tick_on) {
    // The tick restarts when the CPU wakes: a first event after the long gap.
    out_.HrtimerExpireEntry(c, c.tick_timer, kFnTickSched);
    out_.HrtimerExpireExit(c, c.tick_timer);
  }
}

}  // namespace make_kernel_trace
