#include "ctf/plan/decode_plan.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace causeway::ctf {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string DisplayName(const std::string& raw) {
  return !raw.empty() && raw[0] == '_' ? raw.substr(1) : raw;
}

bool IsScalar(const Type& t) {
  return t.kind == TypeKind::kInteger || t.kind == TypeKind::kEnum || t.kind == TypeKind::kFloat;
}

ScalarDesc ScalarOf(const Type& t) {
  ScalarDesc d;
  d.size_bits = static_cast<uint8_t>(t.size_bits);
  d.big_endian = t.byte_order == ByteOrder::kBig;
  d.is_signed = t.is_signed;
  d.is_float = t.kind == TypeKind::kFloat;
  return d;
}

uint32_t NodeAlign(const Type& t) {
  switch (t.kind) {
    case TypeKind::kArray:
    case TypeKind::kSequence:
      return t.element ? NodeAlign(*t.element) : 1;
    case TypeKind::kVariant:
      return 1;  // each option aligns itself
    case TypeKind::kString:
      return 8;
    default:
      return std::max<uint32_t>(t.align_bits, 1);
  }
}

// Size of a type whose layout is the same wherever it starts (given its own alignment),
// or nullopt when it depends on the data (strings, sequences, variants).
std::optional<uint64_t> StaticSize(const Type& t, int depth = 0) {
  if (depth > 64) return std::nullopt;
  switch (t.kind) {
    case TypeKind::kInteger:
    case TypeKind::kEnum:
    case TypeKind::kFloat:
      return t.size_bits;
    case TypeKind::kString:
    case TypeKind::kSequence:
    case TypeKind::kVariant:
      return std::nullopt;
    case TypeKind::kArray: {
      if (!t.element) return std::nullopt;
      auto e = StaticSize(*t.element, depth + 1);
      if (!e) return std::nullopt;
      uint64_t stride = AlignUp(*e, NodeAlign(*t.element));
      if (stride && t.length > (uint64_t{1} << 40) / stride) return std::nullopt;
      return stride * t.length;
    }
    case TypeKind::kStruct: {
      uint64_t off = 0;
      for (const auto& f : t.fields) {
        if (!f.type) return std::nullopt;
        auto s = StaticSize(*f.type, depth + 1);
        if (!s) return std::nullopt;
        off = AlignUp(off, NodeAlign(*f.type)) + *s;
      }
      return off;
    }
  }
  return std::nullopt;
}

const char* kScopePrefixes[kNumScopes] = {
    "trace.packet.header.",  "stream.packet.context.", "stream.event.header.",
    "stream.event.context.", "event.context.",         "event.fields.",
};

class ScopeCompiler {
 public:
  // `earlier` holds the roots of the scopes compiled before this one (null when absent).
  ScopeCompiler(Scope scope, ScopePlan* plan, const PlanNode* const* earlier)
      : scope_(scope), plan_(plan), earlier_(earlier) {}

  Status Compile(const TypePtr& root_type) {
    if (!root_type) return Status::Ok();
    if (root_type->kind != TypeKind::kStruct)
      return InvalidArgument(fmt::format("{} is not a struct", ScopeName(scope_)));
    plan_->present = true;
    plan_->root.raw_name = plan_->root.name = "";
    RETURN_IF_ERROR(CompileNode(*root_type, &plan_->root, 0));
    if (known_) Emit({.code = OpCode::kSync, .slot = anchor_, .offset_bits = Off32()});
    Emit({.code = OpCode::kEnd});
    const auto& ops = plan_->ops;
    if (ops.size() == 3 && ops[0].code == OpCode::kMark && ops[0].slot == 0 &&
        ops[1].code == OpCode::kSync && ops[1].slot == 0 && ops[2].code == OpCode::kEnd) {
      plan_->fixed = true;
      plan_->fixed_align_bits = ops[0].align_bits;
      plan_->fixed_bits = ops[1].offset_bits;
    }
    plan_->num_slots = next_slot_;
    plan_->max_loop_depth = max_depth_;
    if (offset_ > UINT32_MAX) return Unimplemented("scope larger than 512 MiB");
    return Status::Ok();
  }

