#include "record/record_buffer.h"

#include <algorithm>

namespace causeway::record {

bool RecordSlot::Assign(std::span<const uint8_t> record) {
  if (record.size() < sizeof(cw_header) || record.size() > kMaxBytes) return false;
  cw_header h;
  std::memcpy(&h, record.data(), sizeof(h));
  if (h.size < sizeof(cw_header) || h.size > record.size()) return false;
  std::memcpy(bytes, record.data(), h.size);
  ts = h.ts;
  cpu = h.cpu;
  type = h.type;
  size = h.size;
  return true;
}

void ReorderWindow::Add(const RecordSlot& slot) {
  if (slot.cpu >= cpus_.size()) cpus_.resize(slot.cpu + 1);
  cpus_[slot.cpu].push_back(slot);
  newest_ts_ = std::max(newest_ts_, slot.ts);
}

void ReorderWindow::Release(bool all, const SlotFn& out) {
  const uint64_t cutoff = newest_ts_ > window_ns_ ? newest_ts_ - window_ns_ : 0;
  for (std::vector<RecordSlot>& pending : cpus_) {
    if (pending.empty()) continue;
    // Nearly sorted already: an insertion sort costs one pass plus the few inversions, keeps
    // equal timestamps in arrival order, and allocates nothing.
    for (size_t i = 1; i < pending.size(); ++i) {
      if (pending[i].ts >= pending[i - 1].ts) continue;
      RecordSlot moving = pending[i];
      size_t j = i;
      while (j > 0 && pending[j - 1].ts > moving.ts) {
        pending[j] = pending[j - 1];
        --j;
      }
      pending[j] = moving;
    }
    auto end = all ? pending.end()
                   : std::upper_bound(pending.begin(), pending.end(), cutoff,
                                      [](uint64_t t, const RecordSlot& s) { return t < s.ts; });
    for (auto it = pending.begin(); it != end; ++it) out(*it);
    pending.erase(pending.begin(), end);
  }
}

size_t ReorderWindow::pending() const {
  size_t n = 0;
  for (const auto& c : cpus_) n += c.size();
  return n;
}

void SnapshotRing::Add(const RecordSlot& slot) {
  if (slot.cpu >= cpus_.size()) cpus_.resize(slot.cpu + 1);
  Cpu& c = cpus_[slot.cpu];
  c.slots.push_back(slot);
  c.bytes += sizeof(RecordSlot);  // what the slot really costs, so the budget bounds memory
  while (c.bytes > budget_ && !c.slots.empty()) {
    c.bytes -= sizeof(RecordSlot);
    c.slots.pop_front();
    ++overwritten_;
  }
}

void SnapshotRing::ForEach(const SlotFn& out) const {
  for (const Cpu& c : cpus_)
    for (const RecordSlot& s : c.slots) out(s);
}

uint64_t SnapshotRing::OldestTs() const {
  uint64_t oldest = UINT64_MAX;
  for (const Cpu& c : cpus_)
    if (!c.slots.empty()) oldest = std::min(oldest, c.slots.front().ts);
  return oldest == UINT64_MAX ? 0 : oldest;
}

size_t SnapshotRing::held() const {
  size_t n = 0;
  for (const Cpu& c : cpus_) n += c.slots.size();
  return n;
}

}  // namespace causeway::record
