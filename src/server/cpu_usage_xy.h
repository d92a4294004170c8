// causeway.cpu_usage: CPU usage as XY series. The tree lists each host's CPUs and every
// thread that ran; a series per requested entry gives, per sample, the share of the step
// (0-100 %) the CPU was busy (not idle) or the thread was running.
#pragma once

#include "server/outputs.h"

namespace causeway::server {

std::unique_ptr<Output> MakeCpuUsageXy();

}  // namespace causeway::server
