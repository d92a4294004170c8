// FastPathTables: what StreamCursor's fast paths need for one stream class, worked out once
// from its plan and shared by every cursor of the class (Trace::fast_path_tables; the chunks
// of a rotated recording share one copy, as they share the plan).
//
// Three things, each falling back to the plan's ops when it does not apply:
// - the event header's constants (LttngHeader), so that LTTng's compact and extended
//   options, and plain fixed headers, decode with one 8-byte load and a few masks;
// - per event id, how its body is laid out (FastEvent): a static layout at constant offsets
//   from the header end, a short list of steps (fixed runs and strings), or the plan's walk;
// - for events whose slots are static, the slots themselves relative to the header start
//   (StaticLayout), and the tables of NextStaticRun's loop (StaticRunTables).
//
// The tables hold no pointer into a cursor: a slot is named by its index in the cursor's
// event slot array, which holds the event header's, stream event context's, event
// context's and payload's slots back to back as slot_offset() places them. The cursor's
// stores then cost what a store through a pointer costs (the array's start is in a
// register), and one copy of the tables serves every cursor. Event classes are named by
// EventPlan::index (the cursor adds its class base for Event::class_index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ctf/plan/decode_plan.h"
#include "ctf/reader/field_ref.h"

namespace causeway::ctf {

// An event class's layout under the fast header when its slots are static: its body is
// static (FastEvent::kStatic), or static up to a string that ends it (a kSteps body with
// `trailing_string`, such as LTTng's net_dev_queue or irq_handler_entry). The slots of the
// event header, stream event context, event context and payload, relative to the header's
// start, for one header option. Such an event is then known by its start alone: the
// decoding pipeline hands it over that way (Event::slot_base) instead of copying its slots.
struct StaticLayout {
  const EventPlan* plan = nullptr;
  const uint64_t* slots[4] = {};  // null when the class's slots are not static
  // Event::static_fields for such an event: 1 + plan->fields.size() entries. Null when
  // the header alignment leaves an event's start off a byte, and in the copy a cursor
  // reading caller's bytes makes (StreamCursor::OpenMemory: no slack past them).
  const StaticField* fields = nullptr;
};

// What the cursor's per-event fast path needs for one event id of the stream class, in one
// place. 128 bytes, so that finding an id's entry is a shift, not a multiplication, on the
// path from one event's header to the next one's.
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
  uint32_t plan_index = 0;          // plan->index, beside the rest
  Body body = kWalk;
  uint8_t num_parts = 0;
  // kSteps: every step's place is a constant offset from the header end, and only the
  // last one skips a string, byte-aligned: the event's slots are static (StaticLayout)
  // and only its end depends on the data.
  bool trailing_string = false;
  // kStatic: from the header end to the event end; kSteps with trailing_string: to the
  // string's start.
  uint64_t body_bits = 0;
  uint32_t first_step = 0, num_steps = 0;  // kSteps: in FastPathTables::steps()
  struct Part {
    uint32_t slot;        // the scope's slot 0, in the cursor's event slot array
    uint64_t align_mask;  // while preparing: alignment - 1
    uint64_t bits;        // kStatic: offset from the header end
  } parts[3] = {};
  bool has_static_slots() const { return plan && (body == kStatic || trailing_string); }
};

// One step of a kSteps body: align, mark the slot, skip `bits`, then a string if `string`.
// Scopes whose ops are marks, syncs to the last mark and strings compile to it.
struct BodyStep {
  uint32_t slot;  // in the cursor's event slot array
  uint64_t align_mask;
  uint64_t bits;
  bool string;
};

// LTTng compact/large header constants (HeaderFastPath with one_window), precomputed
// relative to the root-aligned header start. Valid when `enabled`. A plain header
// (PlainHeader, `plain`) is set up as an extended option that every event takes: the id
// mask reads a tag of 0, which only the extended range holds; the compact option's absence
// is noted in header slot 1, which a plain header does not use.
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