 private:
  uint32_t Off32() const { return static_cast<uint32_t>(offset_); }
  void Emit(Op op) {
    if (emit_) plan_->ops.push_back(op);
  }
  uint32_t Pc() const { return static_cast<uint32_t>(plan_->ops.size()); }

  StatusOr<uint16_t> NewSlot() {
    if (next_slot_ == UINT16_MAX) return Unimplemented("too many variable-position fields");
    return next_slot_++;
  }

  // Places `node` (alignment `align`) at the current position, emitting a mark if needed.
  Status Place(PlanNode* node, uint32_t align) {
    if (known_ && align <= anchor_align_) {
      offset_ = AlignUp(offset_, align);
    } else {
      if (known_) Emit({.code = OpCode::kSync, .slot = anchor_, .offset_bits = Off32()});
      ASSIGN_OR_RETURN(uint16_t slot, NewSlot());
      Emit({.code = OpCode::kMark, .slot = slot, .align_bits = align});
      known_ = true;
      anchor_ = slot;
      offset_ = 0;
      anchor_align_ = std::max(align, unknown_align_);
      node->owns_anchor = true;
    }
    if (offset_ > (uint64_t{1} << 32)) return Unimplemented("field offset beyond 512 MiB");
    node->loc = {scope_, anchor_, Off32()};
    return Status::Ok();
  }

  void SyncAndForget(uint32_t align_after) {
    if (known_) Emit({.code = OpCode::kSync, .slot = anchor_, .offset_bits = Off32()});
    known_ = false;
    unknown_align_ = align_after;
  }

  Status CompileNode(const Type& t, PlanNode* node, int depth) {
    if (depth > 64) return Unimplemented("types nested deeper than 64 levels");
    node->type = &t;
    const uint32_t align = NodeAlign(t);
    node->align_bits = align;
    if (align & (align - 1))
      return InvalidArgument(fmt::format("alignment {} is not a power of two", align));
    RETURN_IF_ERROR(Place(node, align));
    const uint64_t start = offset_;
    const uint16_t start_anchor = anchor_;

    switch (t.kind) {
      case TypeKind::kInteger:
      case TypeKind::kEnum:
      case TypeKind::kFloat: {
        if (t.size_bits == 0 || t.size_bits > 64)
          return InvalidArgument(fmt::format("field '{}': integer size {} is not in 1..64",
                                             node->raw_name, t.size_bits));
        if (t.kind == TypeKind::kFloat && t.size_bits != 32 && t.size_bits != 64)
          return Unimplemented(fmt::format("field '{}': floating point of {} bits (only 32 and 64)",
                                           node->raw_name, t.size_bits));
        node->scalar = ScalarOf(t);
        offset_ += t.size_bits;
        if (scope_ == Scope::kEventHeader && t.kind != TypeKind::kFloat &&
            (!t.mapped_clock.empty() || node->raw_name == "timestamp")) {
          Emit({.code = OpCode::kClock, .ref = node->loc, .ref_scalar = node->scalar});
        }
        break;
      }
      case TypeKind::kString:
        SyncAndForget(8);
        Emit({.code = OpCode::kString});
        break;
      case TypeKind::kStruct: {
        node->children.reserve(t.fields.size());
        chain_.push_back(node);
        for (const auto& f : t.fields) {
          if (!f.type) return InvalidArgument(fmt::format("field '{}' has no type", f.name));
          node->children.emplace_back();
          PlanNode* child = &node->children.back();
          child->raw_name = f.name;
          child->name = DisplayName(f.name);
          Status s = CompileNode(*f.type, child, depth + 1);
          if (!s.ok()) {
            chain_.pop_back();
            return s;
          }
        }
        chain_.pop_back();
        break;
      }
      case TypeKind::kArray:
      case TypeKind::kSequence:
        RETURN_IF_ERROR(CompileArray(t, node, depth));
        break;
      case TypeKind::kVariant:
        RETURN_IF_ERROR(CompileVariant(t, node, depth));
        break;
    }
    if (known_ && anchor_ == start_anchor) {
      node->fixed_size = true;
      node->size_bits = offset_ - start;
    }
    return Status::Ok();
  }

