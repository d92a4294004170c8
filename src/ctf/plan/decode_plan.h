// Decoding plans compiled once per stream class and event class (see README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ctf/metadata/trace_class.h"

namespace causeway::ctf {

// The six dynamic scopes of CTF 1.8, in decoding order.
enum class Scope : uint8_t {
  kPacketHeader = 0,
  kPacketContext,
  kEventHeader,
  kStreamEventContext,
  kEventContext,
  kEventPayload,
};
inline constexpr int kNumScopes = 6;
const char* ScopeName(Scope s);  // "trace.packet.header", …

inline constexpr uint64_t kAbsent = ~uint64_t{0};

// Where a field starts: slots[scope][slot] + offset_bits.
struct FieldLoc {
  Scope scope = Scope::kEventPayload;
  uint16_t slot = 0;
  uint32_t offset_bits = 0;
};

// How to read an integer, enum container or float.
struct ScalarDesc {
  uint8_t size_bits = 0;
  bool big_endian = false;
  bool is_signed = false;
  bool is_float = false;
};

// One node of a compiled type tree (generic walking, text output, field table).
struct PlanNode {
  std::string raw_name;  // as written in the metadata
  std::string name;      // display name: one leading '_' stripped, as babeltrace does
  const Type* type = nullptr;
  FieldLoc loc;
  uint32_t align_bits = 1;
  bool owns_anchor = false;  // this node's start is written to loc.slot by a kMark op
  bool fixed_size = false;   // size_bits is exact
  uint64_t size_bits = 0;
  ScalarDesc scalar;  // integer, enum, float
  FieldLoc ref;       // sequence length or variant tag
  ScalarDesc ref_scalar;
  const Type* ref_type = nullptr;
  std::vector<PlanNode> children;  // struct fields, variant options, array element
  uint16_t variant_slot_begin = 0, variant_slot_end = 0;
};

enum class OpCode : uint8_t {
  kMark,      // pos = align(pos, a); check; slots[slot] = pos
  kSync,      // pos = slots[slot] + offset; check
  kString,    // skip a NUL-terminated string at pos (byte aligned)
  kSeqFixed,  // pos = align(pos, a) + len * stride, len read at `ref` (or constant)
  kLoop,      // begin a loop of `count` iterations (constant or read at `ref`) in loop stack
              // entry `loop_index`; body follows; no iteration: pc = target
  kLoopEnd,   // next iteration of loop `loop_index`: jump to `target`, else fall through
  kVariant,   // mark options absent, choose an option by the tag at `ref`, jump
  kJump,      // pc = target
  kClock,     // update the stream clock with the integer at `ref`
  kEnd,
};

struct VariantRange {
  int64_t lo, hi;   // tag range (unsigned containers compare as unsigned)
  uint32_t target;  // op index of the option
};

struct Op {
  OpCode code = OpCode::kEnd;
  uint16_t slot = 0;
  uint32_t align_bits = 1;
  uint32_t offset_bits = 0;  // kSync
  // kLoop / kLoopEnd: the loop's entry in the cursor's loop stack (its nesting depth in the
  // scope, below ScopePlan::max_loop_depth).
  uint32_t loop_index = 0;
  uint64_t stride_bits = 0;  // kSeqFixed
  uint64_t count = 0;        // kSeqFixed / kLoop: the length, unless count_from_ref
  bool count_from_ref = false;
  FieldLoc ref;
  ScalarDesc ref_scalar;
  uint32_t target = 0;      // kJump / kLoopEnd: op index; kVariant: first VariantRange
  uint32_t num_ranges = 0;  // kVariant
  uint16_t slot_begin = 0, slot_end = 0;  // kVariant: slots reset to kAbsent
  bool min_zero = false;                  // kLoop: an iteration may consume no bits
};
static_assert(sizeof(Op) == 64, "the decoder reads an op per step of every event: keep it small");

// A compiled scope: the program, its slot count and its node tree.
struct ScopePlan {
  bool present = false;
  // A scope of static layout (no string, sequence, variant): the reader skips the ops and
  // just aligns, bounds-checks and advances.
  bool fixed = false;
  uint32_t fixed_align_bits = 1;
  uint64_t fixed_bits = 0;
  std::vector<Op> ops;
  std::vector<VariantRange> ranges;
  uint16_t num_slots = 0;
  uint32_t max_loop_depth = 0;
  PlanNode root;
};

// A field reachable by name (dotted path for nested structs and variant options).
struct FieldDesc {
  std::string name;
  const PlanNode* node = nullptr;
};

struct EventPlan {
  const EventClass* cls = nullptr;
  uint32_t index = 0;  // dense index of this event class within its TracePlan
  ScopePlan context;
  ScopePlan payload;
  // Named fields: stream event context, then event context, then payload.
  std::vector<FieldDesc> fields;
  // -1 when absent. Linear search: call once per class, then keep the index.
  int FieldIndex(std::string_view name) const;
};

// Well-known fields found at compile time (nullptr when absent).
struct WellKnownFields {
  const PlanNode* magic = nullptr;
  const PlanNode* uuid = nullptr;
  const PlanNode* stream_id = nullptr;
  const PlanNode* stream_instance_id = nullptr;
  const PlanNode* content_size = nullptr;
  const PlanNode* packet_size = nullptr;
  const PlanNode* timestamp_begin = nullptr;
  const PlanNode* timestamp_end = nullptr;
  const PlanNode* events_discarded = nullptr;
  const PlanNode* packet_seq_num = nullptr;
  const PlanNode* cpu_id = nullptr;
  std::vector<const PlanNode*> header_ids;  // event header fields named "id", walk order
};

// LTTng's event headers (compact: 5-bit id + 27-bit timestamp, large: 16-bit id + 32-bit
// timestamp, each with an `extended` option holding a 32-bit id and a 64-bit timestamp),
// recognized at compile time and decoded without the interpreter.
struct HeaderFastPath {
  bool enabled = false;
  uint32_t root_align = 1;
  ScalarDesc id;
  uint32_t id_off = 0;
  struct Option {
    int64_t lo = 0, hi = 0;  // tag range
    uint16_t slot = 0;
    uint32_t align = 1;
    uint64_t size = 0;
    bool has_id = false;
    ScalarDesc id, ts;
    uint32_t id_off = 0, ts_off = 0;
  } compact, extended;
  // Little-endian id and compact timestamp both inside one 64-bit load from the header
  // start (LTTng's compact and large headers): one load, two masks.
  bool one_window = false;
  // The extended option holds a byte-aligned little-endian uint32 id and uint64 timestamp,
  // each with 8 bytes of the option from its start (LTTng's: the id, then the timestamp).
  bool extended_plain = false;
  uint64_t id_mask = 0, ts_mask = 0;
  uint32_t ts_shift = 0;
};

// An event header of fixed layout (no variant) holding the event id and a 64-bit
// timestamp, both byte-aligned little-endian integers: what `perf data convert --to-ctf`
// writes (`struct { uint32 id; uint64 timestamp; }`) and babeltrace2's sink.ctf.fs (64-bit
// ids). Recognized at compile time; the cursor decodes it like LTTng's extended option,
// which every event then takes.
struct PlainHeader {
  bool enabled = false;
  uint32_t root_align = 8;  // bits, at least 8
  uint64_t size_bits = 0;   // the whole header
  // Bits from the header start, multiples of 8; an 8-byte load at either stays within
  // the header.
  uint32_t id_off = 0, ts_off = 0;
  uint8_t id_bits = 0;
};

struct StreamPlan {
  const StreamClass* cls = nullptr;
  HeaderFastPath header_fast;
  PlainHeader header_plain;
  ScopePlan packet_context;
  ScopePlan event_header;
  ScopePlan event_context;
  WellKnownFields known;
  std::vector<std::unique_ptr<EventPlan>> events;  // indexed by event id when dense
  std::vector<EventPlan*> by_id;                   // event id -> plan (nullptr: unknown)
  const ClockClass* clock = nullptr;               // the clock mapped in the event header
  uint16_t max_slots[kNumScopes] = {};
  uint32_t max_loop_depth = 0;
  const EventPlan* FindEvent(uint64_t id) const { return id < by_id.size() ? by_id[id] : nullptr; }
};

struct TracePlan {
  const TraceClass* trace = nullptr;
  uint32_t num_event_classes = 0;  // EventPlan::index is below this
  ScopePlan packet_header;
  WellKnownFields header_known;
  std::vector<std::unique_ptr<StreamPlan>> streams;
  const StreamPlan* FindStream(uint64_t id) const;
};

// Compiles every scope of `trace`. The plan points into `trace`, which must outlive it.
StatusOr<std::unique_ptr<TracePlan>> CompileTracePlan(const TraceClass& trace);

}  // namespace causeway::ctf
