#include "ctf/reader/field_ref.h"

namespace causeway::ctf {

std::optional<ScalarRef> ScalarRefOf(const PlanNode& node) {
  const TypeKind k = node.type->kind;
  if (k != TypeKind::kInteger && k != TypeKind::kEnum && k != TypeKind::kFloat) return std::nullopt;
  const ScalarDesc& d = node.scalar;
  const int size = d.size_bits;
  const bool sized = size >= 1 && size <= 64;
  return ScalarRef{.loc = node.loc,
                   .scalar = d,
                   .max_shift = static_cast<int8_t>(d.big_endian || !sized ? -1 : 64 - size),
                   .mask = sized ? ~uint64_t{0} >> (64 - size) : 0};
}

std::optional<TextRef> TextRefOf(const PlanNode& node) {
  const Type& t = *node.type;
  TextRef r;
  r.loc = node.loc;
  if (t.kind == TypeKind::kString) {
    r.kind = TextRef::Kind::kString;
    return r;
  }
  if (t.kind != TypeKind::kArray && t.kind != TypeKind::kSequence) return std::nullopt;
  const Type* e = t.element.get();
  if (!e || e->kind != TypeKind::kInteger || e->size_bits != 8) return std::nullopt;
  if (t.kind == TypeKind::kArray) {
    r.kind = TextRef::Kind::kArray;
    r.array_length = t.length;
  } else {
    r.kind = TextRef::Kind::kSequence;
    r.length = node.ref;
    r.length_scalar = node.ref_scalar;
  }
  return r;
}

namespace {
// ScalarRef::field for named field `field`: 0 (the general read) past what 16 bits hold.
uint16_t FieldNumber(int field) {
  return field < UINT16_MAX ? static_cast<uint16_t>(field + 1) : 0;
}
}  // namespace

std::optional<ScalarRef> ScalarRefOf(const EventPlan& plan, int field) {
  std::optional<ScalarRef> r = ScalarRefOf(*plan.fields[field].node);
  if (r) r->field = FieldNumber(field);
  return r;
}

std::optional<TextRef> TextRefOf(const EventPlan& plan, int field) {
  std::optional<TextRef> r = TextRefOf(*plan.fields[field].node);
  if (r) r->field = FieldNumber(field);
  return r;
}

StaticField StaticFieldOf(const PlanNode& node, uint64_t bits) {
  // The byte must fit StaticField::byte; an event that large takes the general read.
  if (bits == kAbsent || bits / 8 > UINT32_MAX) return {};
  const StaticField at{.byte = static_cast<uint32_t>(bits / 8),
                       .shift = static_cast<int8_t>(bits % 8)};
  if (auto s = ScalarRefOf(node)) return at.shift <= s->max_shift ? at : StaticField{};
  // A sequence's length lies elsewhere: left to the general read.
  if (auto t = TextRefOf(node); t && t->kind != TextRef::Kind::kSequence)
    return at.shift == 0 ? at : StaticField{};
  return {};
}

}  // namespace causeway::ctf
