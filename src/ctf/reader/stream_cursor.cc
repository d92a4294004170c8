#include "ctf/reader/stream_cursor.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace causeway::ctf {
namespace {

constexpr uint32_t kCtfMagic = 0xC1FC1FC1;

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

// CTF clock update: an N-bit field holds the low bits of the clock; a smaller value than
// the current low bits means the field wrapped once.
inline uint64_t UpdateClock(uint64_t clock, uint64_t value, unsigned bits) {
  if (bits >= 64) return value;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t next = (clock & ~mask) | value;
  if (value < (clock & mask)) next += uint64_t{1} << bits;
  return next;
}

}  // namespace

StreamCursor::StreamCursor(const Trace* trace, uint32_t trace_index, uint32_t stream_index,
                           uint32_t class_base, std::string path, const ClockTransform& transform)
    : class_base_(class_base), trace_(trace), file_(std::move(path)) {
  if (!transform.identity()) transform_.emplace(transform);
  stats_.path = file_.path();
  stats_.trace_index = trace_index;
  event_.trace = trace;
  event_.trace_index = trace_index;
  event_.stream_index = stream_index;
}

StreamCursor::~StreamCursor() = default;

Status StreamCursor::Open() {
  RETURN_IF_ERROR(file_.Open());
  stats_.file_bytes = file_.size();
  SizeHeaderSlots();
  return Status::Ok();
}

Status StreamCursor::OpenMemory(const uint8_t* data, uint64_t size) {
  file_.OpenMemory(data, size);
  stats_.file_bytes = size;
  SizeHeaderSlots();
  return Status::Ok();
}

void StreamCursor::SizeHeaderSlots() {
  // Size the packet-header slots now; the stream's own scopes are sized by StartPacket.
  SizePacketSlots(0, trace_->plan().packet_header.num_slots);
}

void StreamCursor::SizePacketSlots(int scope, size_t n) {
  slot_counts_[scope] = std::max<size_t>(n, 1);
  // Padded so that a copy of up to kMinSlotArray slots never reads past the end.
  packet_slots_[scope].assign(std::max(slot_counts_[scope], kMinSlotArray), kAbsent);
  event_.slots[scope] = slots_[scope] = packet_slots_[scope].data();
}

void StreamCursor::UseFastPathTables(const FastPathTables& tables) {
  const StreamPlan& sp = tables.stream();
  // The event scopes' arrays, each as padded as the packet scopes' (the tables' layout).
  event_slots_.assign(tables.event_slots_size(), kAbsent);
  for (int s = static_cast<int>(Scope::kEventHeader); s < kNumScopes; ++s) {
    slot_counts_[s] = std::max<size_t>(sp.max_slots[s], 1);
    event_.slots[s] = slots_[s] = event_slots_.data() + tables.slot_offset(static_cast<Scope>(s));
  }
  header_slots_ = slots_[static_cast<int>(Scope::kEventHeader)];
  lttng_ = tables.header();
  fast_events_ = tables.events().data();
  num_fast_events_ = tables.events().size();
  steps_ = tables.steps();
  static_runs_ = clock_is_ns_ ? tables.static_runs() : nullptr;
  static_layouts_ = tables.static_layouts().data();
  if (!file_.padded()) {
    // A field's 8-byte load at an event's start may pass the caller's bytes: no static
    // fields, the slot walk reads them.
    layouts_without_fields_ = tables.static_layouts();
    for (StaticLayout& l : layouts_without_fields_) l.fields = nullptr;
    static_layouts_ = layouts_without_fields_.data();
  }
}

bool StreamCursor::Fail(Status s) {
  status_ = std::move(s);
  in_packet_ = false;
  fast_end_ = 0;
  next_packet_ = file_.size();
  return false;
}

uint64_t StreamCursor::Read(const PlanNode* n) const {
  if (!n) return 0;
  const uint64_t pos = event_.Position(*n);
  if (pos == kAbsent || pos + n->scalar.size_bits > content_end_) return 0;
  return ReadRawBits(event_.data, event_.data_end, pos, n->scalar);
}

Status StreamCursor::LoadBytes(uint64_t offset, uint64_t size, uint64_t* held) {
  ChunkedStreamFile::Span bytes;
  RETURN_IF_ERROR(file_.Map(offset, size, &bytes));
  event_.data = data_ = bytes.data;
  event_.data_end = bytes.end;
  if (held) *held = static_cast<uint64_t>(bytes.end - bytes.data);
  return Status::Ok();
}

