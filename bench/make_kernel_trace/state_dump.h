// The state dump that opens the trace: every live thread (and c's idle task) as
// lttng_statedump_process_state, between statedump start and end, on cpu c. It is written
// whole, even with --lost, so that a reader always knows the threads.
#pragma once

#include <vector>

#include "make_kernel_trace/emitter.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"

namespace make_kernel_trace {

void WriteStateDump(Emitter& out, const EventIds& ids, Cpu& c, const std::vector<Thread>& threads);

}  // namespace make_kernel_trace
