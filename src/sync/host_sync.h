// HostSync: synchronizes a set of hosts from the messages matched between them. One
// ConvexHullSync per host pair; the hosts form a graph whose edges are the pairs with a
// usable result (accurate or approximate); transforms to the reference host are composed
// along a breadth-first spanning tree. Hosts the tree does not reach are reported as
// unconnected, never guessed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/clock_transform.h"
#include "sync/convex_hull_sync.h"

namespace causeway::sync {

struct HostTransform {
  std::string host;
  bool reference = false;
  bool connected = false;  // reached from the reference (the reference itself included)
  std::string via;         // the neighbour it was synchronized through ("" for the reference)
  // t_reference = slope * t_host + offset
  long double slope = 1;
  long double offset = 0;
  long double accuracy_ns = 0;  // sum of the pair bounds along the path
  ClockTransform transform;     // the same, exact integer form
};

struct PairReport {
  std::string a, b;  // a < b; the result maps a's clock to b's
  SyncResult result;
};

class HostSync {
 public:
  // Hosts are added on first use; their order does not matter (the reference is chosen
  // by name).
  void AddMessage(const std::string& from_host, int64_t send_ts, const std::string& to_host,
                  int64_t recv_ts);
  // Declares a host even if it exchanged nothing (so it is reported as unconnected).
  void AddHost(const std::string& host, int64_t some_timestamp);

  // `reference` empty: the first host name in lexical order.
  std::vector<HostTransform> Solve(const std::string& reference = "") const;
  std::vector<PairReport> Pairs() const;
  // True when every host declared so far is linked to every other through pairs whose
  // result is accurate with a slope known within `relative_width` (the two extreme lines'
  // slopes differ by at most that fraction): the stop test of the coarse step of the
  // two-step procedure (seed 004 §3.6 uses 1 percent). Union-find over the pairs.
  bool ConnectedWithin(long double relative_width) const;

 private:
  std::map<std::string, int64_t> hosts_;  // a timestamp inside each host's trace
  std::map<std::pair<std::string, std::string>, ConvexHullSync> pairs_;
};

}  // namespace causeway::sync
