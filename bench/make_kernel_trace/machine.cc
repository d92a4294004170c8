#include "make_kernel_trace/machine.h"

#include "make_kernel_trace/population.h"
#include "make_kernel_trace/state_dump.h"

namespace make_kernel_trace {
namespace {

// The CPUs, their clocks about an hour into the machine's uptime and a few µs apart.
std::vector<Cpu> StartCpus(Rng& rng, uint32_t ncpus) {
  std::vector<Cpu> cpus(ncpus);
  uint64_t start = 3600 * 1000 * kMs + rng.Below(1000 * kMs);
  for (uint32_t c = 0; c < ncpus; ++c) {
    cpus[c].id = c;
    cpus[c].now = start + rng.Below(50 * kUs);
    cpus[c].tick_timer = 0xffff88007fc0e0a0ULL + 0x40000ULL * c;
    cpus[c].until_drop = rng.Range(5000, 60000);
  }
  return cpus;
}

}  // namespace

Machine::Machine(causeway::ctf::CtfWriter& w, const EventIds& ids, uint32_t ncpus, uint64_t seed,
                 bool lost)
    : w_(w),
      ids_(ids),
      rng_(seed),
      cpus_(StartCpus(rng_, ncpus)),
      threads_(ncpus * 8 + 64 + kMaxChildren, 1000 + static_cast<int32_t>(rng_.Below(3000))),
      out_(w, ids, rng_, lost),
      scheduler_(cpus_, threads_, queue_, out_, ids, rng_),
      syscalls_(threads_, queue_, scheduler_, out_, ids, rng_),
      workloads_(cpus_, threads_, queue_, net_, scheduler_, syscalls_, out_, ids, rng_),
      interrupts_(cpus_, threads_, queue_, net_, scheduler_, out_, ids, rng_) {
  AddStartingThreads(threads_, cpus_, rng_);
}

void Machine::Run(uint64_t target_bytes, uint64_t rotate_bytes,
                  const std::function<void()>& rotate) {
  uint64_t next_rotation = rotate_bytes ? rotate_bytes : UINT64_MAX;
  WriteStateDump(out_, ids_, cpus_[0], threads_.all());
  for (auto& c : cpus_) {
    scheduler_.SwitchTo(c, c.rq.empty() ? c.swapper : scheduler_.PopRq(c), kTaskRunning,
                        /*emit=*/false);
    if (c.current != c.swapper) scheduler_.StartTick(c);
  }
  queue_.Push(cpus_[0].now + rng_.Range(20 * kUs, 200 * kUs), 0, Ev::kNetIrq, 0, 0);
  const std::function<void(Cpu&)> step = [this](Cpu& c) { workloads_.RunStep(c); };
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
    Pending p = queue_.Pop();
    uint32_t cpu = p.cpu();
    Ev ev = p.ev();
    if ((ev == Ev::kDiskIrq || ev == Ev::kNetIrq || ev == Ev::kFree) &&
        scheduler_.Asleep(cpus_[cpu], p.t))
      cpu = scheduler_.AwakeCpu(cpu, p.t);  // interrupts are routed to awake CPUs
    Cpu& c = cpus_[cpu];
    if (p.t > c.now) c.now = p.t;
    switch (ev) {
      case Ev::kRun:
        if (p.gen() == c.run_gen) scheduler_.RunSteps(c, step);
        break;
      case Ev::kTick:
        if (p.gen() == c.tick_gen) interrupts_.Tick(c);
        break;
      case Ev::kDiskIrq:
        interrupts_.DiskIrq(c, p.arg());
        break;
      case Ev::kNetIrq:
        interrupts_.NetIrq(c);
        break;
      case Ev::kTimerWake:
        interrupts_.TimerWake(c, p.arg(), p.gen());
        break;
      case Ev::kFree:
        interrupts_.ProcessFree(c, p.arg());
        break;
      case Ev::kIdleEnd:
        interrupts_.IdleEnd(c);
        break;
    }
  }
  for (const Cpu& c : cpus_) out_.FinishDrops(c);
}

uint64_t Machine::lost() const {
  uint64_t n = 0;
  for (const auto& c : cpus_) n += c.lost;
  return n;
}

}  // namespace make_kernel_trace
