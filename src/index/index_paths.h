// The attribute paths and values the index writes, as src/state/README.md's table lists
// them: one place that spells them, for the feeds and for the readers of the store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "graph/execution_graph.h"

namespace causeway::index {

// hosts/<host>/threads/<tid>/<leaf>: leaf "state", "name", "syscall", "request".
std::string ThreadAttribute(std::string_view host, int32_t tid, std::string_view leaf);
// hosts/<host>/cpus/<cpu>/<leaf>: leaf "thread", "irq".
std::string CpuAttribute(std::string_view host, int32_t cpu, std::string_view leaf);
// hosts/<host>/disks/<M:m>/<leaf>: leaf "queued", "on_device"; `dev` as the kernel keeps a
// dev_t (major << 20 | minor).
std::string DiskAttribute(std::string_view host, int64_t dev, std::string_view leaf);
// requests/<id>/<leaf>: leaf "cause", "thread"; `id` the request's trace id in hex.
std::string RequestAttribute(std::string_view id, std::string_view leaf);

// A thread's state as the reports name it, with its qualifier in parentheses when it has
// one: "RUNNING", "BLOCKED", "BLOCK_DEVICE(disk 8:0)", "PREEMPTED(throttled by ...)".
std::string ThreadStateLabel(graph::State state, std::string_view qualifier);
// "irq/<n> <name>" (the name left out when the trace has none) and "softirq <VECTOR>".
std::string IrqLabel(int64_t irq, std::string_view name);
std::string SoftirqLabel(int64_t vector);
// A thread of requests/<id>/thread: "<host>/<tid>".
std::string HostThreadLabel(std::string_view host, int32_t tid);

}  // namespace causeway::index
