#include "report/event_format.h"

#include <array>
#include <cmath>
#include <ctime>
#include <span>

#include <fmt/format.h>

#include "ctf/reader/trace.h"
#include "report/json_writer.h"
#include "report/terminal_text.h"

namespace causeway::report {

using namespace std::string_view_literals;

using ctf::Event;

namespace {

using Line = EventFormatter::Line;

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
// and '?' behind a backslash (C's escapes); control characters by AppendControlEscape
// (terminal_text.h, shared with every output that prints names); bytes from 0x80 up as they
// are (UTF-8 passes through).
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
      default:
        break;
    }
    if (named)
      *out += named;
    else if (IsControlByte(c))
      AppendControlEscape(c, out);
    else
      out->push_back(ch);
  }
  out->push_back('"');
}

// The values of a walk as babeltrace2's text sink prints them: "{ name = value, … }",
// arrays as "[ [0] = v, … ]", enums as "( "label" : container = 3 )".
class TextFields final : public ctf::FieldVisitor {
 public:
  explicit TextFields(Line* out) : out_(out) {}

  void BeginStruct(size_t) override { *out_ += "{ "sv; }
  void Member(size_t index, std::string_view name) override {
    if (index) *out_ += ", "sv;
    *out_ += name;
    *out_ += " = "sv;
  }
  void EndStruct(size_t num_members) override { *out_ += num_members ? " }"sv : "}"sv; }
  // The chosen option's value, without its name.
  void BeginVariant(std::string_view) override { *out_ += "{ "sv; }
  void EndVariant() override { *out_ += " }"sv; }
  void UnknownOption() override { *out_ += "<unknown option>"sv; }
  void BeginArray(uint64_t) override { *out_ += "[ "sv; }
  void Element(uint64_t index) override {
    if (index) *out_ += ", "sv;
    out_->push_back('[');
    AppendDecimal(index, out_);
    *out_ += "] = "sv;
  }
  void ElementsCut(uint64_t index) override { *out_ += index ? ", ..."sv : "..."sv; }
  void EndArray(uint64_t length) override { *out_ += length ? " ]"sv : "]"sv; }
  void Integer(const ctf::IntegerValue& v) override { Number(v); }
  void Enum(const ctf::IntegerValue& v, std::span<const std::string* const> labels) override {
    // babeltrace2 2.0.4: every matching label in declaration order, comma-separated, each
    // escaped as a string is (checked on a live LTTng-UST trace).
    *out_ += "( "sv;
    if (labels.empty()) *out_ += "<unknown>"sv;
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) *out_ += ", "sv;
      AppendTextString(*labels[i], out_);
    }
    *out_ += " : container = "sv;
    Number(v);
    *out_ += " )"sv;
  }
  void Float(double v) override { *out_ += fmt::format("{:g}", v); }
  void Text(std::string_view text) override { AppendTextString(text, out_); }
  void Absent() override { *out_ += "<absent>"sv; }

 private:
  void Number(const ctf::IntegerValue& v) {
    // A negative value in base 16 or 8 shows its two's complement on the field size rounded
    // up to whole digits, as babeltrace2 does (-1 in 13 bits is 0xFFFF).
    auto digits_mask = [&](unsigned digit_bits) {
      const unsigned rounded = (v.size_bits + digit_bits - 1) / digit_bits * digit_bits;
      const uint64_t u = v.is_signed ? static_cast<uint64_t>(v.value) : v.bits;
      return rounded >= 64 ? u : u & ((uint64_t{1} << rounded) - 1);
    };
    if (v.base == 16)
      AppendHexUpper(digits_mask(4), out_);
    else if (v.base == 8)
      *out_ += fmt::format("0{:o}", digits_mask(3));
    else if (v.base == 2)
      *out_ += fmt::format("0b{:0{}b}", v.bits, v.size_bits);
    else if (v.is_signed)
      AppendDecimal(v.value, out_);
    else
      AppendDecimal(v.bits, out_);
  }
  Line* out_;
};