  Status CompileArray(const Type& t, PlanNode* node, int depth) {
    if (!t.element)
      return InvalidArgument(fmt::format("array '{}' has no element type", node->raw_name));
    const bool is_seq = t.kind == TypeKind::kSequence;
    if (is_seq) RETURN_IF_ERROR(ResolveRef(t.ref, node, /*want_enum=*/false));
    node->children.emplace_back();
    PlanNode* elem = &node->children.back();
    elem->raw_name = elem->name = "";
    const uint32_t elem_align = NodeAlign(*t.element);
    std::optional<uint64_t> elem_size = StaticSize(*t.element);

    if (elem_size) {
      // Elements have a static layout: compile the element once, for its node tree only.
      const uint64_t stride = AlignUp(*elem_size, elem_align);
      const bool saved_emit = emit_, saved_known = known_;
      const uint16_t saved_anchor = anchor_;
      const uint64_t saved_offset = offset_;
      const uint32_t saved_align = anchor_align_, saved_unknown = unknown_align_;
      emit_ = false;
      known_ = false;
      unknown_align_ = elem_align;
      RETURN_IF_ERROR(CompileNode(*t.element, elem, depth + 1));
      emit_ = saved_emit;
      known_ = saved_known;
      anchor_ = saved_anchor;
      offset_ = saved_offset;
      anchor_align_ = saved_align;
      unknown_align_ = saved_unknown;
      if (!is_seq) {
        offset_ += stride * t.length;
        return Status::Ok();
      }
      SyncAndForget(1);
      Emit({.code = OpCode::kSeqFixed,
            .align_bits = elem_align,
            .stride_bits = stride,
            .count_from_ref = true,
            .ref = node->ref,
            .ref_scalar = node->ref_scalar});
      return Status::Ok();
    }

    // Elements of data-dependent size: a loop over the element's ops.
    SyncAndForget(unknown_align_);
    const uint32_t loop_depth = depth_++;
    max_depth_ = std::max(max_depth_, depth_);
    const uint32_t loop_pc = Pc();
    Emit({.code = OpCode::kLoop,
          .loop_index = loop_depth,
          .count = is_seq ? 0 : t.length,
          .count_from_ref = is_seq,
          .ref = node->ref,
          .ref_scalar = node->ref_scalar,
          .min_zero = true});
    RETURN_IF_ERROR(CompileNode(*t.element, elem, depth + 1));
    SyncAndForget(1);
    Emit({.code = OpCode::kLoopEnd, .loop_index = loop_depth, .target = loop_pc + 1});
    if (emit_) plan_->ops[loop_pc].target = Pc();  // where to go when the count is zero
    --depth_;
    return Status::Ok();
  }

  Status CompileVariant(const Type& t, PlanNode* node, int depth) {
    RETURN_IF_ERROR(ResolveRef(t.ref, node, /*want_enum=*/true));
    if (t.fields.empty())
      return InvalidArgument(fmt::format("variant '{}' has no option", node->raw_name));
    SyncAndForget(unknown_align_);
    const uint32_t variant_pc = Pc();
    Emit({.code = OpCode::kVariant, .ref = node->ref, .ref_scalar = node->ref_scalar});
    const uint16_t slot_begin = next_slot_;
    std::vector<uint32_t> jumps;
    std::vector<VariantRange> ranges;
    const uint32_t align_in = unknown_align_;
    node->children.reserve(t.fields.size());
    for (const auto& opt : t.fields) {
      if (!opt.type)
        return InvalidArgument(fmt::format("variant option '{}' has no type", opt.name));
      node->children.emplace_back();
      PlanNode* child = &node->children.back();
      child->raw_name = opt.name;
      child->name = DisplayName(opt.name);
      // Every enum range whose label names this option jumps here.
      for (const auto& m : node->ref_type->mappings) {
        if (m.label == opt.name || DisplayName(m.label) == DisplayName(opt.name))
          ranges.push_back({m.lo, m.hi, Pc()});
      }
      known_ = false;
      unknown_align_ = align_in;
      RETURN_IF_ERROR(CompileNode(*opt.type, child, depth + 1));
      SyncAndForget(1);
      jumps.push_back(Pc());
      Emit({.code = OpCode::kJump});
    }
    node->variant_slot_begin = slot_begin;
    node->variant_slot_end = next_slot_;
    if (emit_) {
      Op& v = plan_->ops[variant_pc];
      v.target = static_cast<uint32_t>(plan_->ranges.size());
      v.num_ranges = static_cast<uint32_t>(ranges.size());
      v.slot_begin = slot_begin;
      v.slot_end = next_slot_;
      plan_->ranges.insert(plan_->ranges.end(), ranges.begin(), ranges.end());
      for (uint32_t j : jumps) plan_->ops[j].target = Pc();
    }
    return Status::Ok();
  }

