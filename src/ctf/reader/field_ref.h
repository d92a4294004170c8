// Compact handles to one field of an event class, for loops that read many fields of many
// events.
//
// Reading a field through its PlanNode follows the plan's tree: the node (a few hundred
// bytes each, scattered on the heap) gives the location and the format, and its type gives
// the kind of a text field. A ScalarRef or TextRef copies what a read needs into 24 or 32
// bytes, made once per event class; kept in one array per class, the refs of an event's
// fields share a cache line or two, and the read is inline (Event::GetUnsigned(const
// ScalarRef&), Event::GetString(const TextRef&)). They read the same values as the node.
//
// A ref made for a named field (ScalarRefOf(plan, field)) also knows the field's index, so
// that the read of an event of static layout (Event::static_fields) is one table entry and
// one load from the event's start, without the walk from scope to slot to anchor.
//
// A ref reads events of the class it was made for. Used on another class it reads the
// wrong bytes, as a node of another class would, but stays within the event's buffer: the
// table's first entry holds its length, and an index past it takes the general read.
#pragma once

#include <cstdint>
#include <optional>

#include "ctf/plan/decode_plan.h"

namespace causeway::ctf {

// Where a named field of an event of static layout lies (Event::static_fields): bytes from
// the event header's start, and bits into that byte. `shift` is -1 where the read takes
// the general path: a field not placed by the static layout; a scalar that one 8-byte
// little-endian load does not hold (big endian, or shift + size past 64); a sequence; text
// that does not start on a byte. A table's first entry is no field's: its `byte` is the
// table's length (1 + the class's named fields), its `shift` -1.
struct StaticField {
  uint32_t byte = 0;
  int8_t shift = -1;
};

// An integer, an enum (its container) or a floating-point field.
struct ScalarRef {
  FieldLoc loc;
  ScalarDesc scalar;
  // The inline read's test and mask, worked out once from `scalar`: a little-endian value
  // starting `shift` bits into a byte is one 8-byte load when shift <= max_shift (64 -
  // size; -1 for big endian, which always takes the general read), then kept by `mask`
  // (the low `size` bits). ScalarRefOf sets them.
  int8_t max_shift = -1;
  // 1 + the field's index in EventPlan::fields (ScalarRefOf(plan, field)); 0 for a ref
  // made from a node, or for a field past the 65535th, which the general read takes.
  uint16_t field = 0;
  uint64_t mask = 0;
};

// Text: a string, or an array or sequence of 8-bit integers (up to the first NUL).
struct TextRef {
  enum class Kind : uint8_t { kString, kArray, kSequence };
  FieldLoc loc;
  Kind kind = Kind::kString;
  uint16_t field = 0;         // as ScalarRef::field
  ScalarDesc length_scalar;   // kSequence: how to read its length
  FieldLoc length;            // kSequence: where its length lies
  uint64_t array_length = 0;  // kArray
};

// The ref of a scalar node, or nullopt when the node is not one.
std::optional<ScalarRef> ScalarRefOf(const PlanNode& node);
// The ref of a text node, or nullopt when the node is not one (an array or sequence of
// anything but 8-bit integers is not text).
std::optional<TextRef> TextRefOf(const PlanNode& node);

// The same for named field `field` of `plan` (0 <= field < plan.fields.size()), knowing
// its index: the fast read of an event of static layout.
std::optional<ScalarRef> ScalarRefOf(const EventPlan& plan, int field);
std::optional<TextRef> TextRefOf(const EventPlan& plan, int field);

// The StaticField of a named field whose node lies `bits` from the event header's start
// (kAbsent: not placed).
StaticField StaticFieldOf(const PlanNode& node, uint64_t bits);

static_assert(sizeof(ScalarRef) == 24 && sizeof(TextRef) == 32, "refs stay compact");

}  // namespace causeway::ctf
