#include "make_kernel_trace/trace_options.h"

#include <array>
#include <string>

#include "make_kernel_trace/rng.h"

namespace make_kernel_trace {

causeway::ctf::TraceOptions KernelTraceOptions(uint64_t seed, uint64_t packet_bytes,
                                               bool plain_header) {
  causeway::ctf::TraceOptions opts;
  opts.hostname = "causeway-sim";
  opts.domain = "kernel";
  opts.tracer_name = "lttng-modules";
  opts.tracer_major = 2;
  opts.tracer_minor = 8;
  opts.tracer_patchlevel = 0;
  opts.kernel_release = "4.4.3-1-ARCH";
  opts.kernel_version = "#1 SMP PREEMPT Fri Feb 26 15:09:29 CET 2016";
  opts.clock_offset_ns = 1457111225177515989LL;
  opts.packet_size = packet_bytes;
  opts.plain_event_header = plain_header;
  opts.extra_env.push_back({"generator", std::string("causeway make_kernel_trace")});
  opts.extra_env.push_back({"generator_seed", static_cast<int64_t>(seed)});
  // Version 4 (random) UUIDs, from their own generator so that they do not move the
  // simulation's draws.
  Rng id_rng(seed ^ 0x5eed5eed5eedULL);
  std::array<uint8_t, 16> uuid{}, clock_uuid{};
  for (size_t i = 0; i < 16; ++i) {
    uuid[i] = static_cast<uint8_t>(id_rng.Next());
    clock_uuid[i] = static_cast<uint8_t>(id_rng.Next());
  }
  for (auto* u : {&uuid, &clock_uuid}) {
    (*u)[6] = static_cast<uint8_t>(((*u)[6] & 0x0f) | 0x40);
    (*u)[8] = static_cast<uint8_t>(((*u)[8] & 0x3f) | 0x80);
  }
  opts.uuid = uuid;
  opts.clock_uuid = clock_uuid;
  return opts;
}

}  // namespace make_kernel_trace
