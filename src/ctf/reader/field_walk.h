// Every field of an event, decoded, in declaration order: for consumers that show or copy
// whole events (`causeway events`) rather than read a few fields they know.
//
// A FieldWalker walks one scope of an event over the scope's plan tree and hands each
// value to a FieldVisitor, already decoded: integers with their display base, enums with
// their labels, floats, text, the chosen option of a variant, the elements of arrays and
// sequences. The visitor sees names and values only; where the bits lie (slots, anchors,
// offsets) stays in the reader. Consumers that read known fields use Event's accessors
// and the refs of field_ref.h instead.
//
// What a visitor receives for one scope (a struct):
//   BeginStruct(n), then for each member i: Member(i, name) and its value, then EndStruct(n);
// where a value is one of
//   Integer(v), Enum(v, labels), Float(d), Text(s);
//   Absent() (a field of a variant option not chosen);
//   BeginStruct ... EndStruct;
//   BeginVariant(option), the option's value, EndVariant(); or UnknownOption() when the
//     tag selects no option;
//   BeginArray(length), then for each element i: Element(i) and its value, then
//     EndArray(length). ElementsCut(i) before EndArray says that the walk stopped before
//     element i: an event's walk visits at most as many elements as the event has bits
//     (plus 4096), which only arrays of empty elements (a struct with no members, repeated
//     as often as the metadata says) can exceed.
// Text is a string, or an array or sequence of 8-bit integers with an encoding, up to its
// first NUL.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctf/plan/decode_plan.h"
#include "ctf/reader/bits.h"
#include "ctf/reader/event.h"

namespace causeway::ctf {

// An integer, or an enum's container.
struct IntegerValue {
  uint64_t bits = 0;  // the field's bits, zero-extended
  int64_t value = 0;  // sign-extended when is_signed; else the bits
  uint8_t size_bits = 0;
  bool is_signed = false;
  uint8_t base = 10;  // the base the metadata asks to show it in: 2, 8, 10 or 16
};

// The calls a walk makes, as an interface. A walk is a template over its visitor's type,
// so that the calls on a `final` visitor class are direct and can be inlined (a line of
// `causeway events` makes a dozen of them); a visitor may also be used through this base.
class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;

  virtual void BeginStruct(size_t num_members) = 0;
  // Before each member's value; `index` counts from 0 in each struct.
  virtual void Member(size_t index, std::string_view name) = 0;
  virtual void EndStruct(size_t num_members) = 0;

  // The tag selected option `option`: its value follows.
  virtual void BeginVariant(std::string_view option) = 0;
  virtual void EndVariant() = 0;
  virtual void UnknownOption() = 0;

  virtual void BeginArray(uint64_t length) = 0;
  virtual void Element(uint64_t index) = 0;
  virtual void ElementsCut(uint64_t index) = 0;
  virtual void EndArray(uint64_t length) = 0;

  virtual void Integer(const IntegerValue& v) = 0;
  // Every label whose range holds the value, in declaration order (none: no label).
  virtual void Enum(const IntegerValue& v, std::span<const std::string* const> labels) = 0;
  virtual void Float(double v) = 0;
  virtual void Text(std::string_view text) = 0;
  virtual void Absent() = 0;
};

// Reusable from event to event (its buffers are kept): Start(e), then any walks of e's
// scopes. The elements budget is the event's, shared by its scopes.
class FieldWalker {
 public:
  // The scopes a walk can visit: the stream event context, the event context, the payload.
  static bool HasScope(const Event& e, Scope scope) { return ScopeOf(e, scope) != nullptr; }

  void Start(const Event& e);
  // The scope's root struct, as a value: BeginStruct, members, EndStruct. Nothing when the
  // event has no such scope.
  template <class Visitor>
  void WalkScope(Scope scope, Visitor& v) {
    const ScopePlan* p = ScopeOf(*e_, scope);
    if (!p) return;
    Bind(scope, p->num_slots);
    Value(p->root, 0, v);
  }
  // The members of the scope's root struct only (Member and value, each), numbered from
  // `first_index`; returns the number after the last. For a visitor that merges several
  // scopes into one struct.
  template <class Visitor>
  size_t WalkMembers(Scope scope, Visitor& v, size_t first_index = 0) {
    const ScopePlan* p = ScopeOf(*e_, scope);
    if (!p) return first_index;
    Bind(scope, p->num_slots);
    uint64_t cursor = 0;
    for (const PlanNode& member : p->root.children) {
      v.Member(first_index++, member.name);
      cursor = Value(member, cursor, v);
    }
    return first_index;
  }

