// Decodes one stream file, packet by packet and event by event.
//
// The file's bytes come from a ChunkedStreamFile: a few chunks holding whole packets, reused
// once the cursor, or the thread still reading its events (LimitReleaseTo), is past them.
// Events take the fast paths that the stream class's FastPathTables describe, and the
// plan's ops wherever those do not apply (they name any problem).
// Per stream it reports what it had to repair: timestamps that went backwards (clamped to
// the previous one, so the stream stays ordered), events the tracer discarded (packet
// context `events_discarded`) and packets missing from the sequence (`packet_seq_num` gaps).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock_transform.h"
#include "base/fast_transform.h"
#include "base/status.h"
#include "ctf/reader/chunked_stream_file.h"
#include "ctf/reader/event.h"
#include "ctf/reader/event_record.h"
#include "ctf/reader/fast_path_tables.h"
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
  // Of discarded_events, those the stream's first packet reports: the tracer's running
  // count, at unknown times before that packet ended (a snapshot starts with it; so does
  // a rotated chunk read without the chunk before). babeltrace2 says the tracer "may have
  // discarded events" there, with no count.
  uint64_t discarded_before_first_packet = 0;
  uint64_t lost_packets = 0;     // packet_seq_num gaps
  uint64_t clamped_events = 0;   // timestamps earlier than their predecessor, clamped
  uint64_t max_backward_ns = 0;  // largest such step back
  uint64_t first_ts = 0, last_ts = 0;
};

// Cache-line aligned: written on every event by the thread decoding it (see EventReader).
class alignas(64) StreamCursor {
 public:
  // `class_base` is added to EventPlan::index to form Event::class_index. `transform` maps
  // the trace's clock (ns) to the analysis timebase: every timestamp the cursor reports,
  // its statistics included, is transformed (monotonic, so the stream stays ordered).
  StreamCursor(const Trace* trace, uint32_t trace_index, uint32_t stream_index, uint32_t class_base,
               std::string path, const ClockTransform& transform = {});
  ~StreamCursor();
  StreamCursor(const StreamCursor&) = delete;
  StreamCursor& operator=(const StreamCursor&) = delete;

  Status Open();
  // Decodes `size` bytes at `data` instead of the file (the fuzzers); the bytes must outlive
  // the cursor, and the path only names them in messages.
  Status OpenMemory(const uint8_t* data, uint64_t size);