bool StreamCursor::Run(const ScopePlan& plan, Scope scope, uint64_t* pos) {
  uint64_t* slots = slots_[static_cast<int>(scope)];
  const Op* ops = plan.ops.data();
  const uint8_t* data = event_.data;
  const uint64_t end = content_end_;
  uint64_t p = *pos;
  uint32_t pc = 0;
  // Each loop's count is checked against the bits left, but elements may take no bits
  // (empty structs, empty sequences) and nested loops multiply: the scope gets this many
  // iterations in all, more than any data that fits could use.
  const uint64_t max_iterations = 2 * (end > p ? end - p : 0) + 65536;
  uint64_t iterations_left = max_iterations;
  auto read_ref = [&](const Op& op, uint64_t* out) -> bool {
    const uint64_t at = event_.Position(op.ref);
    if (at == kAbsent || at + op.ref_scalar.size_bits > end) return false;
    *out = ReadRawBits(data, event_.data_end, at, op.ref_scalar);
    return true;
  };
  // `past`: the bit the scope reached, or the end of the field that does not fit.
  auto overrun = [&](const char* what, uint64_t past) {
    return Error(DataLoss(fmt::format("{} extends past the packet content ({} > {} bits) in {}",
                                      what, past, end, ScopeName(scope))));
  };
  for (;;) {
    const Op& op = ops[pc++];
    switch (op.code) {
      case OpCode::kMark:
        p = AlignUp(p, op.align_bits);
        if (p > end) return overrun("alignment padding", p);
        slots[op.slot] = p;
        break;
      case OpCode::kSync:
        p = slots[op.slot] + op.offset_bits;
        if (p > end) return overrun("field", p);
        break;
      case OpCode::kString: {
        if (p & 7) return Error(DataLoss(fmt::format("string at bit {} is not byte aligned", p)));
        const uint8_t* s = data + (p >> 3);
        const uint64_t avail = (end - p) >> 3;
        const uint8_t* nul = FindNul(s, avail);
        if (!nul)
          return Error(
              DataLoss(fmt::format("unterminated string at bit {} in {}", p, ScopeName(scope))));
        p += static_cast<uint64_t>(nul - s + 1) * 8;
        break;
      }
      case OpCode::kSeqFixed: {
        uint64_t len;
        if (!read_ref(op, &len)) return Error(DataLoss("sequence length field is missing"));
        p = AlignUp(p, op.align_bits);
        if (p > end) return overrun("sequence", p);
        if (len && op.stride_bits && len > (end - p) / op.stride_bits)
          return Error(DataLoss(fmt::format(
              "sequence of {} elements of {} bits extends past the packet content (bit {} of {})",
              len, op.stride_bits, p, end)));
        if (!op.stride_bits && len > (end - p) + 4096)  // same bound as a kLoop count
          return Error(DataLoss(fmt::format(
              "sequence of {} empty elements cannot fit in the {} bits left", len, end - p)));
        p += len * op.stride_bits;
        break;
      }
      case OpCode::kLoop: {
        uint64_t count = op.count;
        if (op.count_from_ref && !read_ref(op, &count))
          return Error(DataLoss("sequence length field is missing"));
        if (count > (end - p) + 4096)
          return Error(DataLoss(
              fmt::format("array of {} elements cannot fit in the {} bits left", count, end - p)));
        if (count == 0) {
          pc = op.target;
          break;
        }
        loop_stack_[op.loop_index] = count;
        break;
      }
      case OpCode::kLoopEnd:
        if (--loop_stack_[op.loop_index] > 0) {
          if (--iterations_left == 0)
            return Error(DataLoss(fmt::format("array elements repeat more than {} times in {}",
                                              max_iterations, ScopeName(scope))));
          pc = op.target;
        }
        break;
      case OpCode::kVariant: {
        for (uint32_t s = op.slot_begin; s < op.slot_end; ++s) slots[s] = kAbsent;
        uint64_t raw;
        if (!read_ref(op, &raw)) return Error(DataLoss("variant tag field is missing"));
        const VariantRange* r = plan.ranges.data() + op.target;
        const VariantRange* r_end = r + op.num_ranges;
        const bool sign = op.ref_scalar.is_signed;
        const int64_t sv = sign ? SignExtend(raw, op.ref_scalar.size_bits) : 0;
        for (; r != r_end; ++r) {
          if (sign ? (sv >= r->lo && sv <= r->hi)
                   : (raw >= static_cast<uint64_t>(r->lo) && raw <= static_cast<uint64_t>(r->hi)))
            break;
        }
        if (r == r_end)
          return Error(DataLoss(fmt::format("variant tag value {} selects no option", raw)));
        pc = r->target;
        break;
      }
      case OpCode::kJump:
        pc = op.target;
        break;
      case OpCode::kClock: {
        uint64_t v;
        if (!read_ref(op, &v)) {
          const uint64_t at = event_.Position(op.ref);
          return overrun("timestamp", at == kAbsent ? p : at + op.ref_scalar.size_bits);
        }
        clock_ = UpdateClock(clock_, v, op.ref_scalar.size_bits);
        break;
      }
      case OpCode::kEnd:
        *pos = p;
        return true;
    }
  }
}

