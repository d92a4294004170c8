#include "make_kernel_trace/population.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace make_kernel_trace {

void AddStartingThreads(ThreadTable& threads, std::vector<Cpu>& cpus, Rng& rng) {
  uint32_t n = static_cast<uint32_t>(cpus.size());
  for (uint32_t c = 0; c < n; ++c) cpus[c].swapper = threads.AddSwapper(c);
  auto add = [&](std::string_view comm, Prof prof, uint32_t cpu, int32_t pid = -1,
                 int32_t prio = 20) {
    int32_t i = threads.New(rng, comm, prof, cpu % n, pid, prio);
    threads[i].state = TState::kRunnable;
    cpus[cpu % n].rq.push_back(i);
    return i;
  };
  for (uint32_t c = 0; c < n; ++c) {
    int32_t k = add("kworker/" + std::to_string(c) + ":1", Prof::kKworker, c);
    threads[k].ppid = 2;
    int32_t kh = add("kworker/" + std::to_string(c) + ":1H", Prof::kKworker, c, -1, 0);
    threads[kh].ppid = 2;
  }
  uint32_t c = 0;
  add("systemd-journal", Prof::kIo, c++);
  add("postgres", Prof::kIo, c++);
  add("updatedb", Prof::kIo, c++);
  int32_t nginx = add("nginx", Prof::kNet, c++);
  add("nginx", Prof::kNet, c++, threads[nginx].pid);
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
    if (leader < 0) leader = threads[a].pid;
    int32_t b = add("Compositor", Prof::kFutex, c++, threads[a].pid);
    threads[a].partner = b;
    threads[b].partner = a;
    threads[b].uaddr = threads[a].uaddr;
  }
  // More hogs and I/O threads on bigger machines.
  for (uint32_t i = 12; i < n; i += 4) {
    add("ld", Prof::kHog, c++);
    add("rsync", Prof::kIo, c++);
  }
}

}  // namespace make_kernel_trace