  static const PlanNode* FindChild(const PlanNode& parent, std::string_view name) {
    for (const auto& c : parent.children)
      if (c.raw_name == name) return &c;
    for (const auto& c : parent.children)
      if (c.name == name || DisplayName(std::string(name)) == c.name) return &c;
    return nullptr;
  }

  static const PlanNode* FindPath(const PlanNode& from, std::string_view path) {
    const PlanNode* cur = &from;
    while (cur) {
      size_t dot = path.find('.');
      cur = FindChild(*cur, path.substr(0, dot));
      if (dot == std::string_view::npos) return cur;
      path.remove_prefix(dot + 1);
    }
    return nullptr;
  }

  Status ResolveRef(const std::string& ref, PlanNode* node, bool want_enum) {
    const PlanNode* target = nullptr;
    for (int s = 0; s < kNumScopes && !target; ++s) {
      std::string_view prefix = kScopePrefixes[s];
      if (ref.size() > prefix.size() && ref.compare(0, prefix.size(), prefix) == 0) {
        std::string_view rest = std::string_view(ref).substr(prefix.size());
        const PlanNode* root = s == static_cast<int>(scope_) ? &plan_->root : earlier_[s];
        if (root) target = FindPath(*root, rest);
        if (!target)
          return InvalidArgument(
              fmt::format("field '{}': cannot resolve '{}'", node->raw_name, ref));
      }
    }
    // Relative: enclosing structs innermost first, then earlier scopes, latest first.
    for (auto it = chain_.rbegin(); it != chain_.rend() && !target; ++it)
      target = FindPath(**it, ref);
    for (int s = static_cast<int>(scope_) - 1; s >= 0 && !target; --s)
      if (earlier_[s]) target = FindPath(*earlier_[s], ref);
    if (!target)
      return InvalidArgument(fmt::format("field '{}': cannot resolve {} '{}'", node->raw_name,
                                         want_enum ? "variant tag" : "sequence length", ref));
    const Type& tt = *target->type;
    if (tt.kind != TypeKind::kInteger && tt.kind != TypeKind::kEnum)
      return InvalidArgument(
          fmt::format("field '{}': '{}' is not an integer", node->raw_name, ref));
    if (want_enum && tt.kind != TypeKind::kEnum)
      return InvalidArgument(
          fmt::format("variant '{}': tag '{}' is not an enum", node->raw_name, ref));
    node->ref = target->loc;
    node->ref_scalar = target->scalar;
    node->ref_type = &tt;
    return Status::Ok();
  }

  Scope scope_;
  ScopePlan* plan_;
  const PlanNode* const* earlier_;
  std::vector<const PlanNode*> chain_;
  bool emit_ = true;
  bool known_ = false;
  uint16_t anchor_ = 0;
  uint64_t offset_ = 0;
  uint32_t anchor_align_ = 1;
  uint32_t unknown_align_ = 1;
  uint16_t next_slot_ = 0;
  uint32_t depth_ = 0, max_depth_ = 0;
};

void CollectFields(const PlanNode& node, const std::string& prefix, std::vector<FieldDesc>* out) {
  for (const auto& c : node.children) {
    std::string path = prefix.empty() ? c.name : prefix + "." + c.name;
    out->push_back({path, &c});
    const TypeKind k = c.type->kind;
    if (k == TypeKind::kStruct || k == TypeKind::kVariant) CollectFields(c, path, out);
  }
}

// The field named `raw`, else the one whose name is `raw` once its leading underscore is
// stripped (CTF 1.8 readers strip it: babeltrace2's sink.ctf.fs writes `_cpu_id`, which
// babeltrace2 reads as the CPU).
const PlanNode* Child(const ScopePlan& p, std::string_view raw) {
  if (!p.present) return nullptr;
  for (const auto& c : p.root.children)
    if (c.raw_name == raw) return &c;
  for (const auto& c : p.root.children)
    if (c.name == raw) return &c;
  return nullptr;
}

