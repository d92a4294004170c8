#include "sync/packet_matcher.h"

#include <algorithm>

namespace causeway::sync {

PacketMatcher::PacketMatcher(HostSync* out, std::vector<std::string> hosts, int64_t expiry_ns)
    : out_(out), hosts_(std::move(hosts)), expiry_ns_(expiry_ns) {}

void PacketMatcher::Add(bool send, uint32_t host, const SegmentKey& key, int64_t host_ts,
                        int64_t merge_ts) {
  if (expiry_ns_ > 0) Expire(merge_ts);
  auto it = waiting_.find(key);
  if (it != waiting_.end()) {
    std::vector<Half>& halves = it->second;
    // The oldest half of the other kind: segments with one key (retransmissions, reused
    // sequence numbers) pair up in order.
    auto other = std::find_if(halves.begin(), halves.end(),
                              [send](const Half& h) { return h.send != send; });
    if (other != halves.end()) {
      if (other->host == host) {
        ++matched_same_;
      } else {
        if (send) {
          out_->AddMessage(hosts_[host], host_ts, hosts_[other->host], other->host_ts);
        } else {
          out_->AddMessage(hosts_[other->host], other->host_ts, hosts_[host], host_ts);
        }
        ++matched_across_;
      }
      halves.erase(other);
      --pending_;
      if (halves.empty()) waiting_.erase(it);
      return;
    }
  }
  waiting_[key].push_back(Half{host, send, host_ts, merge_ts});
  if (expiry_ns_ > 0) queue_.push_back(Queued{merge_ts, key});
  ++pending_;
  NotePeak();
}

void PacketMatcher::Expire(int64_t now) {
  while (!queue_.empty() && queue_.front().merge_ts < now - expiry_ns_) {
    const Queued q = queue_.front();
    queue_.pop_front();
    auto it = waiting_.find(q.key);
    if (it == waiting_.end()) continue;  // matched since
    std::vector<Half>& halves = it->second;
    // Halves of a key are appended in merge order: the expired ones lead.
    auto keep = std::find_if(halves.begin(), halves.end(),
                             [&](const Half& h) { return h.merge_ts >= now - expiry_ns_; });
    const auto gone = static_cast<uint64_t>(keep - halves.begin());
    halves.erase(halves.begin(), keep);
    expired_ += gone;
    pending_ -= gone;
    if (halves.empty()) waiting_.erase(it);
  }
}

void PacketMatcher::NotePeak() {
  if (pending_ <= peak_pending_) return;
  peak_pending_ = pending_;
  // A map node (key, vector, next pointer, cached hash) plus one half, and a queue entry.
  constexpr uint64_t kNode = sizeof(SegmentKey) + sizeof(std::vector<Half>) + 2 * sizeof(void*);
  peak_bytes_ = waiting_.size() * kNode + pending_ * sizeof(Half) +
                waiting_.bucket_count() * sizeof(void*) + queue_.size() * sizeof(Queued);
}

}  // namespace causeway::sync
