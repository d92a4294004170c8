#include "ctf/reader/field_walk.h"

#include <algorithm>
#include <cstring>

namespace causeway::ctf {

namespace {

// Whether the range of `m` holds the value (unsigned containers compare as unsigned).
bool InRange(const EnumMapping& m, uint64_t bits, int64_t value, bool is_signed) {
  return is_signed ? (value >= m.lo && value <= m.hi)
                   : (bits >= static_cast<uint64_t>(m.lo) && bits <= static_cast<uint64_t>(m.hi));
}

}  // namespace

const ScopePlan* FieldWalker::ScopeOf(const Event& e, Scope scope) {
  if (!e.plan) return nullptr;
  const ScopePlan* p = nullptr;
  switch (scope) {
    case Scope::kStreamEventContext:
      p = &e.stream_plan->event_context;
      break;
    case Scope::kEventContext:
      p = &e.plan->context;
      break;
    case Scope::kEventPayload:
      p = &e.plan->payload;
      break;
    default:
      return nullptr;
  }
  return p->present ? p : nullptr;
}

void FieldWalker::Start(const Event& e) {
  e_ = &e;
  for (auto& s : slots_) s.clear();
  rewalk_ = false;
  elements_left_ = e.content_end_bits + 4096;
}

void FieldWalker::Bind(Scope scope, uint16_t num_slots) {
  const int s = static_cast<int>(scope);
  slots_[s].resize(num_slots);
  for (uint32_t i = 0; i < num_slots; ++i) slots_[s][i] = e_->Anchor(s, i);
}

const PlanNode* FieldWalker::Option(const PlanNode& n) const {
  const uint64_t bits = ReadRef(n);
  const ScalarDesc& d = n.ref_scalar;
  const int64_t value = d.is_signed ? SignExtend(bits, d.size_bits) : 0;
  for (const EnumMapping& m : n.ref_type->mappings) {
    if (!InRange(m, bits, value, d.is_signed)) continue;
    for (const PlanNode& option : n.children)
      if (option.raw_name == m.label || option.name == m.label) return &option;
  }
  return nullptr;
}

std::span<const std::string* const> FieldWalker::Labels(const Type& t, const IntegerValue& v) {
  labels_.clear();
  for (const EnumMapping& m : t.mappings)
    if (InRange(m, v.bits, v.value, v.is_signed)) labels_.push_back(&m.label);
  return labels_;
}

size_t FieldWalker::TextLength(uint64_t pos, uint64_t max) const {
  const char* p = reinterpret_cast<const char*>(e_->data) + pos / 8;
  const uint64_t avail = std::min<uint64_t>(max, e_->content_end_bits / 8 - pos / 8);
  const void* nul = std::memchr(p, 0, avail);
  return nul ? static_cast<size_t>(static_cast<const char*>(nul) - p) : avail;
}

bool FieldWalker::IsText(const PlanNode& n) {
  const Type* t = n.type;
  if (t->kind != TypeKind::kArray && t->kind != TypeKind::kSequence) return false;
  const Type* e = t->element.get();
  return e && e->kind == TypeKind::kInteger && e->size_bits == 8 && e->encoding != Encoding::kNone;
}

}  // namespace causeway::ctf
