#include "ring_registry.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <vector>

namespace causeway::client {

namespace detail {
std::atomic<bool> g_ust_enabled{false};
}  // namespace detail

namespace {

struct RingOwner {
  std::unique_ptr<uint8_t[]> data;
  std::unique_ptr<detail::ThreadRing> ring;
};

struct Registry {
  std::mutex mutex;
  std::vector<RingOwner> rings;
  uint32_t next_ordinal = 0;
  uint64_t next_serial = 1;
  // Ordinals of released rings, reused by new threads: a program that runs a thread per
  // request would otherwise open a new CTF stream (and its packet buffer) per thread ever.
  std::vector<uint32_t> free_ordinals;
  uint32_t ring_bytes = 256 * 1024;
};

// Leaked on purpose: threads may exit (and touch it) during static destruction.
Registry& Rings() {
  static Registry* registry = new Registry;
  return *registry;
}

// Marks the thread's ring orphaned when the thread exits; the collector drains and frees it.
struct ThreadExitMarker {
  ~ThreadExitMarker() {
    if (detail::tls_ring) detail::tls_ring->orphaned.store(true, std::memory_order_release);
    detail::tls_ring = nullptr;
  }
};
thread_local ThreadExitMarker tls_exit_marker;

}  // namespace

void SetThreadRingBytes(uint32_t bytes) {
  Registry& r = Rings();
  std::lock_guard lock(r.mutex);
  r.ring_bytes = bytes;
}

detail::ThreadRing* detail::CreateThreadRing() {
  Registry& r = Rings();
  RingOwner owner;
  {
    std::lock_guard lock(r.mutex);
    owner.ring = std::make_unique<ThreadRing>();
    owner.ring->capacity = r.ring_bytes;
    owner.ring->serial = r.next_serial++;
    if (!r.free_ordinals.empty()) {
      owner.ring->ordinal = r.free_ordinals.back();
      r.free_ordinals.pop_back();
    } else {
      owner.ring->ordinal = r.next_ordinal++;
    }
  }
  owner.data = std::make_unique<uint8_t[]>(owner.ring->capacity);
  owner.ring->data = owner.data.get();
  owner.ring->tid = static_cast<int32_t>(syscall(SYS_gettid));
  ThreadRing* ring = owner.ring.get();
  (void)&tls_exit_marker;  // odr-use: constructs the marker for this thread
  {
    std::lock_guard lock(r.mutex);
    r.rings.push_back(std::move(owner));
  }
  tls_ring = ring;
  return ring;
}

void ForEachRing(const std::function<void(detail::ThreadRing&)>& fn, bool release_drained_orphans) {
  Registry& r = Rings();
  std::lock_guard lock(r.mutex);
  for (RingOwner& owner : r.rings) fn(*owner.ring);
  if (!release_drained_orphans) return;
  std::erase_if(r.rings, [&r](const RingOwner& o) {
    const bool done = o.ring->orphaned.load(std::memory_order_acquire) &&
                      o.ring->tail.load(std::memory_order_relaxed) ==
                          o.ring->head.load(std::memory_order_acquire);
    if (done) r.free_ordinals.push_back(o.ring->ordinal);
    return done;
  });
}

}  // namespace causeway::client
