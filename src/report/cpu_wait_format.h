// Who held the CPU while a thread waited for one (graph/cpu_holders.h), in words and in
// JSON, for every report that shows PREEMPTED time: critpath, threads, request, requests.
//   "throttled by cgroup quota (/demo) 80.000 ms; CPU held by idle 78.000 ms"
//   "waiting for a CPU held by tid 12 (stress) 94.600 ms, tid 3 (kworker/0:1) 1.000 ms"
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/cpu_holders.h"
#include "graph/execution_graph.h"

namespace causeway::report {

// Names a thread: report::ThreadLabel, or a request analysis' label with its service.
using WorkerLabel = std::function<std::string(graph::WorkerId)>;

// "tid 12 (stress) 94.600 ms, idle 3.000 ms" (the idle task is "idle", a CPU whose task is
// not known after lost events "unknown").
std::string CpuHoldersText(const std::vector<graph::CpuHolder>& holders, const WorkerLabel& label);
// One segment's wait: "CPU 2 held by tid 12 (stress) 9.100 ms" (empty when not known).
std::string CpuWaitText(const graph::CpuWait& wait, const WorkerLabel& label);
// Many waits: "throttled by cgroup quota (/demo) 80.000 ms; CPU held by ..." when most of
// the time was throttled, else "waiting for a CPU held by ..." (and the throttled part).
std::string CpuWaitSummaryText(const graph::ExecutionGraph& g, const graph::CpuWaitSummary& s,
                               const WorkerLabel& label);

// [{"host","tid","name","pid"?,"ns"} | {"idle":true,"ns"} | {"unknown":true,"ns"}]
nlohmann::json CpuHoldersJson(const graph::ExecutionGraph& g,
                              const std::vector<graph::CpuHolder>& holders);
// {"ns", "throttled_ns", "throttled_by"?, "held_by"}
nlohmann::json CpuWaitSummaryJson(const graph::ExecutionGraph& g, const graph::CpuWaitSummary& s);

}  // namespace causeway::report
