#include "requests/trace_context.h"

#include <string>
#include <vector>

#include "spans/hex_ids.h"

namespace causeway::requests {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Up to `max` parts of `s` split at `sep`; the last part keeps the rest.
std::vector<std::string_view> Split(std::string_view s, char sep, size_t max) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max) {
    const size_t at = s.find(sep);
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  parts.push_back(s);
  return parts;
}

std::optional<TraceContext> Make(std::string_view trace, std::string_view span) {
  TraceContext c;
  if (!spans::ParseTraceIdHex(trace, &c.trace) || !spans::ParseHex(span, &c.span_id) ||
      c.span_id == 0)
    return std::nullopt;
  return c;
}

}  // namespace

std::optional<TraceContext> ParseTraceparent(std::string_view header) {
  const auto p = Split(Trim(header), '-', 5);
  if (p.size() < 4 || p[0].size() != 2 || p[1].size() != 32 || p[2].size() != 16 || p[3].size() < 2)
    return std::nullopt;
  uint64_t version = 0;
  if (!spans::ParseHex(p[0], &version) || version == 0xff) return std::nullopt;
  // Version 00 has exactly four fields; a later version's extra fields follow the flags.
  if (version == 0 && (p.size() != 4 || p[3].size() != 2)) return std::nullopt;
  return Make(p[1], p[2]);
}

std::optional<TraceContext> ParseB3(std::string_view header) {
  const auto p = Split(Trim(header), '-', 4);
  if (p.size() < 2 || (p[0].size() != 16 && p[0].size() != 32) || p[1].size() != 16)
    return std::nullopt;
  return Make(p[0], p[1]);
}

std::optional<TraceContext> ParseUberTraceId(std::string_view header) {
  std::string text(Trim(header));
  for (size_t at; (at = text.find("%3A")) != std::string::npos ||
                  (at = text.find("%3a")) != std::string::npos;)
    text.replace(at, 3, ":");
  const auto p = Split(text, ':', 4);
  if (p.size() != 4) return std::nullopt;
  return Make(p[0], p[1]);
}

std::optional<TraceContext> ParseTraceContext(std::string_view traceparent, std::string_view b3,
                                              std::string_view uber_trace_id) {
  if (!traceparent.empty())
    if (auto c = ParseTraceparent(traceparent)) return c;
  if (!b3.empty())
    if (auto c = ParseB3(b3)) return c;
  if (!uber_trace_id.empty()) return ParseUberTraceId(uber_trace_id);
  return std::nullopt;
}

}  // namespace causeway::requests
