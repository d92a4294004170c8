// SyncAnalysis: reads the traces of several hosts, matches every TCP segment sent on one
// host with its reception on another (key: seq, ack_seq, flags, as the kernel model does)
// and synchronizes the hosts' clocks from those messages (sync/host_sync.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "sync/host_sync.h"

namespace causeway::analysis {

struct SyncAnalysis {
  std::vector<sync::HostTransform> hosts;
  std::vector<sync::PairReport> pairs;
  uint64_t segments_sent = 0, segments_received = 0;
  uint64_t matched_across_hosts = 0;
  uint64_t matched_same_host = 0;  // loopback traffic: says nothing about clocks
  uint64_t unmatched = 0;          // sends and receives without a partner on another host
};

StatusOr<SyncAnalysis> AnalyzeSync(const std::vector<std::string>& paths,
                                   const std::string& reference);

}  // namespace causeway::analysis
