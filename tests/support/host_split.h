// Emulated hosts for the multi-host tests: one machine's recording, made while processes in
// network namespaces talked over a veth pair, split into one trace per "host".
//
// A TCP segment leaves one namespace's veth end and arrives on the other's, so packet
// events (net_dev_queue, netif_receive_skb) go to the host that owns their device; every
// other event (scheduling, wake-ups, interrupts, …) goes to every host, since the hosts
// share the machine's CPUs. Each host's timestamps then go through its own clock skew, as
// if its clock had drifted: the test knows the transform synchronization must undo.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock_transform.h"
#include "base/status.h"

namespace causeway::testing {

struct SplitHost {
  std::string hostname;
  std::vector<std::string> devices;  // packet events on these devices belong to this host
  ClockTransform skew;               // applied to every timestamp of this host
  std::string dir;                   // the trace directory written
};

struct SplitCounts {
  uint64_t events_in = 0;
  uint64_t packets_assigned = 0;  // packet events on one host's device
  std::vector<uint64_t> events_out;
  // Classes with a field of a type the split does not copy (enumerations: the system
  // calls' ids), and their events, left out of every host's trace.
  std::vector<std::string> classes_left_out;
  uint64_t events_left_out = 0;
};

// Copies the kernel trace `in_dir` (written with the CtfWriter's field kinds, as
// `causeway record` writes it) into one trace per host.
StatusOr<SplitCounts> SplitTraceByDevice(const std::string& in_dir,
                                         const std::vector<SplitHost>& hosts);

}  // namespace causeway::testing
