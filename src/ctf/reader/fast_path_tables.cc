#include "ctf/reader/fast_path_tables.h"

#include <algorithm>
#include <utility>

#include "ctf/reader/event_record.h"

namespace causeway::ctf {
namespace {

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

constexpr int kFirstEventScope = static_cast<int>(Scope::kEventHeader);

}  // namespace

FastPathTables::FastPathTables(const TracePlan& trace, const StreamPlan& stream)
    : stream_(&stream) {
  for (int s = kFirstEventScope; s < kNumScopes; ++s) {
    slot_offset_[s] = static_cast<uint32_t>(event_slots_size_);
    scope_slots_[s] = std::max<uint32_t>(stream.max_slots[s], kMinSlotArray);
    event_slots_size_ += scope_slots_[s];
  }
  PrepareHeader();
  PrepareEvents();
  PrepareStaticLayouts(trace.num_event_classes);
  PrepareRunTables();
}

void FastPathTables::PrepareHeader() {
  const StreamPlan* sp = stream_;
  // The header shortcut needs the one-window form: the option starts then sit at constant
  // offsets from the root-aligned header start (their alignment divides the root's).
  const HeaderFastPath& f = sp->header_fast;
  LttngHeader& h = header_;
  // Compact ids past the last declared one are left to the generic path (which reports
  // them), so that the cursor indexes the table by a compact id without a bounds check.
  const uint64_t c_lo = static_cast<uint64_t>(f.compact.lo);
  const uint64_t c_hi = std::min<uint64_t>(static_cast<uint64_t>(f.compact.hi),
                                           sp->by_id.empty() ? 0 : sp->by_id.size() - 1);
  const uint64_t x_lo = static_cast<uint64_t>(f.extended.lo);
  const uint64_t x_hi = static_cast<uint64_t>(f.extended.hi);
  if (f.enabled && f.one_window && f.compact.size > 0 && c_lo <= c_hi && !sp->by_id.empty()) {
    const uint64_t id_end = f.id_off + f.id.size_bits;
    h.root_mask = f.root_align - 1;
    h.id_mask = f.id_mask;
    h.ts_mask = f.ts_mask;
    h.ts_shift = f.ts_shift;
    h.compact_lo = c_lo;
    h.compact_span = c_hi - c_lo;
    h.compact_at = AlignUp(id_end, f.compact.align);
    h.compact_end = h.compact_at + f.compact.size;
    h.compact_slot = f.compact.slot;
    h.extended_slot = f.extended.slot;
    // Without a plain extended option its range matches no tag (ids have at most 16 bits).
    h.extended_lo = ~uint64_t{0};
    h.extended_span = 0;
    h.extended_plain = f.extended_plain && x_lo <= x_hi && f.extended.size > 0;
    if (h.extended_plain) {
      h.extended_lo = x_lo;
      h.extended_span = x_hi - x_lo;
      h.extended_at = AlignUp(id_end, f.extended.align);
      h.extended_end = h.extended_at + f.extended.size;
      h.extended_id_byte = (h.extended_at + f.extended.id_off) / 8;
      h.extended_ts_byte = (h.extended_at + f.extended.ts_off) / 8;
      h.extended_id_mask = 0xffffffff;  // extended_plain: a 32-bit id, then the timestamp
    }
    h.enabled = true;
  } else if (const PlainHeader& p = sp->header_plain; p.enabled && !sp->by_id.empty()) {
    h.root_mask = p.root_align - 1;
    h.id_mask = 0;     // the tag is always 0...
    h.compact_lo = 1;  // ...which the compact range does not hold
    h.compact_span = 0;
    h.compact_at = 0;
    h.compact_end = p.size_bits;
    h.compact_slot = 1;
    h.extended_slot = 0;
    h.extended_lo = 0;  // and the extended range does
    h.extended_span = 0;
    h.extended_plain = true;
    h.extended_at = 0;
    h.extended_end = p.size_bits;
    h.extended_id_byte = p.id_off / 8;
    h.extended_ts_byte = p.ts_off / 8;
    h.extended_id_mask = p.id_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << p.id_bits) - 1;
    h.plain = true;
    h.enabled = true;
  }
  if (h.enabled) {
    end_align_ = std::min<uint64_t>(h.root_mask + 1, h.compact_end & -h.compact_end);
    if (h.extended_plain) end_align_ = std::min(end_align_, h.extended_end & -h.extended_end);
  }
}

