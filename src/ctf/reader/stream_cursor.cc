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
    : trace_(trace), class_base_(class_base), file_(std::move(path)) {
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
  SizeSlots(0, trace_->plan().packet_header.num_slots);
  for (int s = 0; s < kNumScopes; ++s) event_.slots[s] = slots_[s].data();
}

void StreamCursor::SizeSlots(int scope, size_t n) {
  slot_counts_[scope] = std::max<size_t>(n, 1);
  // Padded so that a copy of up to kMinSlotArray slots never reads past the end.
  slots_[scope].assign(std::max(slot_counts_[scope], kMinSlotArray), kAbsent);
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
  uint64_t* slots = slots_[static_cast<int>(scope)].data();
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
    for (int s = 1; s < kNumScopes; ++s) {
      SizeSlots(s, sp->max_slots[s]);
      event_.slots[s] = slots_[s].data();
    }
    loop_stack_.assign(sp->max_loop_depth + 1, 0);
    stats_.stream_class_id = sp->cls->id;
    // The shortcut ns = cycles + offset holds for a 1 GHz clock and no transform.
    clock_is_ns_ = (!sp->clock || sp->clock->freq == 1'000'000'000) && !transform_;
    clock_offset_ns_ = trace_->CyclesToNs(sp->clock, 0);
    event_.stream_plan = sp;
    if (hk.stream_instance_id) stats_.stream_instance_id = Read(hk.stream_instance_id);
    PrepareFastPath();
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

  if (k.timestamp_begin)
    clock_ = UpdateClock(clock_, Read(k.timestamp_begin), k.timestamp_begin->scalar.size_bits);
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
}

uint64_t StreamCursor::ToNs(uint64_t cycles) {
  const uint64_t ns = trace_->CyclesToNs(stream_plan_->clock, cycles);
  if (!transform_) return ns;
  return static_cast<uint64_t>(transform_->Apply(static_cast<int64_t>(ns)));
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
      uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)].data();
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
      uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)].data();
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
  uint64_t* slots = slots_[static_cast<int>(Scope::kEventHeader)].data();
  slots[0] = base;
  slots[f.compact.slot] = ext ? kAbsent : at;
  slots[f.extended.slot] = ext ? at : kAbsent;
  *id = ext ? ReadRawBits(data, event_.data_end, at + o.id_off, o.id) : tag;
  clock_ =
      UpdateClock(clock_, ReadRawBits(data, event_.data_end, at + o.ts_off, o.ts), o.ts.size_bits);
  *pos = at + o.size;
  return true;
}