Status StreamCursor::DecodePacketHeaders(uint64_t window, uint64_t* pos,
                                         const StreamPlan** stream_plan) {
  content_end_ = window * 8;
  const TracePlan& tp = trace_->plan();
  if (tp.packet_header.present && !Run(tp.packet_header, Scope::kPacketHeader, pos)) return error_;
  const WellKnownFields& hk = tp.header_known;
  if (hk.magic) {
    const uint64_t magic = Read(hk.magic);
    if (magic != kCtfMagic)
      return DataLoss(
          fmt::format("bad packet magic 0x{:08X} (expected 0x{:08X})", magic, kCtfMagic));
  }
  const auto& uuid = trace_->trace_class().uuid;
  if (hk.uuid && uuid && hk.uuid->type->kind == TypeKind::kArray && hk.uuid->type->length == 16) {
    const uint64_t at = event_.Position(*hk.uuid);
    if (at != kAbsent && (at & 7) == 0 && std::memcmp(event_.data + at / 8, uuid->data(), 16) != 0)
      return DataLoss("packet uuid differs from the trace uuid in the metadata");
  }
  const StreamPlan* sp = nullptr;
  if (hk.stream_id) {
    const uint64_t id = Read(hk.stream_id);
    sp = tp.FindStream(id);
    if (!sp)
      return DataLoss(
          fmt::format("packet names stream class {}, which the metadata does not declare", id));
  } else if (tp.streams.size() == 1) {
    sp = tp.streams[0].get();
  } else {
    return DataLoss(
        "packet header has no stream_id but the metadata declares several stream classes");
  }
  if (stream_plan_ && sp != stream_plan_)
    return DataLoss(fmt::format("stream class changes from {} to {} within one stream file",
                                stream_plan_->cls->id, sp->cls->id));
  if (!stream_plan_) {
    stream_plan_ = sp;
    SizePacketSlots(static_cast<int>(Scope::kPacketContext),
                    sp->max_slots[static_cast<int>(Scope::kPacketContext)]);
    loop_stack_.assign(sp->max_loop_depth + 1, 0);
    stats_.stream_class_id = sp->cls->id;
    // The shortcut ns = cycles + offset holds for a 1 GHz clock and no transform.
    clock_is_ns_ = (!sp->clock || sp->clock->freq == 1'000'000'000) && !transform_;
    // The clock's origin must be a time: the shortcut above adds it to every timestamp.
    RETURN_IF_ERROR(trace_->CheckClockRange(sp->clock, 0, "the origin"));
    clock_offset_ns_ = trace_->CyclesToNs(sp->clock, 0);
    event_.stream_plan = sp;
    if (hk.stream_instance_id) stats_.stream_instance_id = Read(hk.stream_instance_id);
    UseFastPathTables(trace_->fast_path_tables(*sp));
  }
  if (sp->packet_context.present && !RunScope(sp->packet_context, Scope::kPacketContext, pos))
    return error_;
  *stream_plan = sp;
  return Status::Ok();
}

Status StreamCursor::StartPacket() {
  packet_offset_ = next_packet_;
  file_.ReleaseBehind(packet_offset_);
  const uint64_t remaining_bits = (file_.size() - packet_offset_) * 8;
  // The packet's size is in its context, so the header and context are decoded over the
  // bytes already in memory from the packet's start (a chunk is read when fewer than
  // kFirstHeaderWindow are); headers that do not fit (never LTTng's or perf's: they take a
  // few dozen bytes) are decoded again over a wider window, up to kMaxHeaderWindow. The
  // window's end stands for the packet's end meanwhile, so its errors name the same limit.
  const uint64_t max_window = std::min(remaining_bits / 8, kMaxHeaderWindow);
  uint64_t want = std::min(max_window, kFirstHeaderWindow);
  uint64_t pos;
  const StreamPlan* sp = nullptr;
  for (;;) {
    uint64_t window;
    RETURN_IF_ERROR(LoadBytes(packet_offset_, want, &window));
    window = std::min(window, max_window);
    pos = 0;
    Status s = DecodePacketHeaders(window, &pos, &sp);
    if (s.ok()) break;
    if (window >= max_window) {
      // Cut by the cap rather than by the file's end (max_window is the smaller of the two):
      // say so, the bytes past it may be fine.
      if (max_window < remaining_bits / 8)
        return std::move(s).WithContext(fmt::format(
            "the packet header and context do not decode within the first {} MiB of the "
            "packet, the most this reader decodes them over",
            kMaxHeaderWindow >> 20));
      return s;
    }
    want = std::min(max_window, window * 8);
  }
  const WellKnownFields& k = sp->known;
  uint64_t packet_bits = k.packet_size ? Read(k.packet_size) : remaining_bits;
  uint64_t content_bits = k.content_size ? Read(k.content_size) : packet_bits;
  if (!k.packet_size && k.content_size) packet_bits = AlignUp(content_bits, 8);
  if (packet_bits == 0 || (packet_bits & 7))
    return DataLoss(
        fmt::format("packet_size {} bits is not a positive whole number of bytes", packet_bits));
  if (packet_bits > remaining_bits)
    return DataLoss(
        fmt::format("packet_size {} bits exceeds the {} bytes left in the file (truncated packet)",
                    packet_bits, remaining_bits / 8));
  if (content_bits > packet_bits)
    return DataLoss(
        fmt::format("content_size {} bits exceeds packet_size {} bits", content_bits, packet_bits));
  if (content_bits < pos)
    return DataLoss(
        fmt::format("content_size {} bits is smaller than the packet header and context ({} bits)",
                    content_bits, pos));
  if (!headers_only_) RETURN_IF_ERROR(LoadBytes(packet_offset_, packet_bits / 8));
  content_end_ = content_bits;
  next_packet_ = packet_offset_ + packet_bits / 8;
  ++stats_.packets;
  ++stats_changes_;  // and what the packet's context counts, below

  // A packet's bounds out of the range of timestamps mean a wrong clock description (its
  // events would wrap or pile up at the end of time): refused, naming the clock's fields.
  if (k.timestamp_begin) {
    clock_ = UpdateClock(clock_, Read(k.timestamp_begin), k.timestamp_begin->scalar.size_bits);
    RETURN_IF_ERROR(trace_->CheckClockRange(stream_plan_->clock, clock_, "timestamp_begin"));
  }
  if (k.timestamp_end)
    RETURN_IF_ERROR(
        trace_->CheckClockRange(stream_plan_->clock, Read(k.timestamp_end), "timestamp_end"));
  if (k.cpu_id) stats_.cpu = event_.cpu = static_cast<int64_t>(Read(k.cpu_id));
  const uint64_t packet_end_ts = k.timestamp_end ? ToNs(Read(k.timestamp_end)) : 0;
  if (k.events_discarded) {
    const uint64_t total = Read(k.events_discarded);
    const unsigned bits = k.events_discarded->scalar.size_bits;
    uint64_t delta = total - prev_discarded_;  // the counter may wrap at its size
    if (bits < 64) delta &= (uint64_t{1} << bits) - 1;
    if (delta) {
      pending_discarded_ = delta;
      event_.discarded_begin = prev_packet_end_ts_;  // 0 for the first packet: unknown
      event_.discarded_end = packet_end_ts;
      stats_.discarded_events += delta;
      if (!have_discarded_) stats_.discarded_before_first_packet += delta;
    }
    have_discarded_ = true;
    prev_discarded_ = total;
  }
  if (k.packet_seq_num) {
    const uint64_t seq = Read(k.packet_seq_num);
    if (have_seq_ && seq > prev_seq_ + 1) stats_.lost_packets += seq - prev_seq_ - 1;
    have_seq_ = true;
    prev_seq_ = seq;
  }
  prev_packet_end_ts_ = packet_end_ts;
  pos_ = pos;
  return Status::Ok();
}

Status StreamCursor::ReadPacketCounters(bool first_only, PacketCounters* first,
                                        PacketCounters* last) {
  headers_only_ = true;  // for good: this cursor reads no event after
  file_.ReadOnlyWhatIsAsked();
  for (uint64_t n = 0; next_packet_ < file_.size() && !(first_only && n == 1); ++n) {
    RETURN_IF_ERROR(StartPacket());
    const WellKnownFields& k = stream_plan_->known;
    PacketCounters c;
    c.class_id = stats_.stream_class_id;
    c.has_instance_id = trace_->plan().header_known.stream_instance_id != nullptr;
    c.instance_id = stats_.stream_instance_id;
    c.has_discarded = k.events_discarded != nullptr;
    c.discarded = prev_discarded_;
    c.has_seq = k.packet_seq_num != nullptr;
    c.seq = prev_seq_;
    c.begin_ns = k.timestamp_begin ? ToNs(Read(k.timestamp_begin)) : 0;
    c.end_ns = prev_packet_end_ts_;
    if (n == 0) *first = c;
    if (last) *last = c;
  }
  return Status::Ok();
}

void StreamCursor::ContinueFrom(const PacketCounters& last) {
  if (last.has_discarded) {
    have_discarded_ = true;
    prev_discarded_ = last.discarded;
  }
  if (last.has_seq) {
    have_seq_ = true;
    prev_seq_ = last.seq;
  }
  prev_packet_end_ts_ = last.end_ns;
  min_ts_ = last.end_ns;
}

uint64_t StreamCursor::ToNs(uint64_t cycles) {
  const uint64_t ns = trace_->CyclesToNs(stream_plan_->clock, cycles);
  if (!transform_) return ns;
  // The transforms work on int64 ns: a later time (after 2262) saturates, as does a result
  // before the origin, rather than wrapping.
  const int64_t t = transform_->Apply(static_cast<int64_t>(std::min<uint64_t>(ns, INT64_MAX)));
  return t < 0 ? 0 : static_cast<uint64_t>(t);
}

bool StreamCursor::FastHeader(uint64_t* pos, uint64_t* id) {
  const HeaderFastPath& f = stream_plan_->header_fast;
  const uint64_t base = AlignUp(*pos, f.root_align);
  if (f.one_window && base + 64 <= content_end_) {
    uint64_t w;
    std::memcpy(&w, event_.data + base / 8, 8);
    const uint64_t tag = w & f.id_mask;
    if (tag >= static_cast<uint64_t>(f.compact.lo) && tag <= static_cast<uint64_t>(f.compact.hi)) {
      const uint64_t at = AlignUp(base + f.id_off + f.id.size_bits, f.compact.align);
      uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)];
      slots[0] = base;
      slots[f.compact.slot] = at;
      slots[f.extended.slot] = kAbsent;
      *id = tag;
      clock_ = UpdateClock(clock_, (w >> f.ts_shift) & f.ts_mask, f.compact.ts.size_bits);
      *pos = at + f.compact.size;
      return true;
    }
    if (f.extended_plain && tag >= static_cast<uint64_t>(f.extended.lo) &&
        tag <= static_cast<uint64_t>(f.extended.hi)) {
      const uint64_t at = AlignUp(base + f.id_off + f.id.size_bits, f.extended.align);
      if (at + f.extended.size > content_end_) return false;
      uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)];
      slots[0] = base;
      slots[f.compact.slot] = kAbsent;
      slots[f.extended.slot] = at;
      uint32_t ext_id;
      std::memcpy(&ext_id, event_.data + (at + f.extended.id_off) / 8, 4);
      std::memcpy(&clock_, event_.data + (at + f.extended.ts_off) / 8, 8);
      *id = ext_id;
      *pos = at + f.extended.size;
      return true;
    }
  }
  const uint64_t id_end = base + f.id_off + f.id.size_bits;
  if (id_end > content_end_) return false;
  const uint8_t* data = event_.data;
  const uint64_t tag = ReadRawBits(data, event_.data_end, base + f.id_off, f.id);
  const bool ext =
      tag >= static_cast<uint64_t>(f.extended.lo) && tag <= static_cast<uint64_t>(f.extended.hi);
  if (!ext &&
      !(tag >= static_cast<uint64_t>(f.compact.lo) && tag <= static_cast<uint64_t>(f.compact.hi)))
    return false;
  const HeaderFastPath::Option& o = ext ? f.extended : f.compact;
  const uint64_t at = AlignUp(id_end, o.align);
  if (at + o.size > content_end_) return false;
  uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)];
  slots[0] = base;
  slots[f.compact.slot] = ext ? kAbsent : at;
  slots[f.extended.slot] = ext ? at : kAbsent;
  *id = ext ? ReadRawBits(data, event_.data_end, at + o.id_off, o.id) : tag;
  clock_ =
      UpdateClock(clock_, ReadRawBits(data, event_.data_end, at + o.ts_off, o.ts), o.ts.size_bits);
  *pos = at + o.size;
  return true;
}