void FastPathTables::PrepareEvents() {
  const StreamPlan* sp = stream_;
  events_.assign(sp->by_id.size(), FastEvent{});
  for (size_t id = 0; id < sp->by_id.size(); ++id) {
    const EventPlan* ep = sp->by_id[id];
    if (!ep) continue;
    FastEvent& fe = events_[id];
    fe.plan = ep;
    fe.plan_index = ep->index;
    const std::pair<const ScopePlan*, Scope> body[] = {
        {&sp->event_context, Scope::kStreamEventContext},
        {&ep->context, Scope::kEventContext},
        {&ep->payload, Scope::kEventPayload},
    };
    bool fixed = true, aligned = false;
    for (const auto& [plan, scope] : body) {
      if (!plan->present) continue;
      if (!plan->fixed) {
        fixed = false;
        break;
      }
      aligned |= plan->fixed_align_bits > end_align_;
      fe.parts[fe.num_parts++] = {slot_offset(scope), uint64_t{plan->fixed_align_bits} - 1,
                                  plan->fixed_bits};
    }
    if (!fixed || aligned) {
      // Steps when every scope is fixed or made of fixed runs and strings, else the ops.
      fe.num_parts = 0;
      fe.body = FastEvent::kWalk;
      const size_t first = steps_.size();
      bool simple = true;
      for (const auto& [plan, scope] : body) {
        if (plan->present) simple = simple && AppendSteps(*plan, slot_offset(scope), &steps_);
      }
      if (simple) {
        fe.body = FastEvent::kSteps;
        fe.first_step = static_cast<uint32_t>(first);
        fe.num_steps = static_cast<uint32_t>(steps_.size() - first);
        if (header_.enabled) NoteTrailingString(&fe, end_align_);
      } else {
        steps_.resize(first);
      }
    } else {
      // From a position aligned to end_align_, aligning to a divisor of it is static.
      uint64_t rel = 0;
      for (unsigned i = 0; i < fe.num_parts; ++i) {
        FastEvent::Part& part = fe.parts[i];
        const uint64_t at = AlignUp(rel, part.align_mask + 1);
        rel = at + part.bits;
        part.bits = at;
        part.align_mask = 0;
      }
      fe.body = FastEvent::kStatic;
      fe.body_bits = rel;
    }
  }
}

bool FastPathTables::AppendSteps(const ScopePlan& plan, uint32_t first_slot,
                                 std::vector<BodyStep>* steps) {
  if (plan.fixed) {
    steps->push_back({first_slot, uint64_t{plan.fixed_align_bits} - 1, plan.fixed_bits, false});
    return true;
  }
  // The compiler emits, per run of fields at constant offsets from one another: a mark of a
  // new slot, then (before a string or at the end) a sync to that slot plus the run's size.
  BodyStep* open = nullptr;  // the step of the last mark, until its sync
  bool synced = false;
  for (const Op& op : plan.ops) {
    switch (op.code) {
      case OpCode::kMark:
        if (open && !synced) return false;  // a mark while the previous run's end is unknown
        steps->push_back({first_slot + op.slot, uint64_t{op.align_bits} - 1, 0, false});
        open = &steps->back();
        synced = false;
        break;
      case OpCode::kSync:
        if (!open || synced || open->slot != first_slot + op.slot) return false;
        open->bits = op.offset_bits;
        synced = true;
        break;
      case OpCode::kString:
        if (!open || !synced || open->string) return false;
        open->string = true;
        break;
      case OpCode::kEnd:
        return open && synced;
      default:
        return false;
    }
  }
  return false;
}

void FastPathTables::NoteTrailingString(FastEvent* fe, uint64_t end_align) const {
  // From a header end aligned to end_align, a step aligned to a divisor of it lands at a
  // constant offset, as in a kStatic body. The string must be the last step and start on
  // a byte (the cursor's test), which needs a header end on a byte. Every step's slot is a
  // body scope's, which a StaticLayout holds.
  if (fe->num_steps == 0 || end_align < 8) return;
  const BodyStep* steps = steps_.data() + fe->first_step;
  uint64_t rel = 0;
  for (uint32_t i = 0; i < fe->num_steps; ++i) {
    const BodyStep& st = steps[i];
    if (st.align_mask + 1 > end_align || st.string != (i + 1 == fe->num_steps)) return;
    rel = AlignUp(rel, st.align_mask + 1) + st.bits;
  }
  if (rel & 7) return;
  fe->trailing_string = true;
  fe->body_bits = rel;
}