void StreamCursor::PrepareFastPath() {
  const StreamPlan* sp = stream_plan_;
  header_slots_ = slots_[static_cast<int>(Scope::kEventHeader)].data();

  // The header shortcut needs the one-window form: the option starts then sit at constant
  // offsets from the root-aligned header start (their alignment divides the root's).
  const HeaderFastPath& f = sp->header_fast;
  LttngHeader& h = lttng_;
  h = LttngHeader{};
  // Compact ids past the last declared one are left to the generic path (which reports
  // them), so that DecodeEvent indexes the table by a compact id without a bounds check.
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
  // Alignment every header end has (a power of two): the root alignment, lowered by the
  // header sizes.
  uint64_t end_align = 1;
  if (h.enabled) {
    end_align = std::min<uint64_t>(h.root_mask + 1, h.compact_end & -h.compact_end);
    if (h.extended_plain) end_align = std::min(end_align, h.extended_end & -h.extended_end);
  }

  fast_table_.assign(sp->by_id.size(), FastEvent{});
  steps_.clear();
  for (size_t id = 0; id < sp->by_id.size(); ++id) {
    const EventPlan* ep = sp->by_id[id];
    if (!ep) continue;
    FastEvent& fe = fast_table_[id];
    fe.plan = ep;
    fe.class_index = class_base_ + ep->index;
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
      aligned |= plan->fixed_align_bits > end_align;
      fe.parts[fe.num_parts++] = {slots_[static_cast<int>(scope)].data(),
                                  uint64_t{plan->fixed_align_bits} - 1, plan->fixed_bits};
    }
    if (!fixed || aligned) {
      // Steps when every scope is fixed or made of fixed runs and strings, else the ops.
      fe.num_parts = 0;
      fe.body = FastEvent::kWalk;
      const size_t first = steps_.size();
      bool simple = true;
      for (const auto& [plan, scope] : body) {
        if (plan->present)
          simple = simple && AppendSteps(*plan, slots_[static_cast<int>(scope)].data(), &steps_);
      }
      if (simple) {
        fe.body = FastEvent::kSteps;
        fe.first_step = static_cast<uint32_t>(first);
        fe.num_steps = static_cast<uint32_t>(steps_.size() - first);
        if (h.enabled) NoteTrailingString(&fe, end_align);
      } else {
        steps_.resize(first);
      }
    } else {
      // From a position aligned to end_align, aligning to a divisor of it is static.
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
  fast_events_ = fast_table_.data();
  num_fast_events_ = fast_table_.size();
  PrepareStaticLayouts();
  PrepareRunTable();
}

void StreamCursor::NoteTrailingString(FastEvent* fe, uint64_t end_align) const {
  // From a header end aligned to end_align, a step aligned to a divisor of it lands at a
  // constant offset, as in a kStatic body. The string must be the last step and start on
  // a byte (RunSteps' test), which needs a header end on a byte.
  if (fe->num_steps == 0 || end_align < 8) return;
  const Step* steps = steps_.data() + fe->first_step;
  uint64_t rel = 0;
  for (uint32_t i = 0; i < fe->num_steps; ++i) {
    const Step& st = steps[i];
    if (st.align_mask + 1 > end_align || st.string != (i + 1 == fe->num_steps)) return;
    // The slot must be one PrepareStaticLayouts can place: in a body scope's array, within
    // the length each StaticLayout array has.
    bool placed = false;
    for (int s = 3; s < kNumScopes; ++s) {
      const uint64_t* first = slots_[s].data();
      const size_t length = std::max<size_t>(stream_plan_->max_slots[s], kMinSlotArray);
      placed |= st.slot >= first && st.slot < first + std::min(length, slots_[s].size());
    }
    if (!placed) return;
    rel = AlignUp(rel, st.align_mask + 1) + st.bits;
  }
  if (rel & 7) return;
  fe->trailing_string = true;
  fe->body_bits = rel;
}

void StreamCursor::PrepareRunTable() {
  const LttngHeader& h = lttng_;
  run_end_.clear();
  run_step_.clear();
  run_ext_end_.clear();
  run_ext_step_.clear();
  // The loop counts header starts in bytes: the root alignment must be whole bytes.
  if (!h.enabled || !clock_is_ns_ || h.id_mask >= kMaxRunTags || (h.root_mask & 7) != 7) return;
  // An event of id `id` under a header that ends `header_bits` from its start.
  const auto set = [&](uint64_t id, uint64_t header_bits, uint64_t* end, uint64_t* step) {
    // Ids past the table are not declared: left to Next(), which reports them.
    if (id >= fast_table_.size()) return;
    const FastEvent& fe = fast_table_[id];
    const uint64_t end_bits = header_bits + fe.body_bits;  // for a string, where it starts
    // An event this large is left to Next(), which reports it or decodes it.
    if (!HasStaticSlots(fe) || end_bits > EventRecord::kMaxAt) return;
    *step = uint64_t{fe.class_index} << 32;
    if (fe.trailing_string) {
      *end = kStringTag + end_bits;
      return;
    }
    *end = end_bits;
    *step |= AlignUp(end_bits, h.root_mask + 1) / 8;
  };
  run_end_.assign(h.id_mask + 1, kNotInRun);
  run_step_.assign(h.id_mask + 1, 0);
  for (uint64_t tag = 0; tag <= h.id_mask; ++tag) {
    // Tested in DecodeEvent's order: the compact range first.
    if (tag - h.compact_lo <= h.compact_span) {
      set(tag, h.compact_end, &run_end_[tag], &run_step_[tag]);
    } else if (tag - h.extended_lo <= h.extended_span) {
      run_end_[tag] = kExtendedTag;
    }
  }
  if (h.extended_plain) {
    run_ext_end_.assign(fast_table_.size(), kNotInRun);
    run_ext_step_.assign(fast_table_.size(), 0);
    for (uint64_t id = 0; id < fast_table_.size(); ++id)
      set(id, h.extended_end, &run_ext_end_[id], &run_ext_step_[id]);
  }
  // LTTng's `event_header_compact`: a 5-bit id (31 for the extended option), a 27-bit
  // timestamp, byte-aligned; then the extended option, if any, a 32-bit id and a 64-bit
  // timestamp, byte-aligned.
  run_lttng_header_ = h.id_mask == 31 && h.ts_shift == 5 && h.ts_mask == (uint64_t{1} << 27) - 1 &&
                      h.root_mask == 7 &&
                      (!h.extended_plain || (h.extended_end == kLttngExtendedEnd &&
                                             h.extended_id_byte == kLttngExtendedIdByte &&
                                             h.extended_ts_byte == kLttngExtendedTsByte));
}

void StreamCursor::PrepareStaticLayouts() {
  const LttngHeader& h = lttng_;
  static_layouts_.assign(size_t{trace_->plan().num_event_classes} * 2, StaticLayout{});
  // One slot array per event scope and static (class, option), each at least
  // kMinSlotArray long as the cursor's own are; unused slots stay kAbsent.
  size_t scope_size[kNumScopes] = {};
  size_t set_size = 0;
  for (int s = 2; s < kNumScopes; ++s) {
    scope_size[s] = std::max<size_t>(stream_plan_->max_slots[s], kMinSlotArray);
    set_size += scope_size[s];
  }
  const int options = h.extended_plain ? 2 : 1;
  // A plain header has the extended option only: one set per class, not two.
  const int filled = h.plain ? 1 : options;
  // Field tables where an 8-byte load at any byte of a packet's content stays in the
  // buffer (ChunkedStreamFile::padded) and every event starts on a byte.
  const bool place_fields = h.enabled && file_.padded() && (h.root_mask & 7) == 7;
  size_t sets = 0, field_entries = 0;
  for (const FastEvent& fe : fast_table_) {
    if (!HasStaticSlots(fe)) continue;
    ++sets;
    field_entries += (fe.plan->fields.size() + 1) * filled;
  }
  static_slots_.assign(h.enabled ? sets * filled * set_size : 0, kAbsent);
  uint64_t* next = static_slots_.data();
  static_fields_.assign(place_fields ? field_entries : 0, StaticField{});
  StaticField* next_fields = static_fields_.data();
  for (const FastEvent& fe : fast_table_) {
    if (!fe.plan) continue;
    for (int option = 0; option < 2; ++option) {
      StaticLayout& l = static_layouts_[size_t{fe.plan->index} * 2 + option];
      l.plan = fe.plan;
      if (!h.enabled || !HasStaticSlots(fe) || option >= options || (h.plain && option == 0))
        continue;
      uint64_t* scope_slots[kNumScopes] = {};
      for (int s = 2; s < kNumScopes; ++s) {
        scope_slots[s] = next;
        l.slots[s - 2] = next;
        next += scope_size[s];
      }
      // As DecodeEvent's static path writes them, less the header start.
      uint64_t* header = scope_slots[static_cast<int>(Scope::kEventHeader)];
      header[0] = 0;
      header[h.compact_slot] = option == 0 ? h.compact_at : kAbsent;
      header[h.extended_slot] = option == 1 ? h.extended_at : kAbsent;
      const uint64_t body = option == 0 ? h.compact_end : h.extended_end;
      for (unsigned i = 0; i < fe.num_parts; ++i) {
        for (int s = 3; s < kNumScopes; ++s) {
          if (fe.parts[i].slot == slots_[s].data()) scope_slots[s][0] = body + fe.parts[i].bits;
        }
      }
      if (fe.trailing_string) {  // as RunSteps writes them (NoteTrailingString placed each)
        uint64_t rel = 0;
        const Step* steps = steps_.data() + fe.first_step;
        for (uint32_t i = 0; i < fe.num_steps; ++i) {
          rel = AlignUp(rel, steps[i].align_mask + 1);
          for (int s = 3; s < kNumScopes; ++s) {
            const uint64_t* first = slots_[s].data();
            if (steps[i].slot >= first && steps[i].slot < first + slots_[s].size())
              scope_slots[s][steps[i].slot - first] = body + rel;
          }
          rel += steps[i].bits;
        }
      }
      if (place_fields) {
        l.fields = next_fields;
        next_fields[0] = {.byte = static_cast<uint32_t>(fe.plan->fields.size() + 1), .shift = -1};
        for (size_t i = 0; i < fe.plan->fields.size(); ++i) {
          const PlanNode& n = *fe.plan->fields[i].node;
          const int s = static_cast<int>(n.loc.scope);
          const uint64_t anchor = s >= 2 && s < kNumScopes && n.loc.slot < scope_size[s]
                                      ? scope_slots[s][n.loc.slot]
                                      : kAbsent;
          next_fields[i + 1] =
              StaticFieldOf(n, anchor == kAbsent ? kAbsent : anchor + n.loc.offset_bits);
        }
        next_fields += fe.plan->fields.size() + 1;
      }
    }
  }
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
  // Compact ids are below the table's size (PrepareFastPath bounds compact_span). An
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
  const uint32_t class_index = fe.class_index;
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
    *parts[0].slot = body + parts[0].bits;
  } else {
    switch (n) {
      case 3:
        *parts[2].slot = body + parts[2].bits;
        [[fallthrough]];
      case 2:
        *parts[1].slot = body + parts[1].bits;
        *parts[0].slot = body + parts[0].bits;
        break;
      default:
        break;
    }
  }
  // The header is never empty here (compact.size > 0, extended_end > extended_at), so the
  // event made progress.
  static_start_ = base;  // NextNotingLayout: PrepareStaticLayouts made this layout
  Finish(ep, class_index, pos, clock);
  return true;
}

