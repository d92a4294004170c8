// Text and JSON renderings of critical paths and per-thread state times. The JSON shapes
// are documented in docs/cli.md (`causeway critpath`, `causeway threads`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/critical_path.h"
#include "graph/execution_graph.h"
#include "graph/thread_times.h"

namespace causeway::report {

// "1457113582.794565804" (seconds since the clock origin).
std::string FormatTimestamp(int64_t ns);
// "12.345 ms", "870 ns", "1.500 s".
std::string FormatDuration(int64_t ns);
// "tid 1234 (name)" or "host/1234 (name)" when the graph has several hosts.
std::string ThreadLabel(const graph::ExecutionGraph& g, graph::WorkerId w);

nlohmann::json ThreadJson(const graph::ExecutionGraph& g, graph::WorkerId w);
// {"RUNNING": ns, ...}: the non-zero states of a kNumStates array.
nlohmann::json StatesJson(const int64_t* by_state);
nlohmann::json CriticalPathJson(const graph::ExecutionGraph& g, const graph::CriticalPath& path,
                                const graph::PathSummary& summary);
std::string CriticalPathText(const graph::ExecutionGraph& g, const graph::CriticalPath& path,
                             const graph::PathSummary& summary);

nlohmann::json ThreadTimesJson(const graph::ExecutionGraph& g,
                               const std::vector<graph::ThreadTimes>& rows);
std::string ThreadTimesText(const graph::ExecutionGraph& g,
                            const std::vector<graph::ThreadTimes>& rows);

}  // namespace causeway::report
