#include "report/event_format.h"

#include <array>
#include <cmath>
#include <ctime>
#include <vector>

#include <fmt/format.h>

#include "ctf/reader/trace.h"
#include "report/json_writer.h"

namespace causeway::report {

using namespace std::string_view_literals;

using ctf::Event;
using ctf::PlanNode;
using ctf::TypeKind;

namespace {

using Line = EventFormatter::Line;

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// A JSON string: copied between its quotes when nothing in it needs an escape (names,
// hosts, most payload strings), else escaped by AppendJsonString.
// Bytes a JSON string (bit 0) or babeltrace2's quoted text (bit 1) cannot hold as they
// are: one load per byte instead of a chain of compares.
constexpr std::array<uint8_t, 256> kNeedsEscape = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) t[c] |= 1;
    if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'' || c == '"' || c == '?') t[c] |= 2;
  }
  return t;
}();
constexpr uint8_t kJson = 1, kText = 2;

void AppendJsonText(Line* out, std::string_view s) {
  bool plain = true;
  for (const char ch : s) {
    if (kNeedsEscape[static_cast<unsigned char>(ch)] & kJson) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out->push_back('"');
    *out += s;
    out->push_back('"');
    return;
  }
  std::string escaped;
  AppendJsonString(&escaped, s);
  *out += escaped;
}