uint32_t StreamCursor::NextStaticRun(EventRecord* out, uint32_t max) {
  // Only after an event decoded in this packet, as Finish left it: the last timestamp is
  // the clock value plus the offset (nothing clamped; see StaticRunLoop).
  if (pos_ >= fast_end_ || run_end_.empty() || content_end_ < 64 ||
      last_ts_ != clock_ + clock_offset_ns_)
    return 0;
  return run_lttng_header_ ? StaticRunLoop<true>(out, max) : StaticRunLoop<false>(out, max);
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
  const uint64_t* const run_end = run_end_.data();
  const uint64_t* const run_step = run_step_.data();
  const uint64_t* const ext_end = run_ext_end_.data();
  const uint64_t* const ext_step = run_ext_step_.data();
  const uint64_t num_ext = run_ext_end_.size();
  const uint64_t offset = clock_offset_ns_;
  const uint64_t root_mask = kLttngHeader ? 7 : h.root_mask;
  const uint64_t id_mask = kLttngHeader ? 31 : h.id_mask;
  const uint64_t ts_mask = kLttngHeader ? (uint64_t{1} << 27) - 1 : h.ts_mask;
  const uint32_t ts_shift = kLttngHeader ? 5 : h.ts_shift;
  const uint64_t extended_end = kLttngHeader ? kLttngExtendedEnd : h.extended_end;
  const uint64_t extended_id_byte = kLttngHeader ? kLttngExtendedIdByte : h.extended_id_byte;
  const uint64_t extended_ts_byte = kLttngHeader ? kLttngExtendedTsByte : h.extended_ts_byte;
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
    // The event's entries in the run tables (run_end_, run_step_, or their extended
    // twins), its clock value and header option.
    uint64_t end_bits = run_end[tag], step, c;
    uint32_t option;
    if (end_bits != kExtendedTag) [[likely]] {
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
    if (end_bits < kStringTag) [[likely]] {  // a static body
      event_end = start_bits + end_bits;
      next_start = start + static_cast<uint32_t>(step);
    } else if (end_bits < kNotInRun) {  // a body that a string ends
      // As RunSteps: the string starts before the content's end and ends within it.
      const uint64_t string_at = start_bits + (end_bits - kStringTag);
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
    const uint64_t ts = c + offset;
    if (event_end > end || ts < clock + offset) break;
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

bool StreamCursor::AppendSteps(const ScopePlan& plan, uint64_t* slots, std::vector<Step>* steps) {
  if (plan.fixed) {
    steps->push_back({slots, uint64_t{plan.fixed_align_bits} - 1, plan.fixed_bits, false});
    return true;
  }
  // The compiler emits, per run of fields at constant offsets from one another: a mark of a
  // new slot, then (before a string or at the end) a sync to that slot plus the run's size.
  Step* open = nullptr;  // the step of the last mark, until its sync
  bool synced = false;
  for (const Op& op : plan.ops) {
    switch (op.code) {
      case OpCode::kMark:
        if (open && !synced) return false;  // a mark while the previous run's end is unknown
        steps->push_back({slots + op.slot, uint64_t{op.align_bits} - 1, 0, false});
        open = &steps->back();
        synced = false;
        break;
      case OpCode::kSync:
        if (!open || synced || open->slot != slots + op.slot) return false;
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

bool StreamCursor::RunSteps(const FastEvent& fe, uint64_t* pos) const {
  const Step* s = steps_.data() + fe.first_step;
  const Step* const last = s + fe.num_steps;
  const uint64_t end = content_end_;
  const uint8_t* data = data_;
  uint64_t p = *pos;
  for (; s != last; ++s) {
    p = (p + s->align_mask) & ~s->align_mask;
    *s->slot = p;
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
  Finish(fe.plan, fe.class_index, pos, clock);
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

inline void StreamCursor::Finish(const EventPlan* ep, uint32_t class_index, uint64_t pos,
                                 uint64_t clock) {
  pos_ = pos;
  clock_ = clock;
  uint64_t ts = clock_is_ns_ ? clock + clock_offset_ns_ : ToNs(clock);
  if (ts < last_ts_) [[unlikely]] {
    ++stats_.clamped_events;
    ++stats_changes_;
    stats_.max_backward_ns = std::max(stats_.max_backward_ns, last_ts_ - ts);
    ts = last_ts_;
  }
  last_ts_ = ts;
  ++events_;
  event_.plan = ep;
  event_.class_index = class_index;
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
  Finish(ep, class_base_ + ep->index, pos, clock_);
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