bool StreamCursor::DecodeEvent() {
  // Everything is read into locals before the first store: the slot stores are uint64_t
  // stores, which the compiler must assume may alias the cursor's members.
  const LttngHeader& h = lttng_;
  if (!h.enabled) return DecodeEventGeneric();
  const uint64_t end = content_end_;
  const uint64_t old_clock = clock_;
  // The generic paths start over from pos_ and clock_; nothing below changes them first.
  const uint64_t base = (pos_ + h.root_mask) & ~h.root_mask;
  if (base + 64 > end) return DecodeEventGeneric();  // near the packet end: no full window
  const uint8_t* data = data_;
  uint64_t w;
  std::memcpy(&w, data + base / 8, 8);
  const uint64_t tag = w & h.id_mask;
  // Compact or extended is close to a coin toss in a kernel trace (ids past 30 take the
  // extended header), yet the branch beats selecting between both options decoded: the
  // predictor guesses it well, and a select would put the extended id's load on the path
  // to the next event.
  uint64_t id, pos, clock, compact_at, extended_at;
  if (tag - h.compact_lo <= h.compact_span) [[likely]] {
    id = tag;
    pos = base + h.compact_end;
    const uint64_t v = (w >> h.ts_shift) & h.ts_mask;
    // UpdateClock for a field of fewer than 64 bits: a smaller value means it wrapped.
    clock = (old_clock & ~h.ts_mask) | v;
    if (v < (old_clock & h.ts_mask)) clock += h.ts_mask + 1;
    compact_at = base + h.compact_at;
    extended_at = kAbsent;
  } else if (tag - h.extended_lo <= h.extended_span) {
    pos = base + h.extended_end;
    if (pos > end) return DecodeEventGeneric();
    std::memcpy(&id, data + base / 8 + h.extended_id_byte, 8);
    std::memcpy(&clock, data + base / 8 + h.extended_ts_byte, 8);
    id &= h.extended_id_mask;
    if (id >= num_fast_events_) return DecodeEventGeneric();
    compact_at = kAbsent;
    extended_at = base + h.extended_at;
  } else {
    return DecodeEventGeneric();
  }
  // Compact ids are below the table's size (FastPathTables bounds compact_span). An
  // undeclared id has no plan and a kWalk body.
  const FastEvent& fe = fast_events_[id];
  const EventPlan* ep = fe.plan;
  uint64_t* hs = header_slots_;
  const uint16_t compact_slot = h.compact_slot, extended_slot = h.extended_slot;
  if (fe.body != FastEvent::kStatic) [[unlikely]] {
    hs[0] = base;
    hs[compact_slot] = compact_at;
    hs[extended_slot] = extended_at;
    return DecodeBody(fe, pos, clock);
  }
  const uint32_t plan_index = fe.plan_index;
  const uint64_t body = pos;
  pos += fe.body_bits;
  if (pos > end) return DecodeEventGeneric();  // reports the overrun
  const unsigned n = fe.num_parts;
  hs[0] = base;
  hs[compact_slot] = compact_at;
  hs[extended_slot] = extended_at;
  // At most three parts (stream event context, event context, payload): unrolled, the
  // stores cost no loop counter or branch per part.
  const FastEvent::Part* parts = fe.parts;
  if (n == 1) [[likely]] {  // a payload alone, the usual kernel event
    hs[parts[0].slot] = body + parts[0].bits;
  } else {
    switch (n) {
      case 3:
        hs[parts[2].slot] = body + parts[2].bits;
        [[fallthrough]];
      case 2:
        hs[parts[1].slot] = body + parts[1].bits;
        hs[parts[0].slot] = body + parts[0].bits;
        break;
      default:
        break;
    }
  }
  // The header is never empty here (compact.size > 0, extended_end > extended_at), so the
  // event made progress.
  static_start_ = base;  // NextNotingLayout: this is the class's StaticLayout
  Finish(ep, plan_index, pos, clock);
  return true;
}