  // What a packet says of its stream and of the tracer's running counters (LTTng's packet
  // header and context), each when the packet has it.
  struct PacketCounters {
    bool has_instance_id = false, has_discarded = false, has_seq = false;
    uint64_t class_id = 0, instance_id = 0;
    uint64_t discarded = 0;             // events_discarded: the running total, as the packet has it
    uint64_t seq = 0;                   // packet_seq_num
    uint64_t begin_ns = 0, end_ns = 0;  // timestamp_begin and _end, 0 without them
  };
  // Walks the file's packets, decoding their headers and contexts and no event, and
  // returns the first packet's counters in *first and, unless `first_only`, the last's in
  // *last. Only the bytes of the headers and contexts are read (a few KiB per packet, not
  // the packets), so that linking the chunks of a large rotated recording costs little.
  // For a cursor of its own, opened and not read: it is left past the packets walked,
  // and reads no event after.
  Status ReadPacketCounters(bool first_only, PacketCounters* first, PacketCounters* last);
  // The stream goes on from another file's, whose last packet `last` is (the chunk before,
  // in a recording that lttng rotate split): before the first Next(), so that the first
  // packet's discarded events and missing packets are counted from there.
  // Its events' times also start no earlier than `last` ends (a damaged first packet's
  // earlier ones are clamped to it), so that the chain never goes back in time.
  void ContinueFrom(const PacketCounters& last);
  // The stream goes on in another file (the chunk after, which ContinueFrom'd this one's
  // last packet `last`): its events' times end no later than that packet's end (a damaged
  // packet's later ones are clamped to it).
  void ContinuedBy(const PacketCounters& last) { max_ts_ = last.end_ns; }
  // Decodes the next event (or discarded-events record) into event(). Returns false at
  // the end of the file or on error; status() tells which.
  bool Next() {
    if (pos_ < fast_end_) [[likely]]
      return DecodeEvent() || FailDecode();
    return NextSlow();
  }
  // As Next(), and notes static_start() for the record it returns.
  bool NextNotingLayout() {
    static_start_ = kNoStaticLayout;
    if (pos_ < fast_end_) [[likely]]
      return DecodeEvent() || FailDecode();
    return NextSlow();
  }
  const Event& event() const { return event_; }
  const Status& status() const { return status_; }
  StreamStats stats() const {
    StreamStats s = stats_;
    s.last_ts = last_ts_;
    s.events = events_;
    return s;
  }
  // Bumped whenever stats() changes other than by one more event and its time: a packet
  // entered (packets, discarded events, lost packets), a timestamp clamped, the first
  // time set. The decoding pipeline notes stats() at those events, to give the statistics
  // as of any event of a batch.
  uint64_t stats_changes() const { return stats_changes_; }
  uint64_t bytes_consumed() const { return packet_offset_; }
  // The time of the last record Next() returned (an event, or a discarded-events record);
  // false when it returned none. A merged read that meets this stream's error stops right
  // after that record, or before its first event when there is none (EventReader).
  bool LastRecordTime(uint64_t* ts) const {
    if (events_ > 0) {
      *ts = last_ts_;  // a discarded-events record after an event takes that event's time
      return true;
    }
    *ts = discarded_record_ts_;
    return returned_discarded_;
  }
  // Slots of event().slots[scope] in use; the array holds at least kMinSlotArray.
  size_t num_slots(int scope) const { return slot_counts_[scope]; }
  static constexpr size_t kMinSlotArray = FastPathTables::kMinSlotArray;
  // The stream class's StaticLayouts (FastPathTables::static_layouts), indexed by
  // EventPlan::index * 2 + option (0 compact, 1 extended). Null before the first packet;
  // never moves after, until ReleaseBuffers().
  const StaticLayout* static_layouts() const { return static_layouts_; }
  // For the record NextNotingLayout() just returned: its header start in bits when the
  // decoder's static path, or its steps for a body that a string ends, decoded it (its
  // slots are then its class's StaticLayout for header option static_option(), plus that
  // start), else kNoStaticLayout. The static path
  // notes the start with one store, cheaper than looking the class up here afterwards
  // (about 20 instructions per event). An event of a static class that the generic path decodes
  // (say, in a packet's last 8 bytes) has none: the pipeline copies its slots.
  uint64_t static_start() const { return static_start_; }
  // Only a plain extended option reaches the static path (FastPathTables::header).
  uint32_t static_option() const { return header_slots_[lttng_.compact_slot] == kAbsent; }
  static constexpr uint64_t kNoStaticLayout = ~uint64_t{0};
  // Decodes up to `max` more events of the current packet into `out`, as long as each is
  // one NextNotingLayout() would decode with static slots (static_start()), with a
  // timestamp that is its clock value plus clock_offset_ns() and no earlier than the last
  // (nothing clamped), and starts at most EventRecord::kMaxAt bits into the packet; returns how
  // many, 0 at the first that is not (which Next() then decodes as usual, with its
  // errors). The loop keeps the cursor's position and clock in registers and writes
  // nothing but the records: event() and the header slots are left as they were, and
  // stats() counts the events.
  [[gnu::noinline]] uint32_t NextStaticRun(EventRecord* out, uint32_t max);
  uint32_t class_base() const { return class_base_; }
  // What the timestamp adds to the clock value when it is a plain sum (a 1 GHz clock, no
  // transform, no clamp): the pipeline checks that sum and then need not carry the value.
  uint64_t clock_offset_ns() const { return clock_offset_ns_; }
  // File offset of the packet being decoded (bytes_consumed): events handed on so far lie in
  // packets at or after the one this named when they were decoded.
  uint64_t packet_offset() const { return packet_offset_; }
  // By default the cursor reuses the chunks behind its current packet as it advances. When
  // another thread still reads events it decoded earlier (DecodePipeline), that thread says
  // how far it is done instead: chunks are then reused only when they end at or below
  // `offset`.
  void LimitReleaseTo(uint64_t offset) { file_.LimitReleaseTo(offset); }
  // Frees the bytes held, once the stream has ended and nobody reads its events any more
  // (the decoding pipeline, whose cursors keep them for the merge; an inline read frees
  // them at the end by itself): a recording of many rotated chunks holds a cursor per
  // stream file of every chunk.
  void ReleaseBuffers() {
    file_.ReleaseAll();
    static_layouts_ = nullptr;
    std::vector<StaticLayout>().swap(layouts_without_fields_);
  }

 private:
  bool Fail(Status s);
  void SizeHeaderSlots();
  void SizePacketSlots(int scope, size_t n);
  bool NextSlow();
  bool FailDecode();
  Status StartPacket();
  // The hot path returns bool and leaves the error in error_: no Status per event.
  bool Error(Status s) {
    error_ = std::move(s);
    return false;
  }
  // The per-event fast path (LTTng header, table lookup, fixed-layout body); anything it
  // does not cover goes to DecodeEventGeneric, which starts over from pos_. Its static
  // path notes the event's static_start().
  bool DecodeEvent();
  bool DecodeEventGeneric();
  // Sizes the event slots and takes the stream class's FastPathTables, once it is known.
  void UseFastPathTables(const FastPathTables& tables);
  // The body walk of a kWalk event after the fast header.
  bool WalkBody(const EventPlan* ep, uint64_t* pos);
  // A kSteps or kWalk body from `pos`, after the fast header; out of line to keep the
  // fast path's register use low.
  [[gnu::noinline]] bool DecodeBody(const FastEvent& fe, uint64_t pos, uint64_t clock);
  // Shared tail: timestamp (clamped), statistics and the event's fields (`plan_index` is
  // EventPlan::index).
  void Finish(const EventPlan* ep, uint32_t plan_index, uint64_t pos, uint64_t clock);
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
  // Points data_ and event_.data at the file's bytes [offset, offset + size), as
  // ChunkedStreamFile::Map brings them in. `held` receives how many bytes from `offset` are
  // in memory (at least `size`).
  Status LoadBytes(uint64_t offset, uint64_t size, uint64_t* held = nullptr);
  // StartPacket's header and context decode over the first `window` bytes of the packet.
  Status DecodePacketHeaders(uint64_t window, uint64_t* pos, const StreamPlan** stream_plan);
  // Clock value -> ns in the analysis timebase (clock class conversion, then the transform).
  uint64_t ToNs(uint64_t cycles);

