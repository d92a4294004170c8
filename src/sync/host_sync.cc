#include "sync/host_sync.h"

#include <deque>
#include <limits>

namespace causeway::sync {

void HostSync::AddHost(const std::string& host, int64_t some_timestamp) {
  hosts_.emplace(host, some_timestamp);
}

void HostSync::AddMessage(const std::string& from_host, int64_t send_ts, const std::string& to_host,
                          int64_t recv_ts) {
  AddHost(from_host, send_ts);
  AddHost(to_host, recv_ts);
  if (from_host == to_host) return;
  if (from_host < to_host) {
    pairs_[{from_host, to_host}].AddAToB(send_ts, recv_ts);
  } else {
    pairs_[{to_host, from_host}].AddBToA(send_ts, recv_ts);
  }
}

std::vector<PairReport> HostSync::Pairs() const {
  std::vector<PairReport> out;
  for (const auto& [k, s] : pairs_) out.push_back(PairReport{k.first, k.second, s.result()});
  return out;
}

bool HostSync::ConnectedWithin(long double relative_width) const {
  std::map<std::string, std::string> parent;
  for (const auto& [h, ts] : hosts_) parent[h] = h;
  auto find = [&parent](std::string h) {
    while (parent[h] != h) h = parent[h] = parent[parent[h]];
    return h;
  };
  size_t parts = hosts_.size();
  for (const auto& [k, s] : pairs_) {
    const SyncResult& r = s.result();
    if (r.quality != SyncQuality::kAccurate || !r.min_line || !r.max_line) continue;
    const long double width = r.max_line->slope() - r.min_line->slope();
    if (width > relative_width * r.slope) continue;
    const std::string a = find(k.first), b = find(k.second);
    if (a != b) {
      parent[a] = b;
      --parts;
    }
  }
  return parts <= 1;
}

std::vector<HostTransform> HostSync::Solve(const std::string& reference) const {
  std::map<std::string, HostTransform> done;
  if (hosts_.empty()) return {};
  const std::string ref = reference.empty() ? hosts_.begin()->first : reference;
  HostTransform root;
  root.host = ref;
  root.reference = true;
  root.connected = hosts_.count(ref) > 0;
  if (root.connected) {
    std::deque<std::string> queue = {ref};
    done[ref] = root;
    while (!queue.empty()) {
      const std::string h = queue.front();
      queue.pop_front();
      const HostTransform& fh = done[h];
      for (const auto& [k, s] : pairs_) {
        const SyncResult& r = s.result();
        const bool usable = r.quality == SyncQuality::kAccurate ||
                            r.quality == SyncQuality::kApproximate ||
                            (r.quality == SyncQuality::kFail && r.kept_last_good);
        if (!usable) continue;
        std::string other;
        long double a = 0, b = 0;  // t_h = a * t_other + b
        if (k.first == h) {
          other = k.second;  // t_other = s t_h + o  =>  t_h = (t_other - o) / s
          a = 1 / r.slope;
          b = -r.offset / r.slope;
        } else if (k.second == h) {
          other = k.first;  // t_h = s t_other + o
          a = r.slope;
          b = r.offset;
        } else {
          continue;
        }
        if (done.count(other)) continue;
        HostTransform t;
        t.host = other;
        t.connected = true;
        t.via = h;
        t.slope = fh.slope * a;  // t_ref = fh.slope * (a t + b) + fh.offset
        t.offset = fh.slope * b + fh.offset;
        t.accuracy_ns = fh.accuracy_ns + r.accuracy_ns;
        done[other] = t;
        queue.push_back(other);
      }
    }
  }
  std::vector<HostTransform> out;
  for (const auto& [host, ts] : hosts_) {
    auto it = done.find(host);
    HostTransform t = it != done.end() ? it->second : HostTransform{};
    t.host = host;
    if (it == done.end()) t.accuracy_ns = std::numeric_limits<long double>::infinity();
    if (t.connected) t.transform = ClockTransform::FromLine(t.slope, t.offset, ts);
    out.push_back(t);
  }
  if (!root.connected) out.insert(out.begin(), root);  // an unknown reference: reported
  return out;
}

}  // namespace causeway::sync