// Numbers as the lines print them, without a format string parsed per value nor a
// character-at-a-time back_inserter (through fmt::format_to, those took about half of
// `causeway events`' time).
void AppendDecimal(uint64_t v, Line* out) {
  const fmt::format_int f(v);
  out->append(f.data(), f.size());
}
void AppendDecimal(int64_t v, Line* out) {
  const fmt::format_int f(v);
  out->append(f.data(), f.size());
}
// v in exactly `width` decimal digits, zero-padded; v < 10^width.
void AppendZeroPadded(uint64_t v, int width, Line* out) {
  char digits[20];
  for (int i = width - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out->append(digits, static_cast<size_t>(width));
}
// "0x" and v in uppercase hexadecimal digits, no leading zeros ("0x0" for 0).
void AppendHexUpper(uint64_t v, Line* out) {
  char digits[18];
  int i = 18;
  do {
    digits[--i] = "0123456789ABCDEF"[v & 15];
    v >>= 4;
  } while (v);
  digits[--i] = 'x';
  digits[--i] = '0';
  out->append(digits + i, static_cast<size_t>(18 - i));
}

// Text as babeltrace2's text sink prints it: in double quotes; a backslash, both quotes
// and '?' behind a backslash (C's escapes); control characters (below 0x20, and 0x7f) by
// their C escape where C has a letter for them (\e for ESC, as GCC writes it), else as
// \x and two lowercase hex digits; bytes from 0x80 up as they are (UTF-8 passes through).
// Checked byte for byte against babeltrace2 on a live LTTng-UST trace
// (tests/ctf_lttng_ust_interop_test.cc).
void AppendTextString(std::string_view s, Line* out) {
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    // Runs that need no escape are copied at once.
    size_t j = i;
    while (j < s.size() && !(kNeedsEscape[static_cast<unsigned char>(s[j])] & kText)) ++j;
    out->append(s.data() + i, j - i);
    if (j == s.size()) break;
    i = j + 1;
    const char ch = s[j];
    const auto c = static_cast<unsigned char>(ch);
    const char* named = nullptr;
    switch (c) {
      case '\\':
        named = "\\\\";
        break;
      case '\'':
        named = "\\'";
        break;
      case '"':
        named = "\\\"";
        break;
      case '?':
        named = "\\?";
        break;
      case '\a':
        named = "\\a";
        break;
      case '\b':
        named = "\\b";
        break;
      case 0x1b:
        named = "\\e";
        break;
      case '\f':
        named = "\\f";
        break;
      case '\n':
        named = "\\n";
        break;
      case '\r':
        named = "\\r";
        break;
      case '\t':
        named = "\\t";
        break;
      case '\v':
        named = "\\v";
        break;
      default:
        break;
    }
    if (named) {
      *out += named;
    } else if (c < 0x20 || c == 0x7f) {
      *out += fmt::format("\\x{:02x}", c);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

bool IsText(const PlanNode& n) {
  const auto* t = n.type;
  if (t->kind != TypeKind::kArray && t->kind != TypeKind::kSequence) return false;
  const auto* e = t->element.get();
  return e && e->kind == TypeKind::kInteger && e->size_bits == 8 &&
         e->encoding != ctf::Encoding::kNone;
}

}  // namespace

// Walks a compiled type tree over one event's bytes. Positions come from the event's
// slots, copied so that elements of arrays of variable-size elements can be re-walked:
// inside them, a node that owns an anchor writes its own start into the copy.
struct EventFormatter::Walk {
  const Event& e;
  bool json;
  Line* out;
  // The formatter's (EventFormatter::walk_slots_), reused from event to event: empty for a
  // scope not bound.
  std::vector<uint64_t>* slots;
  bool rewalk = false;
  // Array elements printed at most: elements that take bits are fewer than the event's bits;
  // only empty ones (a huge array of empty structs in the metadata) can run out of it.
  uint64_t elements_left;

  Walk(const Event& ev, bool as_json, Line* o, std::vector<uint64_t>* scope_slots)
      : e(ev),
        json(as_json),
        out(o),
        slots(scope_slots),
        elements_left(ev.content_end_bits + 4096) {
    for (int s = 0; s < ctf::kNumScopes; ++s) slots[s].clear();
  }

  void Bind(ctf::Scope scope, uint16_t num_slots) {
    const int s = static_cast<int>(scope);
    slots[s].resize(num_slots);
    for (uint32_t i = 0; i < num_slots; ++i) slots[s][i] = e.Anchor(s, i);
  }

  uint64_t Pos(const PlanNode& n, uint64_t cursor) {
    auto& v = slots[static_cast<int>(n.loc.scope)];
    if (rewalk && n.owns_anchor) v[n.loc.slot] = AlignUp(cursor, n.align_bits);
    const uint64_t a = v[n.loc.slot];
    return a == ctf::kAbsent ? ctf::kAbsent : a + n.loc.offset_bits;
  }
  uint64_t ReadAt(uint64_t pos, const ctf::ScalarDesc& d) const {
    return ctf::ReadRawBits(e.data, e.data_end, pos, d);
  }
  uint64_t ReadRef(const PlanNode& n) {
    // A scope the walk does not print (the headers, the packet context) is read from the
    // event's own slots.
    const int s = static_cast<int>(n.ref.scope);
    const uint64_t anchor = slots[s].empty() ? e.Anchor(s, n.ref.slot) : slots[s][n.ref.slot];
    if (anchor == ctf::kAbsent) return 0;
    return ReadAt(anchor + n.ref.offset_bits, n.ref_scalar);
  }

  void Scalar(const PlanNode& n, uint64_t pos) {
    const ctf::Type& t = *n.type;
    const uint64_t raw = ReadAt(pos, n.scalar);
    if (t.kind == TypeKind::kFloat) {
      const double d = ctf::BitsToDouble(raw, n.scalar.size_bits);
      if (json && !std::isfinite(d))
        *out += "null"sv;
      else if (json)
        *out += fmt::format("{}", d);
      else
        *out += fmt::format("{:g}", d);
      return;
    }
    const int64_t sv = n.scalar.is_signed ? ctf::SignExtend(raw, n.scalar.size_bits) : 0;
    // A negative value in base 16 or 8 shows its two's complement on the field size rounded
    // up to whole digits, as babeltrace2 does (-1 in 13 bits is 0xFFFF).
    auto digits_mask = [&](unsigned digit_bits) {
      const unsigned size = n.scalar.size_bits;
      const unsigned rounded = (size + digit_bits - 1) / digit_bits * digit_bits;
      const uint64_t v = n.scalar.is_signed ? static_cast<uint64_t>(sv) : raw;
      return rounded >= 64 ? v : v & ((uint64_t{1} << rounded) - 1);
    };
    auto number = [&]() {
      if (!json && t.base == 16)
        AppendHexUpper(digits_mask(4), out);
      else if (!json && t.base == 8)
        *out += fmt::format("0{:o}", digits_mask(3));
      else if (!json && t.base == 2)
        *out += fmt::format("0b{:0{}b}", raw, n.scalar.size_bits);
      else if (n.scalar.is_signed)
        AppendDecimal(sv, out);
      else
        AppendDecimal(raw, out);
    };
    if (t.kind != TypeKind::kEnum) return number();
    std::vector<const std::string*> labels;
    for (const auto& m : t.mappings) {
      const bool hit = n.scalar.is_signed ? (sv >= m.lo && sv <= m.hi)
                                          : (raw >= static_cast<uint64_t>(m.lo) &&
                                             raw <= static_cast<uint64_t>(m.hi));
      if (hit) labels.push_back(&m.label);
    }
    if (json) {
      *out += "{\"label\":"sv;
      if (labels.empty())
        *out += "null"sv;
      else
        AppendJsonText(out, *labels[0]);
      *out += ",\"value\":"sv;
      number();
      *out += "}"sv;
      return;
    }
    // babeltrace2 2.0.4: every matching label in declaration order, comma-separated, each
    // escaped as a string is (checked on a live LTTng-UST trace).
    *out += "( "sv;
    if (labels.empty()) *out += "<unknown>"sv;
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) *out += ", "sv;
      AppendTextString(*labels[i], out);
    }
    *out += " : container = "sv;
    number();
    *out += " )"sv;
  }

  // Appends the value of `n` starting at or after `cursor`; returns where it ends.
  uint64_t Value(const PlanNode& n, uint64_t cursor) {
    const uint64_t pos = Pos(n, cursor);
    if (pos == ctf::kAbsent) {
      *out += json ? "null"sv : "<absent>"sv;
      return cursor;
    }
    const ctf::Type& t = *n.type;
    switch (t.kind) {
      case TypeKind::kInteger:
      case TypeKind::kEnum:
      case TypeKind::kFloat:
        Scalar(n, pos);
        return pos + t.size_bits;
      case TypeKind::kString: {
        const char* p = reinterpret_cast<const char*>(e.data) + pos / 8;
        const uint64_t avail = e.content_end_bits / 8 - pos / 8;
        const void* nul = std::memchr(p, 0, avail);
        const size_t len = nul ? static_cast<const char*>(nul) - p : avail;
        if (json)
          AppendJsonText(out, {p, len});
        else
          AppendTextString({p, len}, out);
        return pos + (len + 1) * 8;
      }
      case TypeKind::kStruct:
        return Struct(n, pos);
      case TypeKind::kVariant: {
        const uint64_t raw = ReadRef(n);
        const bool sign = n.ref_scalar.is_signed;
        const int64_t sv = sign ? ctf::SignExtend(raw, n.ref_scalar.size_bits) : 0;
        for (const auto& m : n.ref_type->mappings) {
          const bool hit =
              sign ? (sv >= m.lo && sv <= m.hi)
                   : (raw >= static_cast<uint64_t>(m.lo) && raw <= static_cast<uint64_t>(m.hi));
          if (!hit) continue;
          for (const auto& opt : n.children) {
            if (opt.raw_name != m.label && opt.name != m.label) continue;
            // babeltrace2 prints the chosen option's value without its name.
            if (json) {
              *out += "{"sv;
              Name(opt);
            } else {
              *out += "{ "sv;
            }
            const uint64_t end = Value(opt, pos);
            *out += json ? "}"sv : " }"sv;
            return end;
          }
        }
        *out += json ? "null"sv : "<unknown option>"sv;
        return pos;
      }
      case TypeKind::kArray:
      case TypeKind::kSequence:
        return Array(n, pos);
    }
    return pos;
  }

  void Name(const PlanNode& n) {
    if (json) {
      AppendJsonText(out, n.name);
      out->push_back(':');
    } else {
      *out += n.name;
      *out += " = "sv;
    }
  }

  uint64_t Struct(const PlanNode& n, uint64_t pos) {
    *out += json ? "{"sv : "{ "sv;
    uint64_t cursor = pos;
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (i) *out += json ? ","sv : ", "sv;
      Name(n.children[i]);
      cursor = Value(n.children[i], cursor);
    }
    if (json)
      *out += "}"sv;
    else
      *out += n.children.empty() ? "}"sv : " }"sv;
    return cursor;
  }

  uint64_t Array(const PlanNode& n, uint64_t pos) {
    const ctf::Type& t = *n.type;
    const uint64_t count = t.kind == TypeKind::kArray ? t.length : ReadRef(n);
    const PlanNode& elem = n.children[0];
    const uint64_t start = AlignUp(pos, elem.align_bits);
    if (IsText(n)) {
      const char* p = reinterpret_cast<const char*>(e.data) + start / 8;
      const uint64_t avail = std::min<uint64_t>(count, e.content_end_bits / 8 - start / 8);
      const void* nul = std::memchr(p, 0, avail);
      const size_t len = nul ? static_cast<const char*>(nul) - p : avail;
      if (json)
        AppendJsonText(out, {p, len});
      else
        AppendTextString({p, len}, out);
      return start + count * 8;
    }
    *out += json ? "["sv : "[ "sv;
    uint64_t cursor = start;
    const bool saved = rewalk;
    const uint64_t stride = elem.fixed_size ? AlignUp(elem.size_bits, elem.align_bits) : 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (elements_left == 0) {
        if (!json) *out += i ? ", ..."sv : "..."sv;
        break;
      }
      --elements_left;
      if (i) *out += json ? ","sv : ", "sv;
      if (!json) {
        out->push_back('[');
        AppendDecimal(i, out);
        *out += "] = "sv;
      }
      if (elem.fixed_size) {
        // Static element: its anchor is the element start.
        slots[static_cast<int>(elem.loc.scope)][elem.loc.slot] = start + i * stride;
        rewalk = false;
        Value(elem, cursor);
        cursor = start + (i + 1) * stride;
      } else {
        rewalk = true;
        cursor = Value(elem, cursor);
      }
      if (cursor > e.content_end_bits) break;
    }
    rewalk = saved;
    *out += json ? "]"sv : (count ? " ]"sv : "]"sv);
    return count && elem.fixed_size ? start + count * stride : cursor;
  }
};