void CollectIds(const PlanNode& node, std::vector<const PlanNode*>* out) {
  for (const auto& c : node.children) {
    if (c.raw_name == "id" && IsScalar(*c.type)) out->push_back(&c);
    if (c.type->kind == TypeKind::kStruct || c.type->kind == TypeKind::kVariant) CollectIds(c, out);
  }
}

const ClockClass* FindMappedClock(const TraceClass& trace, const Type* t, int depth = 0) {
  if (!t || depth > 64) return nullptr;
  if (!t->mapped_clock.empty()) return trace.FindClock(t->mapped_clock);
  for (const auto& f : t->fields)
    if (const ClockClass* c = FindMappedClock(trace, f.type.get(), depth + 1)) return c;
  return nullptr;
}

// Recognizes LTTng's compact and large event headers (see HeaderFastPath).
HeaderFastPath RecognizeLttngHeader(const ScopePlan& h) {
  HeaderFastPath f;
  if (!h.present || h.root.children.size() != 2) return f;
  const PlanNode& id = h.root.children[0];
  const PlanNode& v = h.root.children[1];
  if (id.raw_name != "id" || id.type->kind != TypeKind::kEnum || id.loc.slot != 0 ||
      h.root.loc.slot != 0 || h.root.loc.offset_bits != 0)
    return f;
  if (v.type->kind != TypeKind::kVariant || v.children.size() != 2 || v.ref.scope != id.loc.scope ||
      v.ref.slot != id.loc.slot || v.ref.offset_bits != id.loc.offset_bits)
    return f;
  if (v.variant_slot_end - v.variant_slot_begin != 2) return f;
  auto option = [&](const PlanNode& o, HeaderFastPath::Option* out, bool extended) {
    if (!o.owns_anchor || !o.fixed_size || o.type->kind != TypeKind::kStruct) return false;
    int ranges = 0;
    for (const auto& m : id.type->mappings) {
      if (m.label != o.raw_name) continue;
      out->lo = m.lo;
      out->hi = m.hi;
      ++ranges;
    }
    if (ranges != 1) return false;
    out->slot = o.loc.slot;
    out->align = o.align_bits;
    out->size = o.size_bits;
    const size_t want = extended ? 2 : 1;
    if (o.children.size() != want) return false;
    for (const auto& c : o.children) {
      if (c.type->kind != TypeKind::kInteger || c.loc.slot != o.loc.slot) return false;
      if (c.raw_name == "timestamp") {
        out->ts = c.scalar;
        out->ts_off = c.loc.offset_bits - o.loc.offset_bits;
      } else if (c.raw_name == "id" && extended) {
        out->has_id = true;
        out->id = c.scalar;
        out->id_off = c.loc.offset_bits - o.loc.offset_bits;
      } else {
        return false;
      }
    }
    return out->ts.size_bits > 0 && (!extended || out->has_id);
  };
  const bool c_first = v.children[0].raw_name == "compact";
  const PlanNode& c = v.children[c_first ? 0 : 1];
  const PlanNode& e = v.children[c_first ? 1 : 0];
  if (c.raw_name != "compact" || e.raw_name != "extended") return f;
  if (!option(c, &f.compact, false) || !option(e, &f.extended, true)) return f;
  if (id.scalar.size_bits > 16 || id.scalar.is_signed) return f;
  f.root_align = h.root.align_bits;
  f.id = id.scalar;
  f.id_off = id.loc.offset_bits;
  f.enabled = true;
  // The compact option starts right after the id, aligned; a window is valid when it does
  // not depend on where the header starts (the option's alignment divides the root's).
  const uint32_t compact_start = static_cast<uint32_t>(
      (f.id_off + f.id.size_bits + f.compact.align - 1) / f.compact.align * f.compact.align);
  const uint32_t ts_begin = compact_start + f.compact.ts_off;
  if (!f.id.big_endian && !f.compact.ts.big_endian && f.root_align >= 8 &&
      f.compact.align <= f.root_align && ts_begin + f.compact.ts.size_bits <= 64 &&
      f.compact.ts.size_bits < 64) {
    f.one_window = true;
    f.id_mask = (uint64_t{1} << f.id.size_bits) - 1;
    f.ts_mask = (uint64_t{1} << f.compact.ts.size_bits) - 1;
    f.ts_shift = ts_begin;
  }
  const auto& x = f.extended;
  f.extended_plain = x.align >= 8 && x.align <= f.root_align && !x.id.big_endian &&
                     !x.ts.big_endian && x.id.size_bits == 32 && x.ts.size_bits == 64 &&
                     x.id_off % 8 == 0 && x.ts_off % 8 == 0 &&
                     // The cursor loads the id as 8 bytes: they must lie in the option
                     // (an id after the timestamp would take bytes past the header).
                     uint64_t{x.id_off} + 64 <= x.size && uint64_t{x.ts_off} + 64 <= x.size;
  return f;
}

