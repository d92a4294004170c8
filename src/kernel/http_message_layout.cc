#include "kernel/http_message_layout.h"

#include <arpa/inet.h>

#include <array>
#include <string_view>

#include "ctf/reader/field_walk.h"

namespace causeway::kernel {

namespace {

// The bytes of the payload's two address arrays (uint8[16], as the recorder writes them).
class AddressBytes final : public ctf::FieldVisitor {
 public:
  std::array<uint8_t, 16> local{}, remote{};

  void BeginStruct(size_t) override { ++depth_; }
  void Member(size_t, std::string_view name) override {
    if (depth_ == 1) target_ = name == "laddr" ? &local : name == "raddr" ? &remote : nullptr;
  }
  void EndStruct(size_t) override { --depth_; }
  void BeginVariant(std::string_view) override {}
  void EndVariant() override {}
  void UnknownOption() override {}
  void BeginArray(uint64_t) override {}
  void Element(uint64_t index) override { element_ = index; }
  void ElementsCut(uint64_t) override {}
  void EndArray(uint64_t) override { element_ = UINT64_MAX; }
  void Integer(const ctf::IntegerValue& v) override {
    if (depth_ == 1 && target_ && element_ < 16)
      (*target_)[element_] = static_cast<uint8_t>(v.bits);
  }
  void Enum(const ctf::IntegerValue& v, std::span<const std::string* const>) override {
    Integer(v);
  }
  void Float(double) override {}
  void Text(std::string_view) override {}
  void Absent() override {}

 private:
  int depth_ = 0;
  std::array<uint8_t, 16>* target_ = nullptr;
  uint64_t element_ = UINT64_MAX;
};

std::string AddressText(const std::array<uint8_t, 16>& bytes, int family) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(family == 6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf)) return {};
  return buf;
}

// The payload field named `name`, or -1.
int PayloadField(const ctf::EventPlan& plan, std::string_view name) {
  for (int i = 0; i < static_cast<int>(plan.fields.size()); ++i)
    if (plan.fields[i].node->loc.scope == ctf::Scope::kEventPayload && plan.fields[i].name == name)
      return i;
  return -1;
}

}  // namespace

HttpMessageLayout HttpMessageLayout::Build(const ctf::EventReader& reader,
                                           std::vector<uint32_t> host_of_trace) {
  HttpMessageLayout l;
  l.classes_.resize(reader.num_event_classes());
  l.is_http_.assign(reader.num_event_classes(), 0);
  l.host_of_trace_ = std::move(host_of_trace);
  uint32_t base = 0;
  for (uint32_t ti = 0; ti < reader.traces().size(); ++ti) {
    const ctf::TracePlan& tp = reader.traces()[ti]->plan();
    for (const auto& sp : tp.streams) {
      for (const auto& ep : sp->events) {
        if (ep->cls->name != kEventName) continue;
        const ctf::EventPlan& p = *ep;
        auto integer = [&](std::string_view name) -> std::optional<ctf::ScalarRef> {
          const int f = PayloadField(p, name);
          return f < 0 ? std::nullopt : ctf::ScalarRefOf(p, f);
        };
        auto text = [&](std::string_view name) -> std::optional<ctf::TextRef> {
          const int f = PayloadField(p, name);
          return f < 0 ? std::nullopt : ctf::TextRefOf(p, f);
        };
        ClassLayout c;
        c.trace = ti;
        c.tid = integer("tid");
        c.pid = integer("pid");
        c.direction = integer("direction");
        c.family = integer("family");
        c.lport = integer("lport");
        c.rport = integer("rport");
        c.size = integer("size");
        c.truncated = integer("truncated");
        c.laddr = text("laddr");
        c.raddr = text("raddr");
        c.first_line = text("first_line");
        c.traceparent = text("traceparent");
        c.b3 = text("b3");
        c.uber_trace_id = text("uber_trace_id");
        // Without these the message says nothing usable: the class is not read.
        if (!c.tid || !c.direction || !c.lport || !c.rport || !c.first_line) continue;
        l.classes_[base + p.index] = std::move(c);
        l.is_http_[base + p.index] = 1;
        l.any_ = true;
      }
    }
    base += tp.num_event_classes;
  }
  return l;
}

bool HttpMessageLayout::ReadSlow(const ClassLayout& c, const ctf::Event& e,
                                 HttpMessage* out) const {
  auto integer = [&](const std::optional<ctf::ScalarRef>& r, int64_t dflt) -> int64_t {
    return r && e.Has(*r) ? e.GetSigned(*r) : dflt;
  };
  auto text = [&](const std::optional<ctf::TextRef>& r) -> std::string {
    return r && e.Has(*r) ? std::string(e.GetString(*r)) : std::string();
  };
  out->host = host_of_trace_[c.trace];
  out->ts = static_cast<int64_t>(e.timestamp);
  out->tid = static_cast<int32_t>(integer(c.tid, -1));
  out->pid = static_cast<int32_t>(integer(c.pid, -1));
  out->sent = integer(c.direction, 0) == 1;
  out->family = static_cast<uint8_t>(integer(c.family, 0));
  out->lport = static_cast<uint16_t>(integer(c.lport, 0));
  out->rport = static_cast<uint16_t>(integer(c.rport, 0));
  out->size = static_cast<uint64_t>(integer(c.size, 0));
  out->truncated = integer(c.truncated, 0) != 0;
  if (c.laddr && c.laddr->kind == ctf::TextRef::Kind::kString) {
    out->laddr = text(c.laddr);
    out->raddr = text(c.raddr);
  } else {
    // Binary addresses: read through the generic walk (a few thousand messages a trace).
    AddressBytes bytes;
    ctf::FieldWalker walker;
    walker.Start(e);
    walker.WalkScope(ctf::Scope::kEventPayload, bytes);
    out->laddr = AddressText(bytes.local, out->family);
    out->raddr = AddressText(bytes.remote, out->family);
  }
  out->first_line = text(c.first_line);
  out->traceparent = text(c.traceparent);
  out->b3 = text(c.b3);
  out->uber_trace_id = text(c.uber_trace_id);
  return true;
}

}  // namespace causeway::kernel
