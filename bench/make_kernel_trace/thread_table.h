// Every thread of the simulated machine, named by its index. A dead child's slot is reused;
// the table never grows past the capacity it was made with, so references to threads stay
// valid while a step runs.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"

namespace make_kernel_trace {

class ThreadTable {
 public:
  ThreadTable(size_t capacity, int32_t first_tid);

  // cpu's idle task (tid 0).
  int32_t AddSwapper(uint32_t cpu);
  // A new thread; pid < 0 makes it a process of its own. Draws its addresses from rng.
  int32_t New(Rng& rng, std::string_view comm, Prof prof, uint32_t cpu, int32_t pid = -1,
              int32_t prio = 20);
  // Frees a dead child's slot for reuse.
  void Free(int32_t i);

  Thread& operator[](int32_t i) { return threads_[static_cast<size_t>(i)]; }
  int32_t IndexOf(const Thread& t) const { return static_cast<int32_t>(&t - threads_.data()); }
  const std::vector<Thread>& all() const { return threads_; }
  // Children (Prof::kChild) not yet freed.
  int children() const { return children_; }

 private:
  std::vector<Thread> threads_;
  std::vector<int32_t> free_slots_;
  int children_ = 0;
  int32_t next_tid_;
  uint32_t gen_base_ = 0;
};

}  // namespace make_kernel_trace