 private:
  // The plan of scope `scope` of the event, or nullptr when it has none.
  static const ScopePlan* ScopeOf(const Event& e, Scope scope);
  void Bind(Scope scope, uint16_t num_slots);
  uint64_t Pos(const PlanNode& n, uint64_t cursor) {
    auto& slots = slots_[static_cast<int>(n.loc.scope)];
    if (rewalk_ && n.owns_anchor) slots[n.loc.slot] = AlignUp(cursor, n.align_bits);
    const uint64_t anchor = slots[n.loc.slot];
    return anchor == kAbsent ? kAbsent : anchor + n.loc.offset_bits;
  }
  // A variant's tag or a sequence's length.
  uint64_t ReadRef(const PlanNode& n) const {
    // A scope the walk does not visit (the headers, the packet context) is read from the
    // event's own slots.
    const int s = static_cast<int>(n.ref.scope);
    const uint64_t anchor = slots_[s].empty() ? e_->Anchor(s, n.ref.slot) : slots_[s][n.ref.slot];
    if (anchor == kAbsent) return 0;
    return ReadRawBits(e_->data, e_->data_end, anchor + n.ref.offset_bits, n.ref_scalar);
  }
  IntegerValue ReadInteger(const PlanNode& n, uint64_t pos) const {
    const ScalarDesc& d = n.scalar;
    const uint64_t bits = ReadRawBits(e_->data, e_->data_end, pos, d);
    return {.bits = bits,
            .value = d.is_signed ? SignExtend(bits, d.size_bits) : static_cast<int64_t>(bits),
            .size_bits = d.size_bits,
            .is_signed = d.is_signed,
            .base = n.type->base};
  }
  // The option a variant's tag selects, or nullptr.
  const PlanNode* Option(const PlanNode& n) const;
  // The labels of enum `t` whose ranges hold `v`, in labels_.
  std::span<const std::string* const> Labels(const Type& t, const IntegerValue& v);
  // The length of the text at `pos` in bytes (up to its first NUL, at most `max`).
  size_t TextLength(uint64_t pos, uint64_t max) const;
  static bool IsText(const PlanNode& n);
  static uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

  // Visits the value of `n` starting at or after `cursor`; returns where it ends.
  template <class Visitor>
  uint64_t Value(const PlanNode& n, uint64_t cursor, Visitor& v);
  template <class Visitor>
  uint64_t Struct(const PlanNode& n, uint64_t pos, Visitor& v);
  template <class Visitor>
  uint64_t Array(const PlanNode& n, uint64_t pos, Visitor& v);

  const Event* e_ = nullptr;
  // The event's slots, per scope, copied so that elements of arrays of variable-size
  // elements can be walked again: inside them, a node that owns an anchor writes its own
  // start into the copy. Empty for a scope not bound (read from the event).
  std::vector<uint64_t> slots_[kNumScopes];
  bool rewalk_ = false;
  uint64_t elements_left_ = 0;
  std::vector<const std::string*> labels_;  // Labels', kept from value to value
};

template <class Visitor>
uint64_t FieldWalker::Value(const PlanNode& n, uint64_t cursor, Visitor& v) {
  const uint64_t pos = Pos(n, cursor);
  if (pos == kAbsent) {
    v.Absent();
    return cursor;
  }
  const Type& t = *n.type;
  switch (t.kind) {
    case TypeKind::kInteger:
      v.Integer(ReadInteger(n, pos));
      return pos + t.size_bits;
    case TypeKind::kEnum: {
      const IntegerValue value = ReadInteger(n, pos);
      v.Enum(value, Labels(t, value));
      return pos + t.size_bits;
    }
    case TypeKind::kFloat:
      v.Float(BitsToDouble(ReadRawBits(e_->data, e_->data_end, pos, n.scalar), n.scalar.size_bits));
      return pos + t.size_bits;
    case TypeKind::kString: {
      const size_t length = TextLength(pos, ~uint64_t{0});
      v.Text({reinterpret_cast<const char*>(e_->data) + pos / 8, length});
      return pos + (length + 1) * 8;
    }
    case TypeKind::kStruct:
      return Struct(n, pos, v);
    case TypeKind::kVariant: {
      const PlanNode* option = Option(n);
      if (!option) {
        v.UnknownOption();
        return pos;
      }
      v.BeginVariant(option->name);
      const uint64_t end = Value(*option, pos, v);
      v.EndVariant();
      return end;
    }
    case TypeKind::kArray:
    case TypeKind::kSequence:
      return Array(n, pos, v);
  }
  return pos;
}

template <class Visitor>
uint64_t FieldWalker::Struct(const PlanNode& n, uint64_t pos, Visitor& v) {
  v.BeginStruct(n.children.size());
  uint64_t cursor = pos;
  for (size_t i = 0; i < n.children.size(); ++i) {
    v.Member(i, n.children[i].name);
    cursor = Value(n.children[i], cursor, v);
  }
  v.EndStruct(n.children.size());
  return cursor;
}

template <class Visitor>
uint64_t FieldWalker::Array(const PlanNode& n, uint64_t pos, Visitor& v) {
  const Type& t = *n.type;
  const uint64_t count = t.kind == TypeKind::kArray ? t.length : ReadRef(n);
  const PlanNode& elem = n.children[0];
  const uint64_t start = AlignUp(pos, elem.align_bits);
  if (IsText(n)) {
    v.Text({reinterpret_cast<const char*>(e_->data) + start / 8, TextLength(start, count)});
    return start + count * 8;
  }
  v.BeginArray(count);
  uint64_t cursor = start;
  const bool saved = rewalk_;
  const uint64_t stride = elem.fixed_size ? AlignUp(elem.size_bits, elem.align_bits) : 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (elements_left_ == 0) {
      v.ElementsCut(i);
      break;
    }
    --elements_left_;
    v.Element(i);
    if (elem.fixed_size) {
      // An element of fixed size: its anchor is the element's start.
      slots_[static_cast<int>(elem.loc.scope)][elem.loc.slot] = start + i * stride;
      rewalk_ = false;
      Value(elem, cursor, v);
      cursor = start + (i + 1) * stride;
    } else {
      rewalk_ = true;
      cursor = Value(elem, cursor, v);
    }
    if (cursor > e_->content_end_bits) break;
  }
  rewalk_ = saved;
  v.EndArray(count);
  return count && elem.fixed_size ? start + count * stride : cursor;
}

}  // namespace causeway::ctf