void EventFormatter::Line::Grow(size_t n) {
  const size_t used = size();
  bytes_.resize(std::max<size_t>(bytes_.size() * 2, used + n + 256));
  end_ = bytes_.data() + used;
  limit_ = bytes_.data() + bytes_.size();
}

void EventFormatter::AppendTime(uint64_t ns, Line* out) {
  const uint64_t sec = ns / 1'000'000'000, frac = ns % 1'000'000'000;
  if (options_.time == TimeFormat::kSeconds) {
    AppendDecimal(sec, out);
    out->push_back('.');
    AppendZeroPadded(frac, 9, out);
    return;
  }
  // Events come many to a second: the wall-clock part is worked out once per second (a
  // second's local time is one time of day: offsets change on whole seconds).
  if (sec != hms_second_) {
    const time_t t = static_cast<time_t>(sec);
    struct tm tm;
    if (options_.time == TimeFormat::kGmt)
      gmtime_r(&t, &tm);
    else
      localtime_r(&t, &tm);
    // tm_hour, tm_min and tm_sec (up to 60, a leap second) take two digits each.
    const int parts[3] = {tm.tm_hour, tm.tm_min, tm.tm_sec};
    for (int i = 0; i < 3; ++i) {
      hms_[i * 3] = static_cast<char>('0' + parts[i] / 10 % 10);
      hms_[i * 3 + 1] = static_cast<char>('0' + parts[i] % 10);
      hms_[i * 3 + 2] = i < 2 ? ':' : '.';
    }
    hms_second_ = sec;
  }
  out->append(hms_, sizeof(hms_));
  AppendZeroPadded(frac, 9, out);
}

