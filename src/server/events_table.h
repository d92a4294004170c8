// causeway.events: the experiment's kernel events as a paged virtual table (timestamp on
// the analysis' synchronized clock, host, CPU, name, contents). A page is read from the
// trace: the reader of the last page is kept, so that paging forward reads only the
// events in between; a page before it reopens the trace and reads from the start.
#pragma once

#include "server/outputs.h"

namespace causeway::server {

inline constexpr uint32_t kMaxTableLines = 10000;

std::unique_ptr<Output> MakeEventsTable();

}  // namespace causeway::server
