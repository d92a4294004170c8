// Every thread's event ring (include/causeway/detail/thread_ring.h), for the collector.
#pragma once

#include <cstdint>
#include <functional>

#include "causeway/detail/thread_ring.h"

namespace causeway::client {

// Capacity of rings created from now on (a power of 2, at least 4 KiB).
void SetThreadRingBytes(uint32_t bytes);

// Calls `fn` for every live ring and for orphaned rings not yet released, in creation order.
// An orphaned ring the callback has fully drained is released after the call when
// `release_drained_orphans` is set.
void ForEachRing(const std::function<void(detail::ThreadRing&)>& fn, bool release_drained_orphans);

}  // namespace causeway::client
