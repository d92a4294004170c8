// Decodes one stream file, packet by packet and event by event.
//
// The file is memory-mapped; pages behind the cursor are released as it advances so the
// resident set stays bounded whatever the file size. Per stream it reports what it had
// to repair: timestamps that went backwards (clamped to the previous one, so the stream
// stays ordered), events the tracer discarded (packet context `events_discarded`) and
// packets missing from the sequence (`packet_seq_num` gaps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctf/reader/event.h"
#include "ctf/reader/trace.h"

namespace causeway::ctf {

struct StreamStats {
  std::string path;
  uint32_t trace_index = 0;
  uint64_t stream_class_id = 0;
  uint64_t stream_instance_id = 0;
  int64_t cpu = -1;
  uint64_t file_bytes = 0;
  uint64_t packets = 0;
  uint64_t events = 0;
  uint64_t discarded_events = 0;  // reported by the tracer
  uint64_t lost_packets = 0;      // packet_seq_num gaps
  uint64_t clamped_events = 0;    // timestamps earlier than their predecessor, clamped
  uint64_t max_backward_ns = 0;   // largest such step back
  uint64_t first_ts = 0, last_ts = 0;
};

class StreamCursor {
 public:
  // `class_base` is added to EventPlan::index to form Event::class_index.
  StreamCursor(const Trace* trace, uint32_t trace_index, uint32_t stream_index, uint32_t class_base,
               std::string path);
  ~StreamCursor();
  StreamCursor(const StreamCursor&) = delete;
  StreamCursor& operator=(const StreamCursor&) = delete;

  Status Open();
  // Decodes `size` bytes at `data` instead of the file (the fuzzers); the bytes must outlive
  // the cursor, and the path only names them in messages.
  Status OpenMemory(const uint8_t* data, uint64_t size);
  // Decodes the next event (or discarded-events record) into event(). Returns false at
  // the end of the file or on error; status() tells which.
  bool Next() {
    if (fast_ && pos_ < content_end_) [[likely]]
      return DecodeEvent() || FailDecode();
    return NextSlow();
  }
  const Event& event() const { return event_; }
  const Status& status() const { return status_; }
  StreamStats stats() const {
    StreamStats s = stats_;
    s.last_ts = last_ts_;
    return s;
  }
  uint64_t bytes_consumed() const { return packet_offset_; }

 private:
  bool Fail(Status s);
  void SizeHeaderSlots();
  bool NextSlow();
  bool FailDecode();
  Status StartPacket();
  // The hot path returns bool and leaves the error in error_: no Status per event.
  bool Error(Status s) {
    error_ = std::move(s);
    return false;
  }
  bool DecodeEvent();
  // Runs a scope's ops from bit `*pos` of the current packet.
  bool Run(const ScopePlan& plan, Scope scope, uint64_t* pos);
  // Runs a scope, taking the fixed-layout shortcut when the plan allows it.
  bool RunScope(const ScopePlan& plan, Scope scope, uint64_t* pos) {
    if (plan.fixed) {
      const uint64_t at = (*pos + plan.fixed_align_bits - 1) & ~uint64_t{plan.fixed_align_bits - 1};
      if (at + plan.fixed_bits > content_end_) return Run(plan, scope, pos);  // reports the overrun
      slots_[static_cast<int>(scope)][0] = at;
      *pos = at + plan.fixed_bits;
      return true;
    }
    return Run(plan, scope, pos);
  }
  // LTTng compact/large header; returns false when the generic path must decode it.
  bool FastHeader(uint64_t* pos, uint64_t* id);
  uint64_t Read(const PlanNode* n) const;
  void ReleaseBehind();

  const Trace* trace_;
  uint32_t class_base_;
  std::string path_;
  bool clock_is_ns_ = false;  // freq 1 GHz: ns = cycles + clock_offset_ns_
  uint64_t clock_offset_ns_ = 0;
  StreamStats stats_;
  Status status_;
  Status error_;
  int fd_ = -1;
  const uint8_t* map_ = nullptr;
  bool mapped_ = false;  // map_ is our mapping of the file (not OpenMemory's bytes)
  uint64_t file_size_ = 0;
  uint64_t released_ = 0;

  const StreamPlan* stream_plan_ = nullptr;
  bool in_packet_ = false;
  bool fast_ = false;           // in a packet with no pending record: Next() can decode directly
  uint64_t packet_offset_ = 0;  // file offset of the current packet
  uint64_t next_packet_ = 0;    // file offset of the next packet
  uint64_t content_end_ = 0;    // bits, relative to the packet
  uint64_t pos_ = 0;            // bits, relative to the packet
  uint64_t clock_ = 0;          // current clock value (cycles)
  uint64_t last_ts_ = 0;        // last timestamp returned (ns)
  bool have_ts_ = false;
  uint64_t prev_discarded_ = 0;
  uint64_t prev_packet_end_ts_ = 0;
  bool have_seq_ = false;
  uint64_t prev_seq_ = 0;
  uint64_t pending_discarded_ = 0;  // discarded-events record to emit before the packet's events

  std::vector<uint64_t> slots_[kNumScopes];
  std::vector<uint64_t> loop_stack_;
  Event event_;
};

}  // namespace causeway::ctf
