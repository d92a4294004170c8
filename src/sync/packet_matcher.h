// PacketMatcher: pairs each TCP segment sent on one host with its reception on another
// (key: seq, ack_seq, flags, as REFERENCE.md says) and feeds the pairs to HostSync.
//
// Halves wait in a hash map until their partner comes. Either half can come first: the
// traces are merged on (possibly unsynchronized) timestamps. With an expiry delay, a half
// still unmatched that long after it was seen (in the merge's timebase) is dropped and
// counted: when the traces are read roughly synchronized, its partner is not coming (a
// segment to or from an untraced host), and keeping it only costs memory (seed 004 §3.6).
// Without expiry nothing is dropped, and when one trace is read far ahead of the other,
// every half of it waits.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "sync/host_sync.h"

namespace causeway::sync {

struct SegmentKey {
  uint64_t seq = 0, ack_seq = 0;
  uint32_t flags = 0;
  bool operator==(const SegmentKey&) const = default;
};

class PacketMatcher {
 public:
  // `hosts[i]` names host id i; `expiry_ns` 0: never expire.
  PacketMatcher(HostSync* out, std::vector<std::string> hosts, int64_t expiry_ns);

  // One half of a segment seen on `host`: `host_ts` in the host's own clock (what the
  // convex hull needs), `merge_ts` in the order the halves arrive in (what expiry needs).
  void Add(bool send, uint32_t host, const SegmentKey& key, int64_t host_ts, int64_t merge_ts);

  uint64_t matched_across_hosts() const { return matched_across_; }
  uint64_t matched_same_host() const { return matched_same_; }  // loopback: says nothing
  uint64_t expired() const { return expired_; }
  uint64_t pending() const { return pending_; }            // halves waiting now
  uint64_t peak_pending() const { return peak_pending_; }  // the most that ever waited
  // Bytes the waiting halves took at the peak (map nodes and the expiry queue; an estimate
  // from the element sizes, not the allocator's view).
  uint64_t peak_bytes() const { return peak_bytes_; }

 private:
  struct Half {
    uint32_t host;
    bool send;
    int64_t host_ts, merge_ts;
  };
  struct KeyHash {
    size_t operator()(const SegmentKey& k) const {
      uint64_t h = k.seq * 0x9E3779B97F4A7C15ULL ^
                   (k.ack_seq + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL ^ k.flags;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct Queued {
    int64_t merge_ts;
    SegmentKey key;
  };
  void Expire(int64_t now);
  void NotePeak();

  HostSync* out_;
  std::vector<std::string> hosts_;
  int64_t expiry_ns_;
  std::unordered_map<SegmentKey, std::vector<Half>, KeyHash> waiting_;
  std::deque<Queued> queue_;  // every half added, in merge order (only with expiry)
  uint64_t matched_across_ = 0, matched_same_ = 0, expired_ = 0;
  uint64_t pending_ = 0, peak_pending_ = 0, peak_bytes_ = 0;
};

}  // namespace causeway::sync
