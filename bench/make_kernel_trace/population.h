// The threads the machine starts with: an idle task and two kworkers per CPU, then file
// I/O daemons, network servers, CPU hogs, sleepers, two shells, futex ping-pong pairs (one
// multi-threaded process per ~2 CPUs) and, on bigger machines, more hogs and I/O threads,
// spread round-robin over the CPUs' run queues.
#pragma once

#include <vector>

#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"
#include "make_kernel_trace/thread_table.h"

namespace make_kernel_trace {

void AddStartingThreads(ThreadTable& threads, std::vector<Cpu>& cpus, Rng& rng);

}  // namespace make_kernel_trace