void FastPathTables::PrepareStaticLayouts(uint32_t num_event_classes) {
  const LttngHeader& h = header_;
  static_layouts_.assign(size_t{num_event_classes} * 2, StaticLayout{});
  // One slot array per static (class, option), laid out as the cursor's event slot array;
  // unused slots stay kAbsent.
  const size_t set_size = event_slots_size_;
  const int options = h.extended_plain ? 2 : 1;
  // A plain header has the extended option only: one set per class, not two.
  const int filled = h.plain ? 1 : options;
  // Field tables where every event starts on a byte.
  const bool place_fields = h.enabled && (h.root_mask & 7) == 7;
  size_t sets = 0, field_entries = 0;
  for (const FastEvent& fe : events_) {
    if (!fe.has_static_slots()) continue;
    ++sets;
    field_entries += (fe.plan->fields.size() + 1) * filled;
  }
  static_slots_.assign(h.enabled ? sets * filled * set_size : 0, kAbsent);
  uint64_t* next = static_slots_.data();
  static_fields_.assign(place_fields ? field_entries : 0, StaticField{});
  StaticField* next_fields = static_fields_.data();
  for (const FastEvent& fe : events_) {
    if (!fe.plan) continue;
    for (int option = 0; option < 2; ++option) {
      StaticLayout& l = static_layouts_[size_t{fe.plan->index} * 2 + option];
      l.plan = fe.plan;
      if (!h.enabled || !fe.has_static_slots() || option >= options || (h.plain && option == 0))
        continue;
      uint64_t* const set = next;
      next += set_size;
      for (int s = kFirstEventScope; s < kNumScopes; ++s)
        l.slots[s - kFirstEventScope] = set + slot_offset_[s];
      // As the cursor's static path writes them, less the header start.
      uint64_t* header = set + slot_offset(Scope::kEventHeader);
      header[0] = 0;
      header[h.compact_slot] = option == 0 ? h.compact_at : kAbsent;
      header[h.extended_slot] = option == 1 ? h.extended_at : kAbsent;
      const uint64_t body = option == 0 ? h.compact_end : h.extended_end;
      for (unsigned i = 0; i < fe.num_parts; ++i) set[fe.parts[i].slot] = body + fe.parts[i].bits;
      if (fe.trailing_string) {  // as the cursor's steps write them
        uint64_t rel = 0;
        const BodyStep* steps = steps_.data() + fe.first_step;
        for (uint32_t i = 0; i < fe.num_steps; ++i) {
          rel = AlignUp(rel, steps[i].align_mask + 1);
          set[steps[i].slot] = body + rel;
          rel += steps[i].bits;
        }
      }
      if (place_fields) {
        l.fields = next_fields;
        next_fields[0] = {.byte = static_cast<uint32_t>(fe.plan->fields.size() + 1), .shift = -1};
        for (size_t i = 0; i < fe.plan->fields.size(); ++i) {
          const PlanNode& n = *fe.plan->fields[i].node;
          const int s = static_cast<int>(n.loc.scope);
          const uint64_t anchor =
              s >= kFirstEventScope && s < kNumScopes && n.loc.slot < scope_slots_[s]
                  ? set[slot_offset_[s] + n.loc.slot]
                  : kAbsent;
          next_fields[i + 1] =
              StaticFieldOf(n, anchor == kAbsent ? kAbsent : anchor + n.loc.offset_bits);
        }
        next_fields += fe.plan->fields.size() + 1;
      }
    }
  }
}

void FastPathTables::PrepareRunTables() {
  const LttngHeader& h = header_;
  StaticRunTables& r = runs_;
  // The loop counts header starts in bytes: the root alignment must be whole bytes.
  if (!h.enabled || h.id_mask >= StaticRunTables::kMaxTags || (h.root_mask & 7) != 7) return;
  // An event of id `id` under a header that ends `header_bits` from its start.
  const auto set = [&](uint64_t id, uint64_t header_bits, uint64_t* end, uint64_t* step) {
    // Ids past the table are not declared: left to Next(), which reports them.
    if (id >= events_.size()) return;
    const FastEvent& fe = events_[id];
    const uint64_t end_bits = header_bits + fe.body_bits;  // for a string, where it starts
    // An event this large is left to Next(), which reports it or decodes it.
    if (!fe.has_static_slots() || end_bits > EventRecord::kMaxAt) return;
    *step = uint64_t{fe.plan_index} << 32;
    if (fe.trailing_string) {
      *end = StaticRunTables::kStringTag + end_bits;
      return;
    }
    *end = end_bits;
    *step |= AlignUp(end_bits, h.root_mask + 1) / 8;
  };
  r.end.assign(h.id_mask + 1, StaticRunTables::kNotInRun);
  r.step.assign(h.id_mask + 1, 0);
  for (uint64_t tag = 0; tag <= h.id_mask; ++tag) {
    // Tested in the cursor's order: the compact range first.
    if (tag - h.compact_lo <= h.compact_span) {
      set(tag, h.compact_end, &r.end[tag], &r.step[tag]);
    } else if (tag - h.extended_lo <= h.extended_span) {
      r.end[tag] = StaticRunTables::kExtendedTag;
    }
  }
  if (h.extended_plain) {
    r.ext_end.assign(events_.size(), StaticRunTables::kNotInRun);
    r.ext_step.assign(events_.size(), 0);
    for (uint64_t id = 0; id < events_.size(); ++id)
      set(id, h.extended_end, &r.ext_end[id], &r.ext_step[id]);
  }
  // LTTng's `event_header_compact`: a 5-bit id (31 for the extended option), a 27-bit
  // timestamp, byte-aligned; then the extended option, if any, a 32-bit id and a 64-bit
  // timestamp, byte-aligned.
  r.lttng_header =
      h.id_mask == 31 && h.ts_shift == 5 && h.ts_mask == (uint64_t{1} << 27) - 1 &&
      h.root_mask == 7 &&
      (!h.extended_plain || (h.extended_end == StaticRunTables::kLttngExtendedEnd &&
                             h.extended_id_byte == StaticRunTables::kLttngExtendedIdByte &&
                             h.extended_ts_byte == StaticRunTables::kLttngExtendedTsByte));
}

}  // namespace causeway::ctf
