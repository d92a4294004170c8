// The threads that exist when recording starts, read from /proc, as LTTng's statedump
// events: without them, a thread that never forks or execs during the recording would have
// no name and no known state before its first switch.
#pragma once

#include <cstdint>
#include <vector>

#include "record/record_buffer.h"

namespace causeway::record {

// One lttng_statedump_process_state record per thread of /proc, stamped `ts` on `cpu`.
// Threads that vanish during the scan are skipped.
std::vector<RecordSlot> ReadStatedump(uint64_t ts, uint32_t cpu);

}  // namespace causeway::record