// The values of a walk as JSON: structs as objects, a variant as an object holding its
// chosen option, arrays as arrays, numbers in decimal, enums as {"label":…,"value":…}.
class JsonFields final : public ctf::FieldVisitor {
 public:
  explicit JsonFields(Line* out) : out_(out) {}

  void BeginStruct(size_t) override { out_->push_back('{'); }
  void Member(size_t index, std::string_view name) override {
    if (index) out_->push_back(',');
    AppendJsonText(out_, name);
    out_->push_back(':');
  }
  void EndStruct(size_t) override { out_->push_back('}'); }
  void BeginVariant(std::string_view option) override {
    out_->push_back('{');
    AppendJsonText(out_, option);
    out_->push_back(':');
  }
  void EndVariant() override { out_->push_back('}'); }
  void UnknownOption() override { *out_ += "null"sv; }
  void BeginArray(uint64_t) override { out_->push_back('['); }
  void Element(uint64_t index) override {
    if (index) out_->push_back(',');
  }
  // A JSON array cannot say that it was cut: the line counts what its arrays left out.
  void ElementsCut(uint64_t index) override { cut_from_ = index; }
  void EndArray(uint64_t length) override {
    out_->push_back(']');
    if (cut_from_ != UINT64_MAX) elements_cut_ += length - cut_from_;
    cut_from_ = UINT64_MAX;
  }
  uint64_t elements_cut() const { return elements_cut_; }
  void Integer(const ctf::IntegerValue& v) override { Number(v); }
  void Enum(const ctf::IntegerValue& v, std::span<const std::string* const> labels) override {
    *out_ += "{\"label\":"sv;
    if (labels.empty())
      *out_ += "null"sv;
    else
      AppendJsonText(out_, *labels[0]);
    *out_ += ",\"value\":"sv;
    Number(v);
    out_->push_back('}');
  }
  void Float(double v) override {
    if (std::isfinite(v))
      *out_ += fmt::format("{}", v);
    else
      *out_ += "null"sv;
  }
  void Text(std::string_view text) override { AppendJsonText(out_, text); }
  void Absent() override { *out_ += "null"sv; }

 private:
  void Number(const ctf::IntegerValue& v) {
    if (v.is_signed)
      AppendDecimal(v.value, out_);
    else
      AppendDecimal(v.bits, out_);
  }
  Line* out_;
  uint64_t cut_from_ = UINT64_MAX;  // ElementsCut's index in the array being ended
  uint64_t elements_cut_ = 0;
};

}  // namespace

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
  walker_.Start(e);
  TextFields fields(out);
  for (const ctf::Scope scope :
       {ctf::Scope::kStreamEventContext, ctf::Scope::kEventContext, ctf::Scope::kEventPayload}) {
    if (!ctf::FieldWalker::HasScope(e, scope)) continue;
    sep();
    walker_.WalkScope(scope, fields);
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
  walker_.Start(e);
  JsonFields fields(out);
  // The two context scopes' members, in one object.
  if (ctf::FieldWalker::HasScope(e, ctf::Scope::kStreamEventContext) ||
      ctf::FieldWalker::HasScope(e, ctf::Scope::kEventContext)) {
    *out += ",\"context\":{"sv;
    const size_t next = walker_.WalkMembers(ctf::Scope::kStreamEventContext, fields);
    walker_.WalkMembers(ctf::Scope::kEventContext, fields, next);
    *out += "}"sv;
  }
  *out += ",\"fields\":"sv;
  if (ctf::FieldWalker::HasScope(e, ctf::Scope::kEventPayload))
    walker_.WalkScope(ctf::Scope::kEventPayload, fields);
  else
    *out += "{}"sv;
  if (fields.elements_cut() > 0) {
    *out += ",\"elements_cut\":"sv;
    AppendDecimal(fields.elements_cut(), out);
  }
  *out += "}"sv;
}

}  // namespace causeway::report
