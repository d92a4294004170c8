// SyncAnalysis: reads the traces of several hosts, matches every TCP segment sent on one
// host with its reception on another (sync/packet_matcher.h) and synchronizes the hosts'
// clocks from those messages (sync/host_sync.h).
//
// Two-step procedure (seed 004 §3.6), the default: a trace read far ahead of another (hosts
// whose clocks differ by more than the traffic's time scale) would otherwise keep every
// half of its segments waiting for a partner.
//   1. Coarse: each host's trace is shifted so that it starts when the reference's starts,
//      halves unmatched after `coarse_expiry_ns` are dropped, and the step stops as soon as
//      every host is linked to the others with a slope known within `coarse_precision`
//      (relative width of the band of slopes).
//   2. Fine: the traces are read again, merged in the coarse synchronized order, with
//      expiry after `fine_expiry_ns`; every segment feeds the convex hulls of the result.
// When the coarse step cannot link every host, the fine step runs without expiry (exact,
// memory not bounded). One-step (`two_step = false`): one pass on raw timestamps without
// expiry.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "sync/host_sync.h"

namespace causeway::analysis {

struct SyncOptions {
  std::string reference;  // empty: the first host name in lexical order
  bool two_step = true;
  // Must exceed the network delay plus the difference between the traces' start times.
  int64_t coarse_expiry_ns = 10'000'000'000;
  // Seed 004 stops at 1 percent; we ask 1e-4, which a few hundred milliseconds of traffic
  // give, so that the coarse transform stays within the fine step's expiry over an hour of
  // trace (1e-4 x 3600 s = 0.36 s) and the fine step drops no segment that has a partner.
  long double coarse_precision = 1e-4;
  // After the coarse step the traces are synchronized within its accuracy; this only has
  // to exceed the network delay.
  int64_t fine_expiry_ns = 1'000'000'000;
};

struct SyncStep {
  uint64_t events_read = 0;
  uint64_t segments_sent = 0, segments_received = 0;
  uint64_t matched_across_hosts = 0;
  uint64_t matched_same_host = 0;  // loopback traffic: says nothing about clocks
  uint64_t expired = 0;            // halves dropped after the expiry delay
  uint64_t unmatched = 0;          // halves still waiting at the end
  uint64_t peak_pending = 0;       // the most halves that waited at once
  uint64_t peak_pending_bytes = 0;
  int64_t expiry_ns = 0;  // 0: none
};

struct SyncAnalysis {
  std::vector<sync::HostTransform> hosts;
  std::vector<sync::PairReport> pairs;
  bool two_step = false;
  bool coarse_connected = false;  // the coarse step linked every host
  SyncStep coarse;                // two_step only
  SyncStep fine;                  // the step whose matches make the result
};

StatusOr<SyncAnalysis> AnalyzeSync(const std::vector<std::string>& paths,
                                   const SyncOptions& options = {});

}  // namespace causeway::analysis