uint32_t StreamCursor::NextStaticRun(EventRecord* out, uint32_t max) {
  // Only after an event decoded in this packet, as Finish left it: the last timestamp is
  // the clock value plus the offset (nothing clamped; see StaticRunLoop).
  if (pos_ >= fast_end_ || !static_runs_ || content_end_ < 64 ||
      clock_ > UINT64_MAX - clock_offset_ns_ || last_ts_ != clock_ + clock_offset_ns_)
    return 0;
  return static_runs_->lttng_header ? StaticRunLoop<true>(out, max)
                                    : StaticRunLoop<false>(out, max);
}

template <bool kLttngHeader>
uint32_t StreamCursor::StaticRunLoop(EventRecord* out, uint32_t max) {
  // The same tests as DecodeEvent's static path, on locals, so that the records are the
  // only stores. Out of line: called once per run, it gets the registers to itself.
  const LttngHeader& h = lttng_;
  const uint64_t end = content_end_;
  // The last header start, in bytes: 8 bytes of header must be there to read (as in
  // DecodeEvent), and the start must fit a record.
  const uint64_t limit = std::min<uint64_t>(end - 64, EventRecord::kMaxAt) / 8;
  const uint8_t* const data = data_;
  const StaticRunTables& r = *static_runs_;
  const uint64_t* const run_end = r.end.data();
  const uint64_t* const run_step = r.step.data();
  const uint64_t* const ext_end = r.ext_end.data();
  const uint64_t* const ext_step = r.ext_step.data();
  const uint64_t num_ext = r.ext_end.size();
  const uint64_t offset = clock_offset_ns_;
  const uint64_t max_ts = max_ts_;
  const uint64_t root_mask = kLttngHeader ? 7 : h.root_mask;
  const uint64_t id_mask = kLttngHeader ? 31 : h.id_mask;
  const uint64_t ts_mask = kLttngHeader ? (uint64_t{1} << 27) - 1 : h.ts_mask;
  const uint32_t ts_shift = kLttngHeader ? 5 : h.ts_shift;
  const uint64_t extended_end = kLttngHeader ? StaticRunTables::kLttngExtendedEnd : h.extended_end;
  const uint64_t extended_id_byte =
      kLttngHeader ? StaticRunTables::kLttngExtendedIdByte : h.extended_id_byte;
  const uint64_t extended_ts_byte =
      kLttngHeader ? StaticRunTables::kLttngExtendedTsByte : h.extended_ts_byte;
  [[maybe_unused]] const uint64_t extended_id_mask = h.extended_id_mask;
  uint64_t pos = pos_, clock = clock_;
  // Header starts are aligned, so each one is the last plus the last event's size rounded
  // up, precomputed per tag: no alignment on the path from one header to the next.
  uint64_t start = ((pos + root_mask) & ~root_mask) / 8;  // bytes
  EventRecord* o = out;
  EventRecord* const out_end = out + max;
  for (; o != out_end && start <= limit; ++o) {
    uint64_t w;
    std::memcpy(&w, data + start, 8);
    const uint64_t tag = w & id_mask;
    const uint64_t start_bits = start * 8;
    // The event's entries in the run tables (end, step, or their extended
    // twins), its clock value and header option.
    uint64_t end_bits = run_end[tag], step, c;
    uint32_t option;
    if (end_bits != StaticRunTables::kExtendedTag) [[likely]] {
      step = run_step[tag];
      // The clock's low bits are the field; the field wrapped when it is below them. As a
      // difference modulo the field's range: 3 operations, no select.
      c = clock + ((((w >> ts_shift) & ts_mask) - clock) & ts_mask);
      option = 0;
    } else {
      if (start_bits + extended_end > end) break;
      uint64_t id;
      if constexpr (kLttngHeader) {
        uint32_t id32;
        std::memcpy(&id32, data + start + extended_id_byte, 4);
        id = id32;
      } else {
        std::memcpy(&id, data + start + extended_id_byte, 8);
        id &= extended_id_mask;
      }
      std::memcpy(&c, data + start + extended_ts_byte, 8);
      if (id >= num_ext) break;
      end_bits = ext_end[id];
      step = ext_step[id];
      option = 1;
    }
    uint64_t event_end, next_start;
    if (end_bits < StaticRunTables::kStringTag) [[likely]] {  // a static body
      event_end = start_bits + end_bits;
      next_start = start + static_cast<uint32_t>(step);
    } else if (end_bits < StaticRunTables::kNotInRun) {  // a body that a string ends
      // As RunSteps: the string starts before the content's end and ends within it.
      const uint64_t string_at = start_bits + (end_bits - StaticRunTables::kStringTag);
      if (string_at >= end) break;
      const uint8_t* str = data + string_at / 8;
      const uint8_t* nul = FindNul(str, (end - string_at) >> 3);
      if (!nul) break;
      event_end = string_at + static_cast<uint64_t>(nul - str + 1) * 8;
      next_start = ((event_end + root_mask) & ~root_mask) / 8;
    } else {
      break;  // kNotInRun
    }
    // The last timestamp is clock + offset (as NextStaticRun checks before the loop): an
    // earlier one, which Next() would clamp, ends the run. The compact clock can be
    // earlier too, when adding the field's difference passes 2^64 (a corrupt stream, found
    // by fuzz/merge_fuzzer).
    // A clock whose sum with the offset would pass 2^64 is left to Finish, which saturates.
    if (c > UINT64_MAX - offset) break;
    const uint64_t ts = c + offset;
    if (event_end > end || ts < clock + offset || ts > max_ts) break;
    *o = {ts, static_cast<uint32_t>(step >> 32),
          EventRecord::Where(option, static_cast<uint32_t>(start_bits))};
    pos = event_end;
    start = next_start;
    clock = c;
  }
  const auto n = static_cast<uint32_t>(o - out);
  pos_ = pos;
  clock_ = clock;
  last_ts_ = clock + offset;
  events_ += n;
  return n;
}

