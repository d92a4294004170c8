#include "kernel/block_requests.h"

#include <utility>

namespace causeway::kernel {

namespace {
// Sweep period (trace time): the table holds only the requests in flight, so a sweep is
// short.
constexpr int64_t kSweepNs = 1'000'000'000;
}  // namespace

void BlockRequests::OnQueue(uint32_t host, int64_t dev, uint64_t sector, int64_t ts,
                            bool throttled) {
  ++counters_.queued;
  Expire(ts);
  Entry& e = requests_[Key{host, dev, sector}];
  if (e.times.issued >= 0 || e.times.queued < 0) {
    // New, or the key's previous request was issued and its completion never came.
    e.times = BlockRequestTimes{};
    e.times.queued = ts;
  }
  // block_bio_queue then block_rq_insert of one request: the first says when it entered.
  e.times.throttled |= throttled;
  e.last_ts = ts;
}

void BlockRequests::OnIssue(uint32_t host, int64_t dev, uint64_t sector, int64_t ts) {
  ++counters_.issued;
  Expire(ts);
  Entry& e = requests_[Key{host, dev, sector}];
  e.times.issued = ts;
  e.last_ts = ts;
}

bool BlockRequests::Complete(uint32_t host, int64_t dev, uint64_t sector, int64_t ts,
                             BlockRequestTimes* out) {
  auto it = requests_.find(Key{host, dev, sector});
  if (it == requests_.end() || it->second.last_ts < ts - kBlockRequestExpiryNs) {
    if (it != requests_.end()) {
      requests_.erase(it);
      ++counters_.expired;
    }
    ++counters_.unmatched;
    return false;
  }
  *out = it->second.times;
  requests_.erase(it);
  ++counters_.matched;
  return true;
}

void BlockRequests::Expire(int64_t now) {
  if (now < next_sweep_) return;
  next_sweep_ = now + kSweepNs;
  counters_.expired += absl::erase_if(
      requests_, [now](const auto& kv) { return kv.second.last_ts < now - kBlockRequestExpiryNs; });
}

}  // namespace causeway::kernel
