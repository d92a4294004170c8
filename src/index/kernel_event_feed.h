// What the index takes from the kernel event stream during the analysis' one pass: each
// thread's system call, each CPU's interrupt, each disk's requests queued and on the device
// (and, through PageCacheFeed, the page cache), written into a StateWriter as the events
// come (state::StateWriter::Set, so that each attribute's intervals are in time order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "index/page_cache_feed.h"
#include "kernel/kernel_event_observer.h"
#include "state/state_store.h"

namespace causeway::index {

struct KernelFeedCounters {
  uint64_t syscalls = 0;          // entries
  uint64_t syscalls_no_task = 0;  // entries or exits on a CPU whose task is unknown: dropped
  uint64_t interrupts = 0;        // irq and softirq entries
  uint64_t block_events = 0;      // queue, issue and complete
  uint64_t block_expired = 0;     // requests never completed within the expiry delay
};

class KernelEventFeed final : public kernel::KernelEventObserver {
 public:
  // A request queued or issued but not completed within this much trace time is forgotten
  // (a bio merged into a request of another first sector never completes under its own),
  // as kernel::BlockRequests does.
  static constexpr int64_t kBlockExpiryNs = 60'000'000'000;

  explicit KernelEventFeed(state::StateWriter* writer);

  void Start(const kernel::KernelModel& model, const graph::ExecutionGraph& graph) override;
  void OnEvent(const kernel::KernelEvent& e) override;
  void Finish(int64_t end) override;

  const KernelFeedCounters& counters() const { return counters_; }
  // The last event's time, system calls and page cache events included: the graph's range
  // leaves them out, the store's must not (a file's counts after the last scheduling event
  // would be cut off).
  int64_t last_ts() const { return last_ts_; }

 private:
  static constexpr int kMaxIrqDepth = 8;
  struct CpuInterrupts {
    bool created = false;  // attribute made
    state::AttributeId attribute = 0;
    int depth = 0;
    bool hard[kMaxIrqDepth] = {};  // hard irq, else softirq
    state::StateValue value[kMaxIrqDepth];
  };
  struct Disk {
    state::AttributeId queued_attribute = 0, on_device_attribute = 0;
    int64_t queued = 0, on_device = 0;
  };
  struct BlockKey {
    uint32_t host;
    int64_t dev;
    uint64_t sector;
    bool operator==(const BlockKey& o) const {
      return host == o.host && dev == o.dev && sector == o.sector;
    }
    template <typename H>
    friend H AbslHashValue(H h, const BlockKey& k) {
      return H::combine(std::move(h), k.host, k.dev, k.sector);
    }
  };
  struct BlockRequest {
    bool issued = false;
    int64_t last_ts = 0;
  };

  void OnSyscall(const kernel::KernelEvent& e);
  void OnInterruptEntry(const kernel::KernelEvent& e, bool hard, state::StateValue value);
  void OnInterruptExit(const kernel::KernelEvent& e, bool hard);
  void ClearInterrupts(const kernel::KernelEvent& e);
  void OnBlock(const kernel::KernelEvent& e);
  void ExpireBlockRequests(int64_t now);

  state::AttributeId SyscallAttribute(uint32_t host, int32_t tid);
  CpuInterrupts* InterruptsOf(uint32_t host, int32_t cpu);
  Disk& DiskOf(uint32_t host, int64_t dev, int64_t ts);
  void SetCount(state::AttributeId attribute, int64_t ts, int64_t count);
  state::StringRef SyscallName(const kernel::KernelEvent& e);

  state::StateWriter* writer_;
  PageCacheFeed page_cache_;
  const kernel::KernelModel* model_ = nullptr;
  std::vector<std::string> hosts_;
  KernelFeedCounters counters_;
  int64_t last_ts_ = 0;

  absl::flat_hash_map<uint64_t, state::AttributeId> syscall_attributes_;  // host << 32 | tid
  // Interned syscall names by where the event's name lies (static tables and class names,
  // which live as long as the pass), and by id when the trace gives no name.
  absl::flat_hash_map<const char*, state::StringRef> syscall_names_;
  absl::flat_hash_map<int64_t, state::StringRef> syscall_ids_;
  std::vector<std::vector<CpuInterrupts>> cpus_;                // [host][cpu]
  absl::flat_hash_map<uint64_t, state::StringRef> irq_labels_;  // host << 32 | irq
  absl::flat_hash_map<int64_t, state::StringRef> softirq_labels_;
  absl::flat_hash_map<std::pair<uint32_t, int64_t>, Disk> disks_;
  absl::flat_hash_map<BlockKey, BlockRequest> block_requests_;
  int64_t next_block_sweep_ = INT64_MIN;
};

}  // namespace causeway::index