bool StreamCursor::RunSteps(const FastEvent& fe, uint64_t* pos) const {
  const BodyStep* s = steps_ + fe.first_step;
  const BodyStep* const last = s + fe.num_steps;
  uint64_t* const slots = header_slots_;
  const uint64_t end = content_end_;
  const uint8_t* data = data_;
  uint64_t p = *pos;
  for (; s != last; ++s) {
    p = (p + s->align_mask) & ~s->align_mask;
    slots[s->slot] = p;
    p += s->bits;
    if (p > end) return false;
    if (s->string) {
      if (p & 7) return false;
      const uint8_t* str = data + (p >> 3);
      const uint8_t* nul = FindNul(str, (end - p) >> 3);
      if (!nul) return false;
      p += static_cast<uint64_t>(nul - str + 1) * 8;
    }
  }
  *pos = p;
  return true;
}

bool StreamCursor::DecodeBody(const FastEvent& fe, uint64_t pos, uint64_t clock) {
  if (!fe.plan) return DecodeEventGeneric();  // an undeclared id: the generic path names it
  if (fe.body == FastEvent::kSteps) {
    // Any problem (overrun, unaligned or unterminated string): the generic path starts over
    // (rewriting every slot the steps stored) and names it.
    if (!RunSteps(fe, &pos)) return DecodeEventGeneric();
    // Its slots are its class's StaticLayout plus its header start (DecodeEvent wrote it).
    if (fe.trailing_string) static_start_ = header_slots_[0];
  } else {
    clock_ = clock;  // as the generic path leaves it if the walk fails
    if (!WalkBody(fe.plan, &pos)) return false;
  }
  Finish(fe.plan, fe.plan_index, pos, clock);
  return true;
}

