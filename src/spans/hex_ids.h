// Trace and span ids written as hex digits (OTLP JSON, Jaeger JSON), shared by the DOM
// reader and the On-Demand fast path of span_reader.cc.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "spans/span_model.h"

namespace causeway::spans {

// Hex digit values by character; 0xff for any other character.
inline constexpr std::array<uint8_t, 256> kHexValue = [] {
  std::array<uint8_t, 256> t{};
  t.fill(0xff);
  for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<uint8_t>(c);
  for (int c = 0; c < 6; ++c) {
    t['a' + c] = static_cast<uint8_t>(10 + c);
    t['A' + c] = static_cast<uint8_t>(10 + c);
  }
  return t;
}();

// Reads up to 16 hex digits (any case); false when empty, longer or with other characters.
// A table lookup per digit, the check folded into one OR: every span has 48 digits of ids.
inline bool ParseHex(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  uint8_t bad = 0;
  for (char c : s) {
    const uint8_t d = kHexValue[static_cast<unsigned char>(c)];
    bad |= d;
    v = v << 4 | (d & 0xf);
  }
  if (bad & 0xf0) return false;
  *out = v;
  return true;
}

// A trace id of 1 to 32 hex digits (OTLP and Jaeger write 32; Jaeger also writes 64-bit
// ids as 16), not all zeros.
inline bool ParseTraceIdHex(std::string_view s, TraceId* out) {
  if (s.empty() || s.size() > 32) return false;
  const size_t split = s.size() > 16 ? s.size() - 16 : 0;
  uint64_t high = 0, low = 0;
  if ((split && !ParseHex(s.substr(0, split), &high)) || !ParseHex(s.substr(split), &low))
    return false;
  if ((high | low) == 0) return false;
  *out = {high, low};
  return true;
}

}  // namespace causeway::spans
