#include "ust_trace_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "causeway/tracepoint.h"
#include "ring_registry.h"

namespace causeway::client {
namespace {

constexpr uint32_t kNoClass = ~0u;

std::string ProcName() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "unknown" : name;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

ctf::FieldKind KindOf(FieldType t) {
  switch (t) {
    case FieldType::kInt64:
      return ctf::FieldKind::kS64;
    case FieldType::kUint64:
      return ctf::FieldKind::kU64;
    case FieldType::kDouble:
      return ctf::FieldKind::kDouble;
    case FieldType::kBool:
      return ctf::FieldKind::kU8;
    case FieldType::kString:
      return ctf::FieldKind::kString;
  }
  return ctf::FieldKind::kS64;
}

template <class T>
bool Take(const uint8_t*& p, const uint8_t* end, T* out) {
  if (static_cast<size_t>(end - p) < sizeof(T)) return false;
  std::memcpy(out, p, sizeof(T));
  p += sizeof(T);
  return true;
}

bool TakeString(const uint8_t*& p, const uint8_t* end, std::string_view* out) {
  uint16_t n;
  if (!Take(p, end, &n) || static_cast<size_t>(end - p) < n) return false;
  *out = std::string_view(reinterpret_cast<const char*>(p), n);
  p += n;
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<UstTraceWriter>> UstTraceWriter::Create(const std::string& dir,
                                                                 int64_t clock_offset_ns) {
  std::unique_ptr<UstTraceWriter> w(new UstTraceWriter);
  w->dir_ = dir;
  w->procname_ = ProcName();
  ctf::TraceOptions opts;
  opts.hostname = HostName();
  opts.domain = "ust";
  opts.tracer_name = "causeway-client";
  opts.tracer_major = 0;
  opts.tracer_minor = 1;
  opts.tracer_patchlevel = 0;
  opts.extra_env = {{"procname", w->procname_}, {"vpid", static_cast<int64_t>(getpid())}};
  opts.clock_name = "monotonic";
  opts.clock_offset_ns = clock_offset_ns;
  opts.packet_size = 64 * 1024;
  opts.event_context_procname_vtid = true;
  ASSIGN_OR_RETURN(w->writer_, ctf::CtfWriter::Create(dir, std::move(opts)));
  using ctf::FieldKind;
  const std::vector<ctf::FieldSpec> span_fields = {
      {"trace_id_high", FieldKind::kU64}, {"trace_id_low", FieldKind::kU64},
      {"span_id", FieldKind::kU64},       {"parent_span_id", FieldKind::kU64},
      {"op_name", FieldKind::kString},    {"tid", FieldKind::kS32}};
  const std::vector<ctf::FieldSpec> activation_fields = {{"trace_id_high", FieldKind::kU64},
                                                         {"trace_id_low", FieldKind::kU64},
                                                         {"span_id", FieldKind::kU64},
                                                         {"tid", FieldKind::kS32}};
  ASSIGN_OR_RETURN(w->start_span_, w->writer_->AddEventClass("jaeger_ust:start_span", span_fields));
  ASSIGN_OR_RETURN(w->end_span_, w->writer_->AddEventClass("jaeger_ust:end_span", span_fields));
  ASSIGN_OR_RETURN(w->activate_,
                   w->writer_->AddEventClass("causeway_ust:activate", activation_fields));
  ASSIGN_OR_RETURN(w->deactivate_,
                   w->writer_->AddEventClass("causeway_ust:deactivate", activation_fields));
  // Written now so that a process killed later leaves a readable trace up to its last packet.
  RETURN_IF_ERROR(w->writer_->WriteMetadata());
  return w;
}

uint32_t UstTraceWriter::TracepointClass(uint32_t id) {
  if (id < tracepoint_classes_.size() && tracepoint_classes_[id] != kNoClass)
    return tracepoint_classes_[id];
  const TracepointBase* tp = TracepointRegistry::Get().ById(id);
  if (!tp) return kNoClass;
  std::vector<ctf::FieldSpec> fields;
  for (const TracepointField& f : tp->fields())
    fields.push_back({std::string(f.name), KindOf(f.type)});
  fields.push_back({"tid", ctf::FieldKind::kS32});
  auto cls = writer_->AddEventClass(tp->full_name(), std::move(fields));
  if (!cls.ok()) {
    std::fprintf(stderr, "causeway-client: tracepoint %s not recorded: %s\n",
                 tp->full_name().c_str(), cls.status().ToString().c_str());
    return kNoClass;
  }
  if (tracepoint_classes_.size() <= id) tracepoint_classes_.resize(id + 1, kNoClass);
  tracepoint_classes_[id] = *cls;
  metadata_dirty_ = true;
  return *cls;
}

void UstTraceWriter::WriteRecord(const detail::ThreadRing& ring, uint32_t key, uint64_t ts,
                                 const uint8_t* p, const uint8_t* end) {
  const ctf::UstContext context{procname_, ring.tid};
  if (key >= detail::kStartSpanKey && key <= detail::kDeactivateKey) {
    uint64_t high, low, span, parent = 0;
    std::string_view op;
    const bool is_span = key == detail::kStartSpanKey || key == detail::kEndSpanKey;
    if (!Take(p, end, &high) || !Take(p, end, &low) || !Take(p, end, &span) ||
        (is_span && (!Take(p, end, &parent) || !TakeString(p, end, &op)))) {
      ++malformed_;
      return;
    }
    const uint32_t cls = key == detail::kStartSpanKey  ? start_span_
                         : key == detail::kEndSpanKey  ? end_span_
                         : key == detail::kActivateKey ? activate_
                                                       : deactivate_;
    auto b = writer_->Begin(ring.ordinal, cls, ts, context);
    b.U64(high).U64(low).U64(span);
    if (is_span) b.U64(parent).String(op);
    b.S32(ring.tid);
    ++events_written_;
    return;
  }
  const uint32_t id = key - detail::kFirstTracepointKey;
  const uint32_t cls = TracepointClass(id);
  const TracepointBase* tp = TracepointRegistry::Get().ById(id);
  if (cls == kNoClass || !tp) {
    ++malformed_;
    return;
  }
  auto b = writer_->Begin(ring.ordinal, cls, ts, context);
  for (const TracepointField& f : tp->fields()) {
    bool ok = true;
    switch (f.type) {
      case FieldType::kInt64: {
        int64_t v = 0;
        ok = Take(p, end, &v);
        b.S64(v);
        break;
      }
      case FieldType::kUint64: {
        uint64_t v = 0;
        ok = Take(p, end, &v);
        b.U64(v);
        break;
      }
      case FieldType::kDouble: {
        double v = 0;
        ok = Take(p, end, &v);
        b.Double(v);
        break;
      }
      case FieldType::kBool: {
        uint8_t v = 0;
        ok = Take(p, end, &v);
        b.U8(v);
        break;
      }
      case FieldType::kString: {
        std::string_view v;
        ok = TakeString(p, end, &v);
        b.String(v);
        break;
      }
    }
    if (!ok) ++malformed_;  // cannot happen with records the tracepoint wrote itself
  }
  b.S32(ring.tid);
  ++events_written_;
}

void UstTraceWriter::DrainRing(detail::ThreadRing& ring, uint64_t head, ClockCalibration& clock) {
  if (streams_.size() <= ring.ordinal) streams_.resize(ring.ordinal + 1);
  StreamState& st = streams_[ring.ordinal];
  if (st.ring_serial != ring.serial) {  // a new thread on this stream
    st.ring_serial = ring.serial;
    st.ring_lost_seen = 0;
  }
  uint64_t tail = ring.tail.load(std::memory_order_relaxed);
  while (tail < head) {
    const uint8_t* rec = ring.data + (tail & (ring.capacity - 1));
    uint32_t header[2];
    uint64_t raw;
    std::memcpy(header, rec, sizeof(header));
    std::memcpy(&raw, rec + 8, sizeof(raw));
    const uint32_t size = header[0];
    if (size < detail::kRecordHeaderBytes || size % 16 != 0 || tail + size > head) {
      // Cannot happen unless memory was overwritten: give up on this ring's content.
      ++malformed_;
      tail = head;
      break;
    }
    if (header[1] != detail::kPadKey) {
      // Conversion may step back by a few ns where the calibration segment changes; a stream's
      // timestamps must not decrease, so clamp.
      const uint64_t ts = std::max(clock.ToMonotonic(raw), st.last_ts);
      WriteRecord(ring, header[1], ts, rec + detail::kRecordHeaderBytes, rec + size);
      st.last_ts = ts;
    }
    tail += size;
  }
  ring.tail.store(tail, std::memory_order_release);
  const uint64_t lost = ring.lost.load(std::memory_order_relaxed);
  if (lost != st.ring_lost_seen) {
    events_lost_ += lost - st.ring_lost_seen;
    st.discarded += lost - st.ring_lost_seen;
    st.ring_lost_seen = lost;
    (void)writer_->SetDiscarded(ring.ordinal, st.discarded);
  }
}

void UstTraceWriter::Drain(ClockCalibration& clock) {
  // Read every head first, then sample the clock: every record up to those heads was stamped
  // before the sample, so its conversion interpolates.
  struct Pending {
    detail::ThreadRing* ring;
    uint64_t head;
  };
  std::vector<Pending> pending;
  ForEachRing(
      [&](detail::ThreadRing& r) {
        pending.push_back({&r, r.head.load(std::memory_order_acquire)});
      },
      /*release_drained_orphans=*/false);
  clock.Sample();
  // Rings are only appended between the two passes (released ones go at the end of the
  // second), so the second pass meets them in the same order.
  size_t next = 0;
  ForEachRing(
      [&](detail::ThreadRing& r) {
        if (next < pending.size() && pending[next].ring == &r)
          DrainRing(r, pending[next++].head, clock);
      },
      /*release_drained_orphans=*/true);
  if (metadata_dirty_) {
    (void)writer_->WriteMetadata();
    metadata_dirty_ = false;
  }
}

Status UstTraceWriter::Close(ClockCalibration& clock) {
  Drain(clock);
  if (malformed_)
    std::fprintf(stderr, "causeway-client: %llu malformed records skipped in %s\n",
                 static_cast<unsigned long long>(malformed_), dir_.c_str());
  return writer_->Close();
}

}  // namespace causeway::client