const std::string& EventFormatter::TraceFields(const ctf::Trace* trace) {
  if (trace == fields_trace_) return trace_fields_;
  fields_trace_ = trace;
  trace_fields_.clear();
  const auto& env = trace->trace_class().env;
  auto find = [&](std::string_view key) -> const ctf::EnvValue* {
    for (const auto& [k, v] : env)
      if (k == key) return &v;
    return nullptr;
  };
  // As babeltrace2 does: each entry present counts, even when its value is not of the
  // type it prints (a text hostname and procname, an integer vpid), which then prints
  // nothing between its separators.
  bool any = false;
  for (const char* key : {"hostname", "procname", "vpid"}) {
    const ctf::EnvValue* v = find(key);
    if (!v) continue;
    trace_fields_ += any ? ':' : ' ';
    any = true;
    if (const auto* text = std::get_if<std::string>(v); text && std::string_view(key) != "vpid")
      trace_fields_ += *text;
    else if (const auto* n = std::get_if<int64_t>(v); n && std::string_view(key) == "vpid")
      fmt::format_to(std::back_inserter(trace_fields_), "({})", *n);
  }
  return trace_fields_;
}

void EventFormatter::AppendText(const Event& e, std::string* line) {
  line_.clear();
  AppendTextLine(e, &line_);
  line->append(line_.data(), line_.size());
}

