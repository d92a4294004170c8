// Per-thread event buffers of causeway-client (internal; see client/README.md).
//
// One single-producer single-consumer ring per thread: the thread appends records with plain
// stores and one release store of `head`; the background collector reads them and releases
// the space with `tail`. No locks, no system calls, no allocation on the hot path. A record
// that does not fit is dropped and counted in `lost` (the collector writes the count into the
// trace as discarded events).
//
// Record: 16-byte header {uint32 size, uint32 key, uint64 raw time} then the payload; sizes
// are multiples of 16, so the space left before the end of the ring always fits a header
// (a padding record, key kPadKey, fills it when a record would wrap).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "causeway/detail/raw_clock.h"

namespace causeway::client::detail {

inline constexpr uint32_t kPadKey = 0;
inline constexpr uint32_t kStartSpanKey = 1;
inline constexpr uint32_t kEndSpanKey = 2;
inline constexpr uint32_t kActivateKey = 3;
inline constexpr uint32_t kDeactivateKey = 4;
inline constexpr uint32_t kFirstTracepointKey = 16;  // + the tracepoint's registry id
inline constexpr uint32_t kRecordHeaderBytes = 16;

struct ThreadRing {
  // Producer side.
  alignas(64) std::atomic<uint64_t> head{0};  // bytes ever written
  uint64_t cached_tail = 0;                   // last tail the producer saw
  std::atomic<uint64_t> lost{0};              // written by the producer only
  uint8_t* data = nullptr;
  uint64_t capacity = 0;  // power of 2
  // Consumer side.
  alignas(64) std::atomic<uint64_t> tail{0};  // bytes ever consumed
  // Shared, rarely written.
  alignas(64) std::atomic<bool> orphaned{false};  // its thread has exited
  int32_t tid = 0;
  uint32_t ordinal = 0;  // the CTF stream it is written to (reused after release)
  uint64_t serial = 0;   // unique per ring ever created
};

// Whether span and activation events are recorded (a user-space trace is open).
extern std::atomic<bool> g_ust_enabled;

// The calling thread's ring, created and registered on first use.
ThreadRing* CreateThreadRing();
inline thread_local ThreadRing* tls_ring = nullptr;
[[gnu::always_inline]] inline ThreadRing* CurrentRing() {
  ThreadRing* r = tls_ring;
  return r ? r : CreateThreadRing();
}

// Reserves a record of `payload` bytes stamped now; returns where the payload goes, or null
// (counted as lost) when the ring is full. Commit(r, record_end) publishes it.
[[gnu::always_inline]] inline uint8_t* Reserve(ThreadRing* r, uint32_t payload, uint32_t key,
                                               uint64_t* record_end) {
  const uint64_t size = (kRecordHeaderBytes + payload + 15) & ~uint64_t{15};
  uint64_t head = r->head.load(std::memory_order_relaxed);
  uint64_t offset = head & (r->capacity - 1);
  uint64_t pad = offset + size > r->capacity ? r->capacity - offset : 0;
  if (head + pad + size - r->cached_tail > r->capacity) [[unlikely]] {
    r->cached_tail = r->tail.load(std::memory_order_acquire);
    if (head + pad + size - r->cached_tail > r->capacity || size > r->capacity / 2) {
      r->lost.store(r->lost.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return nullptr;
    }
  }
  if (pad) [[unlikely]] {
    const uint32_t header[2] = {static_cast<uint32_t>(pad), kPadKey};
    std::memcpy(r->data + offset, header, sizeof(header));
    head += pad;
    offset = 0;
  }
  uint8_t* p = r->data + offset;
  const uint32_t header[2] = {static_cast<uint32_t>(size), key};
  std::memcpy(p, header, sizeof(header));
  const uint64_t now = RawNow();
  std::memcpy(p + 8, &now, sizeof(now));
  *record_end = head + size;
  return p + kRecordHeaderBytes;
}

[[gnu::always_inline]] inline void Commit(ThreadRing* r, uint64_t record_end) {
  r->head.store(record_end, std::memory_order_release);
}

}  // namespace causeway::client::detail
