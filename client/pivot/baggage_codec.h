// The wire form of Baggage, carried between processes in the HTTP header `causeway-baggage`
// beside `traceparent`.
//
// Binary, version 1 (all counts and lengths are LEB128 varints):
//   u8 version=1, count bags, then per bag: key (length, bytes), u8 flags (bit 0: overflow),
//   count tuples, per tuple: count values, per value: u8 type then
//   int: zigzag varint | double: 8 bytes little-endian | bool: u8 | string: length, bytes |
//   null: nothing.
// The header value is that, base64url without padding. An empty baggage encodes to zero
// bytes (no header at all). Encoding trims to a byte budget: the oldest tuples of the
// fullest bags go first, and their bags are marked overflowed. Decoding rejects anything
// malformed with a DataLoss status naming the offset; it never reads out of bounds and
// allocates at most in proportion to the input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "pivot/baggage.h"

namespace causeway::pivot {

inline constexpr std::string_view kBaggageHeader = "causeway-baggage";
inline constexpr uint8_t kBaggageVersion = 1;
inline constexpr size_t kDefaultMaxBaggageBytes = 4096;  // binary, before base64
inline constexpr size_t kMaxDecodedBaggageBytes = 64 * 1024;

// Binary form, trimmed to `max_bytes` (trimming modifies nothing but the output).
std::string EncodeBaggage(const Baggage& baggage, size_t max_bytes = kDefaultMaxBaggageBytes);
StatusOr<Baggage> DecodeBaggage(std::string_view bytes);

// Header value (base64url of the binary form); "" for an empty baggage.
std::string EncodeBaggageHeader(const Baggage& baggage, size_t max_bytes = kDefaultMaxBaggageBytes);
StatusOr<Baggage> DecodeBaggageHeader(std::string_view value);

// For an outgoing request: the header value of the thread's current baggage ("" when there
// is none or it is empty: then send no header).
std::string CurrentBaggageHeader(size_t max_bytes = kDefaultMaxBaggageBytes);
// For an incoming request: the baggage to install with BaggageScope (empty for an absent
// header). A malformed header gives an empty baggage and the error, never a crash.
std::shared_ptr<Baggage> BaggageFromHeader(std::string_view value, Status* error = nullptr);

std::string Base64UrlEncode(std::string_view bytes);
StatusOr<std::string> Base64UrlDecode(std::string_view text);

}  // namespace causeway::pivot
