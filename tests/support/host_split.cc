#include "support/host_split.h"

#include <map>
#include <memory>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"

namespace causeway::testing {
namespace {

StatusOr<ctf::FieldKind> KindOf(const ctf::PlanNode& n) {
  const ctf::Type& t = *n.type;
  if (t.kind == ctf::TypeKind::kInteger) {
    if (t.base == 16 && t.size_bits == 64 && !t.is_signed) return ctf::FieldKind::kHex64;
    switch (t.size_bits) {
      case 8:
        return t.is_signed ? ctf::FieldKind::kS8 : ctf::FieldKind::kU8;
      case 16:
        return t.is_signed ? ctf::FieldKind::kS16 : ctf::FieldKind::kU16;
      case 32:
        return t.is_signed ? ctf::FieldKind::kS32 : ctf::FieldKind::kU32;
      case 64:
        return t.is_signed ? ctf::FieldKind::kS64 : ctf::FieldKind::kU64;
      default:
        break;
    }
  }
  if (t.kind == ctf::TypeKind::kString) return ctf::FieldKind::kString;
  if (t.kind == ctf::TypeKind::kArray && t.length == 16 && t.element && t.element->size_bits == 8)
    return ctf::FieldKind::kCharArray16;
  if (t.kind == ctf::TypeKind::kFloat && t.size_bits == 64) return ctf::FieldKind::kDouble;
  return InvalidArgument(fmt::format("field '{}': a type the split does not copy", n.name));
}

struct ClassCopy {
  uint32_t id = 0;
  std::vector<ctf::FieldKind> kinds;
  int device = -1;        // packet events: the field naming the device
  bool left_out = false;  // a field of a type the split does not copy (an enumeration)
};

}  // namespace

StatusOr<SplitCounts> SplitTraceByDevice(const std::string& in_dir,
                                         const std::vector<SplitHost>& hosts) {
  ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader, ctf::EventReader::Open({in_dir}));
  if (reader->traces().size() != 1)
    return InvalidArgument(
        fmt::format("{}: expected one trace, found {}", in_dir, reader->traces().size()));
  const ctf::Trace& trace = *reader->traces()[0];
  const ctf::TracePlan& plan = trace.plan();
  const ctf::ClockClass* clock = plan.streams.empty() ? nullptr : plan.streams[0]->clock;
  const auto clock_offset = static_cast<int64_t>(trace.CyclesToNs(clock, 0));

  std::vector<std::unique_ptr<ctf::CtfWriter>> writers;
  for (const SplitHost& h : hosts) {
    ctf::TraceOptions o;
    o.hostname = h.hostname;
    o.domain = "kernel";
    o.tracer_name = trace.trace_class().EnvString("tracer_name");
    o.kernel_release = trace.trace_class().EnvString("kernel_release");
    o.clock_offset_ns = clock_offset;
    ASSIGN_OR_RETURN(auto w, ctf::CtfWriter::Create(h.dir, o));
    writers.push_back(std::move(w));
  }
  SplitCounts counts;
  std::map<const ctf::EventPlan*, ClassCopy> classes;
  for (const auto& sp : plan.streams) {
    for (const auto& ep : sp->events) {
      if (!ep) continue;
      ClassCopy c;
      std::vector<ctf::FieldSpec> specs;
      for (size_t f = 0; f < ep->fields.size() && !c.left_out; ++f) {
        StatusOr<ctf::FieldKind> k = KindOf(*ep->fields[f].node);
        c.left_out = !k.ok();
        if (c.left_out) break;
        c.kinds.push_back(*k);
        specs.push_back({ep->fields[f].name, *k});
      }
      const std::string& name = ep->cls->name;
      // Such classes (the system calls' enumerated ids) say nothing of clocks or packets:
      // their events are left out and counted.
      if (c.left_out) {
        counts.classes_left_out.push_back(name);
        classes[ep.get()] = std::move(c);
        continue;
      }
      if (name == "net_dev_queue" || name == "netif_receive_skb") c.device = ep->FieldIndex("name");
      for (auto& w : writers) {
        ASSIGN_OR_RETURN(c.id, w->AddEventClass(name, specs));
      }
      classes[ep.get()] = std::move(c);
    }
  }

  counts.events_out.assign(hosts.size(), 0);
  std::map<uint32_t, uint64_t> discarded;  // per stream, cumulative
  while (const ctf::Event* e = reader->Next()) {
    const auto stream = static_cast<uint32_t>(e->cpu < 0 ? 0 : e->cpu);
    if (!e->plan) {
      discarded[stream] += e->discarded;
      for (auto& w : writers) RETURN_IF_ERROR(w->SetDiscarded(stream, discarded[stream]));
      continue;
    }
    ++counts.events_in;
    const ClassCopy& c = classes.at(e->plan);
    if (c.left_out) {
      ++counts.events_left_out;
      continue;
    }
    int owner = -1;
    if (c.device >= 0) {
      const std::string_view dev = e->GetString(c.device);
      for (size_t h = 0; h < hosts.size() && owner < 0; ++h)
        for (const std::string& d : hosts[h].devices)
          if (dev == d) owner = static_cast<int>(h);
      if (owner >= 0) ++counts.packets_assigned;
    }
    for (size_t h = 0; h < hosts.size(); ++h) {
      if (owner >= 0 && owner != static_cast<int>(h)) continue;
      const int64_t ts = hosts[h].skew.Apply(static_cast<int64_t>(e->timestamp)) - clock_offset;
      auto b = writers[h]->Begin(stream, c.id, static_cast<uint64_t>(ts));
      for (size_t f = 0; f < c.kinds.size(); ++f) {
        const int fi = static_cast<int>(f);
        switch (c.kinds[f]) {
          case ctf::FieldKind::kU8:
            b.U8(static_cast<uint8_t>(e->GetUnsigned(fi)));
            break;
          case ctf::FieldKind::kU16:
            b.U16(static_cast<uint16_t>(e->GetUnsigned(fi)));
            break;
          case ctf::FieldKind::kU32:
            b.U32(static_cast<uint32_t>(e->GetUnsigned(fi)));
            break;
          case ctf::FieldKind::kU64:
            b.U64(e->GetUnsigned(fi));
            break;
          case ctf::FieldKind::kS8:
            b.S8(static_cast<int8_t>(e->GetSigned(fi)));
            break;
          case ctf::FieldKind::kS16:
            b.S16(static_cast<int16_t>(e->GetSigned(fi)));
            break;
          case ctf::FieldKind::kS32:
            b.S32(static_cast<int32_t>(e->GetSigned(fi)));
            break;
          case ctf::FieldKind::kS64:
            b.S64(e->GetSigned(fi));
            break;
          case ctf::FieldKind::kHex64:
            b.Hex64(e->GetUnsigned(fi));
            break;
          case ctf::FieldKind::kString:
            b.String(e->GetString(fi));
            break;
          case ctf::FieldKind::kCharArray16:
            b.Chars16(e->GetString(fi));
            break;
          case ctf::FieldKind::kBytes16: {
            const std::string_view bytes = e->GetBytes(fi);
            b.Bytes16({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
            break;
          }
          case ctf::FieldKind::kDouble:
            b.Double(e->GetDouble(fi));
            break;
        }
      }
      ++counts.events_out[h];
    }
  }
  RETURN_IF_ERROR(reader->status());
  for (auto& w : writers) RETURN_IF_ERROR(w->Close());
  return counts;
}

}  // namespace causeway::testing
