// Drains the thread rings into the process's user-space CTF trace.
//
// In: records of every thread ring (ring_registry.h), tracepoint declarations
// (TracepointRegistry). Out: an LTTng-UST-like CTF 1.8 trace in <dir>: one stream per
// thread (stream file channel0_<ordinal>; its packets' cpu_id is that ordinal, since a
// thread's events are not per CPU), stream event context {procname, vtid} as LTTng-UST
// writes it, the clock "monotonic" with the offset given (the recorder's, so that the kernel
// and user-space traces share one time scale). Events lost on full rings become the
// stream's discarded-event count.
//
// Used by the tracer's background thread only (not thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "causeway/detail/thread_ring.h"
#include "ctf/writer/ctf_writer.h"
#include "raw_clock.h"

namespace causeway::client {

class UstTraceWriter {
 public:
  static StatusOr<std::unique_ptr<UstTraceWriter>> Create(const std::string& dir,
                                                          int64_t clock_offset_ns);
  // Drains every ring; raw times are converted with `clock` (sampled after the rings' heads
  // were read, see Drain's body). Releases the rings of exited threads once drained.
  void Drain(ClockCalibration& clock);
  // Drains and closes the trace; returns the first error.
  Status Close(ClockCalibration& clock);

  uint64_t events_written() const { return events_written_; }
  uint64_t events_lost() const { return events_lost_; }
  const std::string& dir() const { return dir_; }

 private:
  UstTraceWriter() = default;
  // A stream is reused by a new thread once the previous one's ring is released.
  struct StreamState {
    uint64_t ring_serial = 0;  // the ring now writing to it (ThreadRing::serial)
    uint64_t last_ts = 0;
    uint64_t ring_lost_seen = 0;  // of `ring`'s lost counter
    uint64_t discarded = 0;       // cumulative for the stream, over all its rings
  };
  void DrainRing(detail::ThreadRing& ring, uint64_t head, ClockCalibration& clock);
  void WriteRecord(const detail::ThreadRing& ring, uint32_t key, uint64_t ts, const uint8_t* p,
                   const uint8_t* end);
  // The CTF class of tracepoint `id`, declared on first use (~0u: unknown tracepoint).
  uint32_t TracepointClass(uint32_t id);

  std::unique_ptr<ctf::CtfWriter> writer_;
  std::string dir_;
  std::string procname_;
  uint32_t start_span_ = 0, end_span_ = 0, activate_ = 0, deactivate_ = 0;
  std::vector<uint32_t> tracepoint_classes_;  // by tracepoint id; ~0u: not declared yet
  std::vector<StreamState> streams_;          // by ring ordinal
  bool metadata_dirty_ = false;
  uint64_t events_written_ = 0;
  uint64_t events_lost_ = 0;
  uint64_t malformed_ = 0;
};

}  // namespace causeway::client
