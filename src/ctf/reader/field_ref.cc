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

}  // namespace causeway::ctf