  // A kSteps body's steps from `*pos`; false at any problem (the generic path names it).
  bool RunSteps(const FastEvent& fe, uint64_t* pos) const;
  // NextStaticRun's loop, with LTTng's header sizes as constants when kLttngHeader
  // (StaticRunTables::lttng_header).
  template <bool kLttngHeader>
  uint32_t StaticRunLoop(EventRecord* out, uint32_t max);

  // Hot per-event state first, so the fast path touches few cache lines.
  bool clock_is_ns_ = false;  // freq 1 GHz: ns = cycles + clock_offset_ns_
  uint32_t class_base_;       // added to EventPlan::index: Event::class_index
  uint64_t pos_ = 0;          // bits, relative to the packet
  uint64_t content_end_ = 0;  // bits, relative to the packet
  // content_end_ while Next() can decode directly (in a packet, no pending record), else 0:
  // one comparison tells whether the next event is on the fast path.
  uint64_t fast_end_ = 0;
  uint64_t clock_ = 0;    // current clock value (cycles)
  uint64_t last_ts_ = 0;  // last timestamp returned (ns)
  // Bounds of a chunk's times in a chain of chunks (ContinueFrom, ContinuedBy).
  uint64_t min_ts_ = 0;
  uint64_t max_ts_ = UINT64_MAX;
  uint64_t clock_offset_ns_ = 0;
  uint64_t events_ = 0;                      // stats_.events, kept here with the hot state
  uint64_t stats_changes_ = 0;               // stats_changes()
  uint64_t static_start_ = kNoStaticLayout;  // NextNotingLayout: the static path's header start
  const uint8_t* data_ = nullptr;            // event_.data: the current packet
  uint64_t* header_slots_ = nullptr;         // slots_[kEventHeader]
  // From the stream class's FastPathTables (Trace::fast_path_tables), shared with every
  // cursor of the class; set at the first packet (UseFastPathTables).
  const FastEvent* fast_events_ = nullptr;  // events()
  uint64_t num_fast_events_ = 0;
  // header(), copied beside the hot state: the per-event path reads it without going
  // through a pointer.
  LttngHeader lttng_;
  const BodyStep* steps_ = nullptr;  // steps()
  // static_runs(), when the clock is in ns (clock_is_ns_): NextStaticRun's
  // timestamps are clock values plus an offset.
  const StaticRunTables* static_runs_ = nullptr;
  // static_layouts(): the tables', or for a stream read with OpenMemory (no slack past the
  // caller's bytes for a field's 8-byte load) a copy of them without static fields.
  const StaticLayout* static_layouts_ = nullptr;
  std::vector<StaticLayout> layouts_without_fields_;

  const Trace* trace_;
  std::optional<FastTransform> transform_;  // absent for the identity
  StreamStats stats_;
  Status status_;
  Status error_;
  ChunkedStreamFile file_;
  // StartPacket decodes a packet's header and context over the bytes in memory from its
  // start, at least kFirstHeaderWindow (or to the file's end) and at most kMaxHeaderWindow.
  static constexpr uint64_t kFirstHeaderWindow = 4 << 10;
  static constexpr uint64_t kMaxHeaderWindow = 16 << 20;
  bool headers_only_ = false;  // ReadPacketCounters: load headers and contexts, not packets

  const StreamPlan* stream_plan_ = nullptr;
  bool in_packet_ = false;
  uint64_t packet_offset_ = 0;  // file offset of the current packet
  uint64_t next_packet_ = 0;    // file offset of the next packet
  bool have_ts_ = false;
  bool have_discarded_ = false;  // prev_discarded_ holds a packet's count (or ContinueFrom's)
  uint64_t prev_discarded_ = 0;
  uint64_t prev_packet_end_ts_ = 0;
  bool have_seq_ = false;
  uint64_t prev_seq_ = 0;
  uint64_t pending_discarded_ = 0;  // discarded-events record to emit before the packet's events
  // A discarded-events record was returned, the last one at this time (LastRecordTime).
  bool returned_discarded_ = false;
  uint64_t discarded_record_ts_ = 0;

  // event_.slots: the packet header's and packet context's arrays, then the event scopes'
  // back to back in event_slots_ as the FastPathTables lay them out (their tables name a
  // slot by its index there).
  std::vector<uint64_t> packet_slots_[2];
  std::vector<uint64_t> event_slots_;
  uint64_t* slots_[kNumScopes] = {};
  size_t slot_counts_[kNumScopes] = {};
  std::vector<uint64_t> loop_stack_;
  Event event_;
};

}  // namespace causeway::ctf