void EventFormatter::AppendTextLine(const Event& e, Line* out) {
  out->push_back('[');
  if (options_.time == TimeFormat::kCycles)
    AppendZeroPadded(e.cycles, 20, out);
  else
    AppendTime(e.timestamp, out);
  out->push_back(']');
  if (options_.delta) {
    if (have_last_) {
      const uint64_t d = e.timestamp - last_ts_;
      *out += " (+"sv;
      AppendDecimal(d / 1'000'000'000, out);
      out->push_back('.');
      AppendZeroPadded(d % 1'000'000'000, 9, out);
      out->push_back(')');
    } else {
      *out += " (+?.\?\?\?\?\?\?\?\?\?)"sv;
    }
  }
  have_last_ = true;
  last_ts_ = e.timestamp;
  if (options_.hostname) *out += TraceFields(e.trace);
  out->push_back(' ');
  if (e.kind == Event::Kind::kDiscarded) {
    *out += fmt::format("<discarded>: {{ count = {} }}", e.discarded);
    return;
  }
  *out += e.name();
  *out += ": "sv;
  Walk w(e, false, out, walk_slots_);
  bool first = true;
  auto sep = [&] {
    if (!first) *out += ", "sv;
    first = false;
  };
  if (e.cpu >= 0) {
    sep();
    *out += "{ cpu_id = "sv;
    AppendDecimal(e.cpu, out);
    *out += " }"sv;
  }
  const ctf::StreamPlan& sp = *e.stream_plan;
  const ctf::ScopePlan* scopes[] = {&sp.event_context, &e.plan->context, &e.plan->payload};
  const ctf::Scope ids[] = {ctf::Scope::kStreamEventContext, ctf::Scope::kEventContext,
                            ctf::Scope::kEventPayload};
  for (int i = 0; i < 3; ++i) {
    if (!scopes[i]->present) continue;
    w.Bind(ids[i], scopes[i]->num_slots);
    sep();
    w.Value(scopes[i]->root, 0);
  }
}

void EventFormatter::AppendJson(const Event& e, std::string* line) {
  line_.clear();
  AppendJsonLine(e, &line_);
  line->append(line_.data(), line_.size());
}

void EventFormatter::AppendJsonLine(const Event& e, Line* out) {
  *out += "{\"timestamp\":"sv;
  AppendDecimal(e.timestamp, out);
  *out += ",\"time\":\""sv;
  AppendTime(e.timestamp, out);
  *out += "\",\"host\":"sv;
  AppendJsonText(out, e.trace->hostname());
  *out += ",\"name\":"sv;
  AppendJsonText(out, e.name());
  *out += ",\"cpu\":"sv;
  AppendDecimal(e.cpu, out);
  *out += ",\"stream\":"sv;
  AppendDecimal(uint64_t{e.stream_index}, out);
  if (e.kind == Event::Kind::kDiscarded) {
    *out += fmt::format(",\"discarded\":{},\"from\":{},\"to\":{}}}", e.discarded, e.discarded_begin,
                        e.discarded_end);
    return;
  }
  Walk w(e, true, out, walk_slots_);
  const ctf::StreamPlan& sp = *e.stream_plan;
  if (sp.event_context.present || e.plan->context.present) {
    *out += ",\"context\":{"sv;
    bool first = true;
    const ctf::ScopePlan* scopes[] = {&sp.event_context, &e.plan->context};
    const ctf::Scope ids[] = {ctf::Scope::kStreamEventContext, ctf::Scope::kEventContext};
    for (int i = 0; i < 2; ++i) {
      if (!scopes[i]->present) continue;
      w.Bind(ids[i], scopes[i]->num_slots);
      uint64_t cursor = 0;
      for (const auto& c : scopes[i]->root.children) {
        if (!first) out->push_back(',');
        first = false;
        w.Name(c);
        cursor = w.Value(c, cursor);
      }
    }
    *out += "}"sv;
  }
  *out += ",\"fields\":"sv;
  if (e.plan->payload.present) {
    w.Bind(ctf::Scope::kEventPayload, e.plan->payload.num_slots);
    w.Value(e.plan->payload.root, 0);
  } else {
    *out += "{}"sv;
  }
  *out += "}"sv;
}

}  // namespace causeway::report