bool StreamCursor::WalkBody(const EventPlan* ep, uint64_t* pos) {
  const StreamPlan* sp = stream_plan_;
  if (sp->event_context.present && !RunScope(sp->event_context, Scope::kStreamEventContext, pos))
    return false;
  if (ep->context.present && !RunScope(ep->context, Scope::kEventContext, pos)) return false;
  if (ep->payload.present && !RunScope(ep->payload, Scope::kEventPayload, pos)) return false;
  return true;
}

inline void StreamCursor::Finish(const EventPlan* ep, uint32_t plan_index, uint64_t pos,
                                 uint64_t clock) {
  pos_ = pos;
  clock_ = clock;
  // A clock near 2^64 plus the offset saturates rather than wraps to an early time.
  uint64_t ts = !clock_is_ns_                           ? ToNs(clock)
                : clock > UINT64_MAX - clock_offset_ns_ ? UINT64_MAX
                                                        : clock + clock_offset_ns_;
  if (ts < last_ts_ || ts < min_ts_ || ts > max_ts_) [[unlikely]] {
    // Never back in time, nor out of the chunk's bounds in a chain of chunks; monotonic
    // time wins over the bounds of a damaged chain.
    const uint64_t floor = std::max(last_ts_, min_ts_);
    ++stats_.clamped_events;
    ++stats_changes_;
    if (ts < floor) {
      stats_.max_backward_ns = std::max(stats_.max_backward_ns, floor - ts);
      ts = floor;
    } else {
      ts = std::max(max_ts_, floor);
    }
  }
  last_ts_ = ts;
  ++events_;
  event_.plan = ep;
  event_.class_index = class_base_ + plan_index;
  event_.cycles = clock;
  event_.timestamp = ts;
}