// StreamCursor::NextStaticRun's tables, indexed by every tag the id field can hold (at most
// kMaxTags): what the loop needs from the fast table, 8 bytes a tag in each (an index the
// load scales for free), with the header's size included and the step to the next header
// start precomputed. Empty when the loop never applies.
struct StaticRunTables {
  // end: for a compact id whose body is static, the compact header and the body in bits
  // from the header start; for one whose body a string ends (trailing_string), kStringTag
  // plus the bits from the header start to the string; kExtendedTag for the extended
  // option's tags; else kNotInRun.
  std::vector<uint64_t> end;
  // step: EventPlan::index << 32 | the bytes from this header start to the next one (end
  // rounded up to the root alignment, at least a byte; 0 for a string's).
  std::vector<uint64_t> step;
  // The same for the extended option's ids (its header included), when it is plain: the
  // loop then needs no fast table entry.
  std::vector<uint64_t> ext_end;
  std::vector<uint64_t> ext_step;
  // The header is LTTng's (event_header_compact, or the large one's extended option when
  // it has one): the loop takes its sizes as constants, which frees the registers they
  // would hold.
  bool lttng_header = false;
  static constexpr uint64_t kStringTag = uint64_t{1} << 61;
  static constexpr uint64_t kNotInRun = uint64_t{1} << 62;
  static constexpr uint64_t kExtendedTag = kNotInRun + 1;
  static constexpr uint64_t kMaxTags = 256;
  static constexpr uint64_t kLttngExtendedEnd = 104;  // bits: 5-bit tag, 3 pad, id, timestamp
  static constexpr uint64_t kLttngExtendedIdByte = 1, kLttngExtendedTsByte = 5;
};

class FastPathTables {
 public:
  // Each scope's slot array holds at least this many slots (unused ones kAbsent), so that a
  // copy of up to that many never reads past it.
  static constexpr size_t kMinSlotArray = 4;

  FastPathTables(const TracePlan& trace, const StreamPlan& stream);
  FastPathTables(const FastPathTables&) = delete;
  FastPathTables& operator=(const FastPathTables&) = delete;

  const StreamPlan& stream() const { return *stream_; }
  // Where each event scope's slots start in the cursor's event slot array (the event
  // header's at 0), and the array's length.
  uint32_t slot_offset(Scope scope) const { return slot_offset_[static_cast<int>(scope)]; }
  size_t event_slots_size() const { return event_slots_size_; }

  const LttngHeader& header() const { return header_; }
  // Indexed by event id, every id below the stream class's largest declared one.
  const std::vector<FastEvent>& events() const { return events_; }
  const BodyStep* steps() const { return steps_.data(); }
  // Indexed by EventPlan::index * 2 + option (0 compact, 1 extended); `plan` is set for
  // every class of the stream class.
  const std::vector<StaticLayout>& static_layouts() const { return static_layouts_; }
  // Built only when the header's root alignment is whole bytes and the tags fit kMaxTags;
  // they also need a clock in ns, which is the cursor's to check.
  const StaticRunTables* static_runs() const { return runs_.end.empty() ? nullptr : &runs_; }

 private:
  void PrepareHeader();
  void PrepareEvents();
  // Whether the kSteps entry `fe` has static slots under a header end aligned to
  // `end_align` bits, up to a string that ends it; then sets its trailing_string and
  // body_bits.
  void NoteTrailingString(FastEvent* fe, uint64_t end_align) const;
  // Appends `plan`'s steps (its slots from `first_slot` on); false when its ops are not
  // that simple.
  static bool AppendSteps(const ScopePlan& plan, uint32_t first_slot, std::vector<BodyStep>* steps);
  void PrepareStaticLayouts(uint32_t num_event_classes);
  void PrepareRunTables();

  const StreamPlan* stream_;
  uint32_t slot_offset_[kNumScopes] = {};  // event scopes only; see slot_offset()
  uint32_t scope_slots_[kNumScopes] = {};  // their lengths: at least kMinSlotArray
  size_t event_slots_size_ = 0;
  // Alignment every header end has (a power of two): the root alignment, lowered by the
  // header sizes.
  uint64_t end_align_ = 1;
  LttngHeader header_;
  std::vector<FastEvent> events_;
  std::vector<BodyStep> steps_;
  std::vector<StaticLayout> static_layouts_;
  std::vector<uint64_t> static_slots_;      // the StaticLayouts' slots
  std::vector<StaticField> static_fields_;  // and their fields
  StaticRunTables runs_;
};

}  // namespace causeway::ctf
