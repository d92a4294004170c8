// The data-tree outputs. causeway.requests: requests slowest first (trace id, operation,
// latency, dominant cause, start), each with its time per cause as children; the
// requested_timerange, when given, keeps the requests that overlap it. causeway.thread_times:
// every thread with its time per state over its life (what `causeway threads` lists).
#pragma once

#include "server/outputs.h"

namespace causeway::server {

std::unique_ptr<Output> MakeRequestsTree();
std::unique_ptr<Output> MakeThreadTimesTree();

}  // namespace causeway::server
