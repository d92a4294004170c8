// W3C Trace Context: the traceparent header.
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "causeway/client.h"

namespace causeway::client {
namespace {

// Lower-case hex only: W3C forbids upper case in traceparent.
std::optional<uint64_t> ParseHex(std::string_view s) {
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

std::string FormatTraceparent(const SpanContext& c) {
  return fmt::format("00-{:016x}{:016x}-{:016x}-{:02x}", c.trace_id_high, c.trace_id_low, c.span_id,
                     c.flags);
}

std::optional<SpanContext> ParseTraceparent(std::string_view v) {
  // version(2) "-" trace id(32) "-" parent id(16) "-" flags(2); a later version may append
  // "-" and more fields, which this version ignores.
  if (v.size() < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-') return std::nullopt;
  const std::string_view version = v.substr(0, 2);
  if (version == "ff") return std::nullopt;
  if (version == "00" ? v.size() != 55 : (v.size() > 55 && v[55] != '-')) return std::nullopt;
  auto ver = ParseHex(version);
  auto high = ParseHex(v.substr(3, 16));
  auto low = ParseHex(v.substr(19, 16));
  auto span = ParseHex(v.substr(36, 16));
  auto flags = ParseHex(v.substr(53, 2));
  if (!ver || !high || !low || !span || !flags) return std::nullopt;
  SpanContext c{*high, *low, *span, static_cast<uint8_t>(*flags)};
  if (!c.valid()) return std::nullopt;
  return c;
}

}  // namespace causeway::client