// Recognizes a plain fixed header (see PlainHeader): only integer fields, one named `id`,
// and one that updates the clock (the generic decoder's rule: mapped to a clock or named
// `timestamp`) of 64 bits.
PlainHeader RecognizePlainHeader(const ScopePlan& h) {
  PlainHeader p;
  // A fixed layout but for the clock update: mark the start, update the clock, end at a
  // constant offset. (ScopePlan::fixed is false for it: the clock op is more than a walk.)
  const auto& ops = h.ops;
  if (!h.present || h.num_slots != 1 || h.root.loc.slot != 0 || h.root.loc.offset_bits != 0 ||
      ops.size() != 4 || ops[0].code != OpCode::kMark || ops[0].slot != 0 ||
      ops[0].align_bits < 8 || ops[1].code != OpCode::kClock || ops[2].code != OpCode::kSync ||
      ops[2].slot != 0 || ops[2].offset_bits == 0 || ops[3].code != OpCode::kEnd)
    return p;
  const uint64_t size_bits = ops[2].offset_bits;
  const PlanNode* id = nullptr;
  const PlanNode* ts = nullptr;
  for (const auto& c : h.root.children) {
    if (c.type->kind != TypeKind::kInteger && c.type->kind != TypeKind::kEnum) return p;
    if (c.loc.slot != 0) return p;
    if (c.raw_name == "id") {
      if (id) return p;
      id = &c;
    }
    if (!c.type->mapped_clock.empty() || c.raw_name == "timestamp") {
      if (ts) return p;
      ts = &c;
    }
  }
  if (!id || !ts || id == ts || ops[1].ref.slot != 0 ||
      ops[1].ref.offset_bits != ts->loc.offset_bits)
    return p;
  // Byte-aligned little-endian, with 8 bytes to load from each field's start.
  const auto loadable = [&](const PlanNode& n) {
    return !n.scalar.big_endian && n.loc.offset_bits % 8 == 0 &&
           uint64_t{n.loc.offset_bits} + 64 <= size_bits;
  };
  if (!loadable(*id) || !loadable(*ts) || ts->scalar.size_bits != 64) return p;
  p.root_align = ops[0].align_bits;
  p.size_bits = size_bits;
  p.id_off = id->loc.offset_bits;
  p.ts_off = ts->loc.offset_bits;
  p.id_bits = id->scalar.size_bits;
  p.enabled = true;
  return p;
}

}  // namespace

const char* ScopeName(Scope s) {
  static const char* kNames[] = {"trace.packet.header", "stream.packet.context",
                                 "stream.event.header", "stream.event.context",
                                 "event.context",       "event.fields"};
  return kNames[static_cast<int>(s)];
}

int EventPlan::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

const StreamPlan* TracePlan::FindStream(uint64_t id) const {
  for (const auto& s : streams)
    if (s->cls->id == id) return s.get();
  return nullptr;
}

