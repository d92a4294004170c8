// Fixed-size copies of the BPF side's records, and the two in-memory stages that hold them:
// the reorder window (records of one CPU back in timestamp order before they are written)
// and the snapshot ring (the last N bytes of records per CPU, for flight-recorder mode).
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include "record/bpf/record_event.h"

namespace causeway::record {

// One record, copied out of the ring buffer. Big enough for the largest record type.
struct RecordSlot {
  static constexpr size_t kMaxBytes = 160;
  uint64_t ts = 0;
  uint32_t cpu = 0;
  uint16_t type = 0;
  uint16_t size = 0;
  alignas(8) uint8_t bytes[kMaxBytes];

  // False when the record is malformed (shorter than its header says, or too large).
  bool Assign(std::span<const uint8_t> record);
  template <typename T>
  const T& As() const {
    static_assert(sizeof(T) <= kMaxBytes);
    return *reinterpret_cast<const T*>(bytes);
  }
};

using SlotFn = std::function<void(const RecordSlot&)>;

// Per CPU, holds records until every record older than them has arrived. A probe takes its
// timestamp just before it reserves ring space, so an interrupt on the same CPU can slip a
// newer record in front of an older one; the window only needs to cover that gap, but is
// generous (the timestamps, not the wall clock, decide what is released).
class ReorderWindow {
 public:
  explicit ReorderWindow(uint64_t window_ns = 20'000'000) : window_ns_(window_ns) {}

  void Add(const RecordSlot& slot);
  // Hands out, in timestamp order per CPU, every record older than the newest one seen
  // minus the window (everything when `all`).
  void Release(bool all, const SlotFn& out);
  size_t pending() const;
  uint64_t newest_ts() const { return newest_ts_; }

 private:
  uint64_t window_ns_;
  uint64_t newest_ts_ = 0;
  std::vector<std::vector<RecordSlot>> cpus_;
};

// Flight recorder: per CPU, the most recent records up to a byte budget; older ones are
// overwritten (that is the point of the mode, so they are counted as overwritten, not lost).
// The budget counts whole slots, so it bounds the memory really used.
class SnapshotRing {
 public:
  explicit SnapshotRing(size_t bytes_per_cpu) : budget_(bytes_per_cpu) {}

  void Add(const RecordSlot& slot);
  // Every held record, per CPU in timestamp order (CPUs one after another).
  void ForEach(const SlotFn& out) const;
  uint64_t OldestTs() const;
  uint64_t overwritten() const { return overwritten_; }
  size_t held() const;

 private:
  struct Cpu {
    std::deque<RecordSlot> slots;
    size_t bytes = 0;
  };
  size_t budget_;
  uint64_t overwritten_ = 0;
  std::vector<Cpu> cpus_;
};

}  // namespace causeway::record
