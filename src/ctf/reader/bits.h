// Reading CTF scalars at arbitrary bit positions.
//
// CTF numbers bits within a byte from the least significant bit for little-endian fields
// and from the most significant bit for big-endian ones. Little-endian fields that end
// within the 8 bytes from their first byte, and byte-aligned big-endian ones of 8, 16, 32 or
// 64 bits, take a single load; other fields go through a 64-bit window, and the last bytes
// of the mapping byte by byte, so we never read past it.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "ctf/plan/decode_plan.h"

static_assert(std::endian::native == std::endian::little,
              "the decoder assumes a little-endian host");

namespace causeway::ctf {

inline uint64_t LoadLe64Safe(const uint8_t* p, const uint8_t* end) {
  if (end - p >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  uint64_t v = 0;
  for (int i = 0; p + i < end; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

inline uint64_t LoadBe64Safe(const uint8_t* p, const uint8_t* end) {
  return __builtin_bswap64(LoadLe64Safe(p, end));
}

// A little-endian field of 8, 16, 32 or 64 bits starting at byte `p`: one load. False for
// any other size.
inline bool LoadAlignedLe(const uint8_t* p, unsigned size_bits, uint64_t* out) {
  switch (size_bits) {
    case 8:
      *out = *p;
      return true;
    case 16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      *out = v;
      return true;
    }
    case 32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      *out = v;
      return true;
    }
    case 64: {
      std::memcpy(out, p, 8);
      return true;
    }
    default:
      return false;
  }
}

// Raw bits of a scalar, zero-extended (no sign extension). The caller guarantees the field
// lies inside [base, end).
inline uint64_t ReadRawBits(const uint8_t* base, const uint8_t* end, uint64_t bit_pos,
                            const ScalarDesc& d) {
  const uint8_t* p = base + (bit_pos >> 3);
  const unsigned shift = bit_pos & 7;
  const unsigned size = d.size_bits;
  // Little endian within one 8-byte window, the common case: one load, a shift and a mask,
  // whatever the size. A switch on the size (one load per power of two) mispredicted
  // whenever events of different layouts alternate.
  if (!d.big_endian && shift + size <= 64 && end - p >= 8) [[likely]] {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return (w >> shift) & ((uint64_t{2} << ((size - 1) & 63)) - 1);
  }
  if (shift == 0 && d.big_endian) {
    switch (size) {
      case 8:
        return *p;
      case 16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return __builtin_bswap16(v);
      }
      case 32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return __builtin_bswap32(v);
      }
      case 64: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return __builtin_bswap64(v);
      }
      default:
        break;
    }
  }
  const uint64_t mask = size == 64 ? ~uint64_t{0} : (uint64_t{1} << size) - 1;
  if (!d.big_endian) {
    uint64_t v = LoadLe64Safe(p, end) >> shift;
    if (shift + size > 64) v |= uint64_t{p[8]} << (64 - shift);
    return v & mask;
  }
  // Big endian: the field's first bit is the most significant bit of the window.
  uint64_t w = LoadBe64Safe(p, end);
  if (shift + size <= 64) return (w >> (64 - shift - size)) & mask;
  const unsigned extra = shift + size - 64;  // bits taken from the ninth byte
  uint64_t hi = (w << shift) >> (64 - (size - extra));
  return ((hi << extra) | (uint64_t{p[8]} >> (8 - extra))) & mask;
}

// ReadRawBits, called: its rare cases, out of line for ReadRawBitsInline.
uint64_t ReadRawBitsOutOfLine(const uint8_t* base, const uint8_t* end, uint64_t bit_pos,
                              const ScalarDesc& d);

// ReadRawBits with its common case (little endian within one 8-byte window) inline and the
// others called, for loops reading many fields.
[[gnu::always_inline]] inline uint64_t ReadRawBitsInline(const uint8_t* base, const uint8_t* end,
                                                         uint64_t bit_pos, const ScalarDesc& d) {
  const uint8_t* p = base + (bit_pos >> 3);
  const unsigned shift = bit_pos & 7;
  if (!d.big_endian && shift + d.size_bits <= 64 && end - p >= 8) [[likely]] {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return (w >> shift) & ((uint64_t{2} << ((d.size_bits - 1) & 63)) - 1);
  }
  return ReadRawBitsOutOfLine(base, end, bit_pos, d);
}

// The first NUL byte in [s, s + avail), or nullptr. Trace strings are short (device and
// task names, addresses): the first 32 bytes are scanned 8 at a time inline, which spares
// memchr's call and setup for them; longer strings go on with memchr.
inline const uint8_t* FindNul(const uint8_t* s, uint64_t avail) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  uint64_t i = 0;
  for (; i + 8 <= avail && i < 32; i += 8) {
    uint64_t v;
    std::memcpy(&v, s + i, 8);
    // A byte of (v - 1s) & ~v has its high bit set at the first zero byte (and maybe after).
    const uint64_t zero = (v - kOnes) & ~v & kHighs;
    if (zero) return s + i + (std::countr_zero(zero) >> 3);
  }
  return static_cast<const uint8_t*>(std::memchr(s + i, 0, avail - i));
}

inline int64_t SignExtend(uint64_t v, unsigned size) {
  if (size == 64) return static_cast<int64_t>(v);
  const uint64_t m = uint64_t{1} << (size - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

inline double BitsToDouble(uint64_t raw, unsigned size) {
  if (size == 32) return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(raw)));
  return std::bit_cast<double>(raw);
}

}  // namespace causeway::ctf
