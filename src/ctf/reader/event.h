// A decoded event: a view into the packet bytes and the decoder's slot arrays.
//
// Field values are decoded on access from precomputed locations (FieldDesc / PlanNode), so
// an event that nobody inspects costs only the walk that finds where it ends. An Event is
// valid until the next call to EventReader::Next().
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "ctf/plan/decode_plan.h"
#include "ctf/reader/bits.h"
#include "ctf/reader/field_ref.h"

namespace causeway::ctf {

class Trace;

struct Event {
  enum class Kind : uint8_t { kEvent, kDiscarded };
  Kind kind = Kind::kEvent;
  const EventPlan* plan = nullptr;  // null for kDiscarded
  // For an event of static layout that the decoding pipeline hands over, and whose stream
  // is read from buffers with slack past their end (an 8-byte load at any byte of the
  // packet's content stays in the buffer): where its named fields lie, from the header's
  // start (slot_base of the event scopes, on a byte), indexed by ScalarRef::field /
  // TextRef::field (entry 0, for refs made from a node, is never placed: it holds the
  // table's length). Null otherwise.
  const StaticField* static_fields = nullptr;
  const StreamPlan* stream_plan = nullptr;
  const Trace* trace = nullptr;
  uint32_t trace_index = 0;
  uint32_t stream_index = 0;  // index in EventReader::stream_stats()
  // Dense event-class index across every trace of the reader (EventReader::num_event_classes()),
  // for per-class tables without hashing.
  uint32_t class_index = 0;
  int64_t cpu = -1;        // packet context cpu_id, -1 when absent
  uint64_t timestamp = 0;  // ns from the clock's origin (Epoch for LTTng), offsets applied
  uint64_t cycles = 0;     // raw clock value

  // kDiscarded: how many events were lost in the stream between these times.
  uint64_t discarded = 0;
  uint64_t discarded_begin = 0;
  uint64_t discarded_end = 0;

  // Packet bytes: bit positions are relative to `data`; loads never go past `data_end`.
  const uint8_t* data = nullptr;
  const uint8_t* data_end = nullptr;
  uint64_t content_end_bits = 0;
  // Where each scope's fields lie: slot values (kAbsent for an unchosen variant option)
  // plus the scope's base. The cursor gives absolute slots and bases of 0; the decoding
  // pipeline gives an event of static layout its class's slots relative to the event's
  // start, and that start as the event scopes' base, so that no slot is copied per event.
  const uint64_t* slots[kNumScopes] = {};
  uint64_t slot_base[kNumScopes] = {};

  std::string_view name() const { return plan ? std::string_view(plan->cls->name) : "discarded"; }
  uint64_t id() const { return plan ? plan->cls->id : 0; }

  // Bit position of a scope's anchor, or kAbsent.
  uint64_t Anchor(int scope, uint32_t slot) const {
    const uint64_t anchor = slots[scope][slot];
    return anchor == kAbsent ? kAbsent : anchor + slot_base[scope];
  }
  // Bit position of a node, or kAbsent (a field of an unchosen variant option).
  uint64_t Position(const PlanNode& n) const { return Position(n.loc); }
  // Not written as Anchor() plus the offset: GCC then tests for kAbsent twice.
  uint64_t Position(const FieldLoc& loc) const {
    const int scope = static_cast<int>(loc.scope);
    const uint64_t anchor = slots[scope][loc.slot];
    return anchor == kAbsent ? kAbsent : anchor + slot_base[scope] + loc.offset_bits;
  }

  // Named fields (EventPlan::fields): stream event context, event context, payload.
  const PlanNode& Node(int field) const { return *plan->fields[field].node; }
  bool Has(int field) const { return field >= 0 && Position(Node(field)) != kAbsent; }

  // Integers, enums (their value) and floats (truncated). 0 when absent.
  uint64_t GetUnsigned(const PlanNode& n) const {
    const uint64_t pos = Position(n);
    if (pos == kAbsent) return 0;
    return ReadRawBits(data, data_end, pos, n.scalar);
  }
  int64_t GetSigned(const PlanNode& n) const {
    const uint64_t raw = GetUnsigned(n);
    return n.scalar.is_signed ? SignExtend(raw, n.scalar.size_bits) : static_cast<int64_t>(raw);
  }
  double GetDouble(const PlanNode& n) const {
    const uint64_t raw = GetUnsigned(n);
    if (n.scalar.is_float) return BitsToDouble(raw, n.scalar.size_bits);
    return n.scalar.is_signed ? static_cast<double>(SignExtend(raw, n.scalar.size_bits))
                              : static_cast<double>(raw);
  }
  uint64_t GetUnsigned(int field) const { return GetUnsigned(Node(field)); }
  int64_t GetSigned(int field) const { return GetSigned(Node(field)); }
  double GetDouble(int field) const { return GetDouble(Node(field)); }

  // Strings, and arrays or sequences of 8-bit integers (text up to the first NUL).
  std::string_view GetString(const PlanNode& n) const;
  std::string_view GetString(int field) const { return GetString(Node(field)); }

  // Arrays or sequences of 8-bit integers as bytes, NULs included (binary data such as
  // addresses); empty for other fields.
  std::string_view GetBytes(const PlanNode& n) const;
  std::string_view GetBytes(int field) const { return GetBytes(Node(field)); }

