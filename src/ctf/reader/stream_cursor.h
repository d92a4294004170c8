// Decodes one stream file, packet by packet and event by event.
//
// The file's bytes come from a ChunkedStreamFile: a few chunks holding whole packets, reused
// once the cursor, or the thread still reading its events (LimitReleaseTo), is past them.
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
  void ContinueFrom(const PacketCounters& last);
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
  static constexpr size_t kMinSlotArray = 4;
  // An event class's layout under the LTTng header when its slots are static: its body is
  // static (FastEvent::kStatic), or static up to a string that ends it (a kSteps body with
  // `trailing_string`, such as LTTng's net_dev_queue or irq_handler_entry). The slots of
  // the event header, stream event context, event context and payload, relative to the
  // header's start, for one header option. Such an event is then known by its start alone:
  // the decoding pipeline hands it over that way (Event::slot_base) instead of copying its
  // slots.
  struct StaticLayout {
    const EventPlan* plan = nullptr;
    const uint64_t* slots[4] = {};  // null when the class's slots are not static
    // Event::static_fields for such an event: 1 + plan->fields.size() entries. Null too
    // for a stream read with OpenMemory (no slack past the caller's bytes) or whose
    // header alignment leaves an event's start off a byte.
    const StaticField* fields = nullptr;
  };
  // Indexed by EventPlan::index * 2 + option (0 compact, 1 extended); `plan` is set for
  // every class of the stream's class. Empty before the first packet; never moves after,
  // until ReleaseBuffers().
  const StaticLayout* static_layouts() const { return static_layouts_.data(); }
  // For the record NextNotingLayout() just returned: its header start in bits when the
  // decoder's static path, or its steps for a body that a string ends, decoded it (its
  // slots are then its class's StaticLayout for header option static_option(), plus that
  // start), else kNoStaticLayout. The static path
  // notes the start with one store, cheaper than looking the class up here afterwards
  // (about 20 instructions per event). An event of a static class that the generic path decodes
  // (say, in a packet's last 8 bytes) has none: the pipeline copies its slots.
  uint64_t static_start() const { return static_start_; }
  // Only a plain extended option reaches the static path (PrepareFastPath).
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
  // Frees the bytes held and the static layouts, once the stream has ended and nobody
  // reads its events any more (the decoding pipeline, whose cursors keep them for the
  // merge; an inline read frees them at the end by itself). The layouts' slots take some
  // 16 KB per LTTng kernel stream: a recording of many rotated chunks holds a cursor per
  // stream file of every chunk.
  void ReleaseBuffers() {
    file_.ReleaseAll();
    std::vector<StaticLayout>().swap(static_layouts_);
    std::vector<uint64_t>().swap(static_slots_);
    std::vector<StaticField>().swap(static_fields_);
  }

 private:
  bool Fail(Status s);
  void SizeHeaderSlots();
  void SizeSlots(int scope, size_t n);
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
  // Sets up the fast path's tables once the stream class is known.
  void PrepareFastPath();
  // Fills static_layouts_ (after the fast table, from its kStatic entries and its kSteps
  // ones with trailing_string).
  void PrepareStaticLayouts();
  // Fills run_end_ and run_step_ (after the fast table) for NextStaticRun.
  void PrepareRunTable();
  // The body walk of a kWalk event after the fast header.
  bool WalkBody(const EventPlan* ep, uint64_t* pos);
  struct FastEvent;
  // A kSteps or kWalk body from `pos`, after the fast header; out of line to keep the
  // fast path's register use low.
  [[gnu::noinline]] bool DecodeBody(const FastEvent& fe, uint64_t pos, uint64_t clock);
  // Whether the fast table's kSteps entry `fe` has static slots under a header end aligned
  // to `end_align` bits, up to a string that ends it; then sets its trailing_string and
  // body_bits.
  void NoteTrailingString(FastEvent* fe, uint64_t end_align) const;
  bool HasStaticSlots(const FastEvent& fe) const {
    return fe.plan && (fe.body == FastEvent::kStatic || fe.trailing_string);
  }
  // Shared tail: timestamp (clamped), statistics and the event's fields.
  void Finish(const EventPlan* ep, uint32_t class_index, uint64_t pos, uint64_t clock);
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

  // What DecodeEvent needs for one event id of the stream class, in one place. 128 bytes,
  // so that finding an id's entry is a shift, not a multiplication, on the path from one
  // event's header to the next one's.
  struct alignas(128) FastEvent {
    enum Body : uint8_t {
      // Every present body scope (stream event context, event context, payload) has a fixed
      // layout, and none needs more alignment than the header end guarantees: each scope
      // starts at a constant offset from the header end.
      kStatic,
      // Fixed runs and strings only (no sequence, loop or variant), or fixed layouts that
      // must align at run time: a short list of steps (align, mark, skip fixed bits, skip a
      // string) instead of the plan's ops.
      kSteps,
      // Some scope depends on the data in other ways: the plan's ops walk it.
      kWalk,
    };
    const EventPlan* plan = nullptr;  // nullptr: the id is not declared (then body is kWalk)
    uint32_t class_index = 0;
    Body body = kWalk;
    uint8_t num_parts = 0;
    // kSteps: every step's place is a constant offset from the header end, and only the
    // last one skips a string, byte-aligned: the event's slots are static
    // (PrepareStaticLayouts) and only its end depends on the data.
    bool trailing_string = false;
    // kStatic: from the header end to the event end; kSteps with trailing_string: to the
    // string's start.
    uint64_t body_bits = 0;
    uint32_t first_step = 0, num_steps = 0;  // kSteps: in steps_
    struct Part {
      uint64_t* slot;       // the scope's slot 0
      uint64_t align_mask;  // while preparing: alignment - 1
      uint64_t bits;        // kStatic: offset from the header end
    } parts[3] = {};
  };
  // One step of a kSteps body: align, mark the scope slot, skip `bits`, then a string if
  // `string`. Scopes whose ops are marks, syncs to the last mark and strings compile to it.
  struct Step {
    uint64_t* slot;
    uint64_t align_mask;
    uint64_t bits;
    bool string;
  };
  // Appends `plan`'s steps (its slots in `slots`); false when its ops are not that simple.
  static bool AppendSteps(const ScopePlan& plan, uint64_t* slots, std::vector<Step>* steps);
  bool RunSteps(const FastEvent& fe, uint64_t* pos) const;

  // LTTng compact/large header constants (HeaderFastPath with one_window), precomputed
  // relative to the root-aligned header start. Valid when `enabled`. A plain header
  // (PlainHeader, `plain`) is set up as an extended option that every event takes: the id
  // mask reads a tag of 0, which only the extended range holds; the compact option's
  // absence is noted in header slot 1, which a plain header does not use.
  struct LttngHeader {
    bool enabled = false;
    bool plain = false;
    bool extended_plain = false;
    uint64_t root_mask = 0;  // root alignment - 1
    uint64_t id_mask = 0;
    uint64_t ts_mask = 0;
    uint32_t ts_shift = 0;
    uint64_t compact_lo = 0, compact_span = 0;    // tag - lo <= span: compact option
    uint64_t extended_lo = 0, extended_span = 0;  // same for the extended option
    uint64_t compact_at = 0, compact_end = 0;     // option start and header end, bits
    uint64_t extended_at = 0, extended_end = 0;
    uint64_t extended_id_byte = 0, extended_ts_byte = 0;  // byte offsets from the start
    uint64_t extended_id_mask = 0;  // the id's bits in an 8-byte load at extended_id_byte
    uint16_t compact_slot = 0, extended_slot = 0;
  };

  // Hot per-event state first, so the fast path touches few cache lines.
  bool clock_is_ns_ = false;  // freq 1 GHz: ns = cycles + clock_offset_ns_
  uint64_t pos_ = 0;          // bits, relative to the packet
  uint64_t content_end_ = 0;  // bits, relative to the packet
  // content_end_ while Next() can decode directly (in a packet, no pending record), else 0:
  // one comparison tells whether the next event is on the fast path.
  uint64_t fast_end_ = 0;
  uint64_t clock_ = 0;    // current clock value (cycles)
  uint64_t last_ts_ = 0;  // last timestamp returned (ns)
  uint64_t clock_offset_ns_ = 0;
  uint64_t events_ = 0;                      // stats_.events, kept here with the hot state
  uint64_t stats_changes_ = 0;               // stats_changes()
  uint64_t static_start_ = kNoStaticLayout;  // NextNotingLayout: the static path's header start
  const uint8_t* data_ = nullptr;            // event_.data: the current packet
  uint64_t* header_slots_ = nullptr;         // slots_[kEventHeader]
  const FastEvent* fast_events_ = nullptr;   // fast_table_.data()
  uint64_t num_fast_events_ = 0;
  LttngHeader lttng_;
  std::vector<FastEvent> fast_table_;
  std::vector<StaticLayout> static_layouts_;
  // NextStaticRun's tables, indexed by every tag the id field can hold (at most
  // kMaxRunTags): what the loop needs from the fast table, 8 bytes a tag in each (an
  // index the load scales for free), with the header's size included and the step to the
  // next header start precomputed. Empty when NextStaticRun never applies.
  // run_end_: for a compact id whose body is static, the compact header and the body in
  // bits from the header start; for one whose body a string ends (trailing_string),
  // kStringTag plus the bits from the header start to the string; kExtendedTag for the
  // extended option's tags; else kNotInRun.
  std::vector<uint64_t> run_end_;
  // run_step_: the class index << 32 | the bytes from this header start to the next one
  // (run_end_ rounded up to the root alignment, at least a byte; 0 for a string's).
  std::vector<uint64_t> run_step_;
  // The same for the extended option's ids (its header included), when it is plain: the
  // loop then needs no fast table entry.
  std::vector<uint64_t> run_ext_end_;
  std::vector<uint64_t> run_ext_step_;
  static constexpr uint64_t kStringTag = uint64_t{1} << 61;
  static constexpr uint64_t kNotInRun = uint64_t{1} << 62;
  static constexpr uint64_t kExtendedTag = kNotInRun + 1;
  static constexpr uint64_t kMaxRunTags = 256;
  // The header is LTTng's (event_header_compact, or the large one's extended option when
  // it has one): its sizes are constants in the loop, which frees the registers they would
  // hold.
  bool run_lttng_header_ = false;
  static constexpr uint64_t kLttngExtendedEnd = 104;  // bits: 5-bit tag, 3 pad, id, timestamp
  static constexpr uint64_t kLttngExtendedIdByte = 1, kLttngExtendedTsByte = 5;
  template <bool kLttngHeader>
  uint32_t StaticRunLoop(EventRecord* out, uint32_t max);
  std::vector<uint64_t> static_slots_;      // the StaticLayouts' slots
  std::vector<StaticField> static_fields_;  // and their fields
  std::vector<Step> steps_;

  const Trace* trace_;
  std::optional<FastTransform> transform_;  // absent for the identity
  uint32_t class_base_;
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

  std::vector<uint64_t> slots_[kNumScopes];
  size_t slot_counts_[kNumScopes] = {};
  std::vector<uint64_t> loop_stack_;
  Event event_;
};

}  // namespace causeway::ctf
