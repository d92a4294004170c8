// Block requests in flight, from their entry into the block layer to their completion.
//
// A completion names its request only by (device, first sector): the recorder's, LTTng's
// and perf's block events carry no request address that survives into the trace. So the
// table is keyed by (host, dev, sector) and a completion takes the entry of its key:
//   - queued: the first block_bio_queue or block_rq_insert of the key (a throttled bio is
//     queued when the throttle lets it go, which the recorder marks);
//   - issued: the last block_rq_issue (a requeued request is issued again);
//   - a queue event for a key already issued starts a new request (the completion of the
//     old one was not in the trace).
// A bio merged into a request that starts at another sector is never completed under its
// own key: entries older than kBlockRequestExpiryNs are swept, so memory follows the
// requests in flight, not the trace.
#pragma once

#include <cstdint>

#include <absl/container/flat_hash_map.h>

namespace causeway::kernel {

// When the request completing now entered the block layer and reached the device; -1 when
// the trace does not say.
struct BlockRequestTimes {
  int64_t queued = -1;
  int64_t issued = -1;
  bool throttled = false;  // held by the blkio throttle before it was queued
};

struct BlockRequestCounters {
  uint64_t queued = 0;     // queue and insert events
  uint64_t issued = 0;     // issue events
  uint64_t matched = 0;    // completions whose request was seen queued or issued
  uint64_t unmatched = 0;  // completions of a request never seen before
  uint64_t expired = 0;    // entries never completed within the expiry delay
};

class BlockRequests {
 public:
  static constexpr int64_t kBlockRequestExpiryNs = 60'000'000'000;

  void OnQueue(uint32_t host, int64_t dev, uint64_t sector, int64_t ts, bool throttled);
  void OnIssue(uint32_t host, int64_t dev, uint64_t sector, int64_t ts);
  // The times of the request of (host, dev, sector), removed from the table; false when
  // the request was never seen.
  bool Complete(uint32_t host, int64_t dev, uint64_t sector, int64_t ts, BlockRequestTimes* out);
  const BlockRequestCounters& counters() const { return counters_; }

 private:
  struct Key {
    uint32_t host;
    int64_t dev;
    uint64_t sector;
    bool operator==(const Key& o) const {
      return host == o.host && dev == o.dev && sector == o.sector;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.host, k.dev, k.sector);
    }
  };
  struct Entry {
    BlockRequestTimes times;
    int64_t last_ts = 0;  // of its latest event, for the expiry
  };
  void Expire(int64_t now);

  absl::flat_hash_map<Key, Entry> requests_;
  int64_t next_sweep_ = INT64_MIN;
  BlockRequestCounters counters_;
};

}  // namespace causeway::kernel