StatusOr<std::unique_ptr<TracePlan>> CompileTracePlan(const TraceClass& trace) {
  auto plan = std::make_unique<TracePlan>();
  plan->trace = &trace;
  const PlanNode* roots[kNumScopes] = {};
  auto compile = [&](Scope scope, ScopePlan* sp, const TypePtr& type,
                     const std::string& what) -> Status {
    ScopeCompiler c(scope, sp, roots);
    Status s = c.Compile(type);
    if (!s.ok())
      return std::move(s).WithContext(
          fmt::format("Cannot compile {} of {}", ScopeName(scope), what));
    roots[static_cast<int>(scope)] = sp->present ? &sp->root : nullptr;
    return Status::Ok();
  };
  RETURN_IF_ERROR(
      compile(Scope::kPacketHeader, &plan->packet_header, trace.packet_header, "the trace"));
  auto& hk = plan->header_known;
  hk.magic = Child(plan->packet_header, "magic");
  hk.uuid = Child(plan->packet_header, "uuid");
  hk.stream_id = Child(plan->packet_header, "stream_id");
  hk.stream_instance_id = Child(plan->packet_header, "stream_instance_id");

  for (const auto& sc : trace.streams) {
    auto sp = std::make_unique<StreamPlan>();
    sp->cls = &sc;
    const std::string what = fmt::format("stream class {}", sc.id);
    for (int s = 1; s < kNumScopes; ++s) roots[s] = nullptr;
    RETURN_IF_ERROR(compile(Scope::kPacketContext, &sp->packet_context, sc.packet_context, what));
    RETURN_IF_ERROR(compile(Scope::kEventHeader, &sp->event_header, sc.event_header, what));
    RETURN_IF_ERROR(
        compile(Scope::kStreamEventContext, &sp->event_context, sc.event_context, what));
    auto& k = sp->known;
    k.content_size = Child(sp->packet_context, "content_size");
    k.packet_size = Child(sp->packet_context, "packet_size");
    k.timestamp_begin = Child(sp->packet_context, "timestamp_begin");
    k.timestamp_end = Child(sp->packet_context, "timestamp_end");
    k.events_discarded = Child(sp->packet_context, "events_discarded");
    k.packet_seq_num = Child(sp->packet_context, "packet_seq_num");
    k.cpu_id = Child(sp->packet_context, "cpu_id");
    if (sp->event_header.present) CollectIds(sp->event_header.root, &k.header_ids);
    sp->header_fast = RecognizeLttngHeader(sp->event_header);
    if (!sp->header_fast.enabled) sp->header_plain = RecognizePlainHeader(sp->event_header);
    sp->clock = FindMappedClock(trace, sc.event_header.get());
    if (!sp->clock) sp->clock = FindMappedClock(trace, sc.packet_context.get());
    if (!sp->clock && trace.clocks.size() == 1) sp->clock = &trace.clocks[0];

    uint64_t max_id = 0;
    for (const auto& ec : sc.events) {
      auto ep = std::make_unique<EventPlan>();
      ep->cls = &ec;
      ep->index = plan->num_event_classes++;
      const std::string ewhat = fmt::format("event '{}' (id {})", ec.name, ec.id);
      roots[static_cast<int>(Scope::kEventContext)] = nullptr;
      RETURN_IF_ERROR(compile(Scope::kEventContext, &ep->context, ec.context, ewhat));
      RETURN_IF_ERROR(compile(Scope::kEventPayload, &ep->payload, ec.fields, ewhat));
      if (sp->event_context.present) CollectFields(sp->event_context.root, "", &ep->fields);
      if (ep->context.present) CollectFields(ep->context.root, "", &ep->fields);
      if (ep->payload.present) CollectFields(ep->payload.root, "", &ep->fields);
      max_id = std::max(max_id, ec.id);
      sp->events.push_back(std::move(ep));
    }
    if (max_id > (uint64_t{1} << 24))
      return Unimplemented(
          fmt::format("event id {} in stream class {} (ids above 2^24)", max_id, sc.id));
    sp->by_id.assign(sc.events.empty() ? 0 : max_id + 1, nullptr);
    for (auto& ep : sp->events) sp->by_id[ep->cls->id] = ep.get();

    auto bump = [&](Scope s, const ScopePlan& p) {
      auto& m = sp->max_slots[static_cast<int>(s)];
      m = std::max(m, p.num_slots);
      sp->max_loop_depth = std::max(sp->max_loop_depth, p.max_loop_depth);
    };
    bump(Scope::kPacketHeader, plan->packet_header);
    bump(Scope::kPacketContext, sp->packet_context);
    bump(Scope::kEventHeader, sp->event_header);
    bump(Scope::kStreamEventContext, sp->event_context);
    for (auto& ep : sp->events) {
      bump(Scope::kEventContext, ep->context);
      bump(Scope::kEventPayload, ep->payload);
    }
    plan->streams.push_back(std::move(sp));
  }
  return plan;
}

}  // namespace causeway::ctf
