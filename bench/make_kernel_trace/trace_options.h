// The trace-wide description the writer puts in the metadata: an lttng-modules 2.8 kernel
// trace of a fixed host and kernel, with UUIDs drawn from the seed, so that the output is a
// pure function of the arguments.
#pragma once

#include <cstdint>

#include "ctf/writer/ctf_writer.h"

namespace make_kernel_trace {

causeway::ctf::TraceOptions KernelTraceOptions(uint64_t seed, uint64_t packet_bytes,
                                               bool plain_header);

}  // namespace make_kernel_trace