  // Number of elements of an array or sequence.
  uint64_t Length(const PlanNode& n) const;

  // The same reads through compact refs (field_ref.h), inline: for loops over many fields.
  // Whether the ref's field is in this event (false for a field of an unchosen variant
  // option, whose reads give 0 or empty text).
  bool Has(const ScalarRef& r) const { return Placed(r.field) || Position(r.loc) != kAbsent; }
  bool Has(const TextRef& r) const { return Placed(r.field) || Position(r.loc) != kAbsent; }
  [[gnu::always_inline]] uint64_t GetUnsigned(const ScalarRef& r) const {
    if (static_fields && r.field < static_fields[0].byte) {
      const StaticField f = static_fields[r.field];
      if (f.shift >= 0) [[likely]] {
        constexpr int kHeader = static_cast<int>(Scope::kEventHeader);
        uint64_t w;
        std::memcpy(&w, data + (slot_base[kHeader] >> 3) + f.byte, 8);
        return (w >> f.shift) & r.mask;
      }
    }
    const uint64_t pos = Position(r.loc);
    if (pos == kAbsent) return 0;
    const uint8_t* p = data + (pos >> 3);
    const int shift = static_cast<int>(pos & 7);
    if (shift <= r.max_shift && data_end - p >= 8) [[likely]] {
      uint64_t w;
      std::memcpy(&w, p, 8);
      return (w >> shift) & r.mask;
    }
    return ReadRawBitsOutOfLine(data, data_end, pos, r.scalar);
  }
  int64_t GetSigned(const ScalarRef& r) const {
    const uint64_t raw = GetUnsigned(r);
    return r.scalar.is_signed ? SignExtend(raw, r.scalar.size_bits) : static_cast<int64_t>(raw);
  }
  [[gnu::always_inline]] std::string_view GetString(const TextRef& r) const;

 private:
  // True when named field `field` (ScalarRef::field) lies at a place of static_fields.
  bool Placed(uint16_t field) const {
    return static_fields && field < static_fields[0].byte && static_fields[field].shift >= 0;
  }
  // Text at bit `pos` (kAbsent: none), of at most `max` bytes, up to the first NUL.
  std::string_view TextAt(uint64_t pos, uint64_t max) const {
    if (pos == kAbsent || (pos & 7)) return {};
    const char* p = reinterpret_cast<const char*>(data) + (pos >> 3);
    max = std::min(max, (content_end_bits >> 3) - (pos >> 3));
    const uint8_t* nul = FindNul(reinterpret_cast<const uint8_t*>(p), max);
    return {p, nul ? static_cast<size_t>(reinterpret_cast<const char*>(nul) - p) : max};
  }
};

inline uint64_t Event::Length(const PlanNode& n) const {
  if (n.type->kind == TypeKind::kArray) return n.type->length;
  if (n.type->kind != TypeKind::kSequence || Position(n) == kAbsent) return 0;
  const uint64_t pos = Position(n.ref);
  if (pos == kAbsent) return 0;
  return ReadRawBits(data, data_end, pos, n.ref_scalar);
}

inline std::string_view Event::GetString(const PlanNode& n) const {
  uint64_t max = ~uint64_t{0};
  if (n.type->kind == TypeKind::kArray || n.type->kind == TypeKind::kSequence) {
    const Type* e = n.type->element.get();
    if (!e || e->size_bits != 8 || (e->kind != TypeKind::kInteger)) return {};
    if (Position(n) == kAbsent) return {};
    max = Length(n);
  } else if (n.type->kind != TypeKind::kString) {
    return {};
  }
  return TextAt(Position(n), max);
}

inline std::string_view Event::GetBytes(const PlanNode& n) const {
  if (n.type->kind != TypeKind::kArray && n.type->kind != TypeKind::kSequence) return {};
  const Type* e = n.type->element.get();
  if (!e || e->size_bits != 8 || e->kind != TypeKind::kInteger) return {};
  const uint64_t pos = Position(n);
  if (pos == kAbsent || (pos & 7)) return {};
  const uint64_t length = std::min(Length(n), (content_end_bits >> 3) - (pos >> 3));
  return {reinterpret_cast<const char*>(data) + (pos >> 3), static_cast<size_t>(length)};
}

inline std::string_view Event::GetString(const TextRef& r) const {
  if (static_fields && r.field < static_fields[0].byte) {
    const StaticField f = static_fields[r.field];
    if (f.shift >= 0) [[likely]] {  // a string or an array
      constexpr int kHeader = static_cast<int>(Scope::kEventHeader);
      return TextAt(slot_base[kHeader] + uint64_t{f.byte} * 8,
                    r.kind == TextRef::Kind::kArray ? r.array_length : ~uint64_t{0});
    }
  }
  const uint64_t pos = Position(r.loc);
  uint64_t max = ~uint64_t{0};
  if (r.kind == TextRef::Kind::kArray) {
    max = r.array_length;
  } else if (r.kind == TextRef::Kind::kSequence && pos != kAbsent) {
    const uint64_t at = Position(r.length);
    max = at == kAbsent ? 0 : ReadRawBitsInline(data, data_end, at, r.length_scalar);
  }
  return TextAt(pos, max);
}

}  // namespace causeway::ctf
