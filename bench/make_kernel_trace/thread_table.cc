#include "make_kernel_trace/thread_table.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace make_kernel_trace {

ThreadTable::ThreadTable(size_t capacity, int32_t first_tid) : next_tid_(first_tid) {
  threads_.reserve(capacity);
}

int32_t ThreadTable::AddSwapper(uint32_t cpu) {
  Thread s;
  s.tid = 0;
  s.pid = 0;
  s.ppid = 0;
  s.SetComm("swapper/" + std::to_string(cpu));
  s.prof = Prof::kIdle;
  s.cpu = cpu;
  threads_.push_back(s);
  return static_cast<int32_t>(threads_.size() - 1);
}

int32_t ThreadTable::New(Rng& rng, std::string_view comm, Prof prof, uint32_t cpu, int32_t pid,
                         int32_t prio) {
  Thread t;
  t.tid = next_tid_++;
  t.pid = pid < 0 ? t.tid : pid;
  t.ppid = 1;
  t.prio = prio;
  t.SetComm(comm);
  t.prof = prof;
  t.cpu = cpu;
  t.uaddr = 0x7f0000000000ULL + (rng.Below(1 << 20) << 12) + rng.Below(64) * 8;
  t.hrtimer = 0xffff880000000000ULL + (rng.Below(1 << 24) << 6);
  t.vruntime = rng.Below(1000 * kMs);
  t.wake_gen = gen_base_;  // stale timer wakeups of a reused slot never match
  gen_base_ += 1u << 16;
  if (prof == Prof::kChild) children_++;
  int32_t idx;
  if (!free_slots_.empty()) {
    idx = free_slots_.back();
    free_slots_.pop_back();
    threads_[static_cast<size_t>(idx)] = t;
  } else {
    if (threads_.size() == threads_.capacity()) {
      std::fprintf(stderr, "make_kernel_trace: too many threads\n");
      std::abort();
    }
    idx = static_cast<int32_t>(threads_.size());
    threads_.push_back(t);
  }
  return idx;
}

void ThreadTable::Free(int32_t i) {
  children_--;
  free_slots_.push_back(i);
}

}  // namespace make_kernel_trace
