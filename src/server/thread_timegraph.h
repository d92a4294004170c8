// causeway.threads: the time graph of every thread (host → process → thread), its states
// from the execution graph at the view's resolution, and arrows for the wake-ups, packets
// and forks that ended its waits.
#pragma once

#include "server/outputs.h"

namespace causeway::server {

// Entry ids, shared by the outputs that name threads (critical path, CPU usage) so that a
// client can match rows across outputs: a thread is its worker id + 1.
inline constexpr int64_t kHostEntryBase = int64_t{1} << 40;
inline constexpr int64_t kProcessEntryBase = int64_t{1} << 41;
inline int64_t ThreadEntryId(uint32_t worker) { return int64_t{worker} + 1; }

// The style key of a graph state ("RUNNING", ...) and the styles of every state and arrow.
nlohmann::json StateStyles();

std::unique_ptr<Output> MakeThreadTimeGraph();

}  // namespace causeway::server