bool StreamCursor::DecodeEventGeneric() {
  const StreamPlan* sp = stream_plan_;
  uint64_t pos = pos_;
  uint64_t id = 0;
  if (!(sp->header_fast.enabled && FastHeader(&pos, &id)) && sp->event_header.present) {
    pos = pos_;
    if (!Run(sp->event_header, Scope::kEventHeader, &pos)) return false;
    for (const PlanNode* n : sp->known.header_ids) {
      if (event_.Position(*n) != kAbsent) id = Read(n);
    }
  }
  const EventPlan* ep = sp->FindEvent(id);
  if (!ep)
    return Error(
        DataLoss(fmt::format("event id {} is not declared in stream class {}", id, sp->cls->id)));
  if (sp->event_context.present && !RunScope(sp->event_context, Scope::kStreamEventContext, &pos))
    return false;
  if (ep->context.present && !RunScope(ep->context, Scope::kEventContext, &pos)) return false;
  if (ep->payload.present && !RunScope(ep->payload, Scope::kEventPayload, &pos)) return false;
  if (pos == pos_) return Error(DataLoss("event decodes to zero bits; cannot make progress"));
  Finish(ep, ep->index, pos, clock_);
  return true;
}

bool StreamCursor::FailDecode() {
  return Fail(std::move(error_).WithContext(
      fmt::format("Cannot decode event: file={}, packet offset={}, event offset={}", file_.path(),
                  packet_offset_, packet_offset_ + pos_ / 8)));
}

bool StreamCursor::NextSlow() {
  event_.kind = Event::Kind::kEvent;
  for (;;) {
    if (pending_discarded_) {
      event_.kind = Event::Kind::kDiscarded;
      event_.plan = nullptr;
      event_.discarded = pending_discarded_;
      pending_discarded_ = 0;
      // Placed at the previous event's time (or the packet's start before any event): the
      // stream stays ordered and no real event needs clamping because of it.
      event_.timestamp = have_ts_ ? last_ts_ : ToNs(clock_);
      returned_discarded_ = true;
      discarded_record_ts_ = event_.timestamp;
      fast_end_ = 0;  // the next call comes back here to reset the kind
      return true;
    }
    if (in_packet_ && pos_ < content_end_) {
      fast_end_ = content_end_;
      if (!DecodeEvent()) return FailDecode();
      // A stream's first event always comes through here, so the per-event path need not
      // check for it.
      if (!have_ts_) {
        stats_.first_ts = event_.timestamp;
        ++stats_changes_;
        have_ts_ = true;
      }
      return true;
    }
    in_packet_ = false;
    fast_end_ = 0;
    if (next_packet_ >= file_.size()) {
      // The end: the buffers go back now rather than when the reader closes, which holds
      // a cursor per stream file (a recording of many rotated chunks, many files). A
      // cursor whose bytes another thread may still read (LimitReleaseTo) keeps them.
      if (!file_.release_limited()) ReleaseBuffers();
      return false;
    }
    Status s = StartPacket();
    if (!s.ok())
      return Fail(std::move(s).WithContext(
          fmt::format("Cannot decode packet: file={}, offset={}", file_.path(), packet_offset_)));
    in_packet_ = true;
    event_.content_end_bits = content_end_;
  }
}

}  // namespace causeway::ctf
