// ReadRawBits, ReadRawBitsInline and the read through a ScalarRef against a bit-by-bit
// reading of the CTF rules, and FindNul against memchr, on every position and length that
// crosses their fast paths.
#include "ctf/reader/bits.h"

#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ctf/reader/event.h"
#include "ctf/reader/field_ref.h"

namespace causeway::ctf {
namespace {

// The field of `size` bits at bit `pos`, one bit at a time: little endian numbers a byte's
// bits from the least significant and takes the first bit as the value's lowest; big endian
// numbers them from the most significant and takes the first bit as the value's highest.
uint64_t BitByBit(const std::vector<uint8_t>& bytes, uint64_t pos, unsigned size, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) {
    const uint64_t k = pos + i;
    const unsigned bit = big ? 7 - k % 8 : k % 8;
    const uint64_t b = (bytes[k / 8] >> bit) & 1;
    v = big ? (v << 1) | b : v | (b << i);
  }
  return v;
}

TEST(ReadRawBits, AgreesWithBitByBitReadingEverywhere) {
  std::mt19937_64 rng(7);
  for (size_t len : {size_t{1}, size_t{5}, size_t{9}, size_t{24}}) {
    std::vector<uint8_t> bytes(len);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    // `end` is the end of the bytes: the reader must not load past it, which ASan checks.
    for (bool big : {false, true}) {
      for (unsigned size = 1; size <= 64; ++size) {
        for (uint64_t pos = 0; pos + size <= len * 8; ++pos) {
          const ScalarDesc d{.size_bits = static_cast<uint8_t>(size), .big_endian = big};
          ASSERT_EQ(ReadRawBits(bytes.data(), bytes.data() + len, pos, d),
                    BitByBit(bytes, pos, size, big))
              << (big ? "big" : "little") << " endian, " << size << " bits at bit " << pos << " of "
              << len << " bytes";
          ASSERT_EQ(ReadRawBitsInline(bytes.data(), bytes.data() + len, pos, d),
                    BitByBit(bytes, pos, size, big))
              << "inline, " << (big ? "big" : "little") << " endian, " << size << " bits at bit "
              << pos << " of " << len << " bytes";
        }
      }
    }
  }
}

// Event::GetUnsigned(const ScalarRef&) takes its inline path from the test and mask that
// ScalarRefOf works out once; every size, shift, byte order and distance to the end.
TEST(ReadRawBits, ScalarRefReadsTheSameEverywhere) {
  std::mt19937_64 rng(11);
  Type integer;
  integer.kind = TypeKind::kInteger;
  constexpr int kPayload = static_cast<int>(Scope::kEventPayload);
  const uint64_t anchor = 0;
  for (size_t len : {size_t{1}, size_t{5}, size_t{9}, size_t{24}}) {
    std::vector<uint8_t> bytes(len);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    Event e;
    e.data = bytes.data();
    e.data_end = bytes.data() + len;
    e.slots[kPayload] = &anchor;
    for (bool big : {false, true}) {
      for (unsigned size = 1; size <= 64; ++size) {
        for (uint64_t pos = 0; pos + size <= len * 8; ++pos) {
          PlanNode node;
          node.type = &integer;
          node.scalar = ScalarDesc{.size_bits = static_cast<uint8_t>(size), .big_endian = big};
          node.loc =
              FieldLoc{.scope = Scope::kEventPayload, .offset_bits = static_cast<uint32_t>(pos)};
          const auto ref = ScalarRefOf(node);
          ASSERT_TRUE(ref.has_value());
          ASSERT_EQ(e.GetUnsigned(*ref), BitByBit(bytes, pos, size, big))
              << (big ? "big" : "little") << " endian, " << size << " bits at bit " << pos << " of "
              << len << " bytes";
        }
      }
    }
  }
}

TEST(FindNul, AgreesWithMemchrEverywhere) {
  // Bytes that trip naive zero-byte tricks: 0x80, 0xff, 0x01 (borrows), and text.
  const uint8_t fill[] = {0x80, 0xff, 0x01, 'a', 0x7f, 0x81};
  for (uint8_t f : fill) {
    for (size_t len = 0; len <= 72; ++len) {
      for (size_t nul = 0; nul <= len; ++nul) {  // nul == len: no NUL in range
        std::vector<uint8_t> buf(len + 1, f);
        if (nul < len) buf[nul] = 0;
        if (nul + 1 < len) buf[nul + 1] = 0x01;  // a borrow source right after the NUL
        const void* want = std::memchr(buf.data(), 0, len);
        ASSERT_EQ(FindNul(buf.data(), len), want)
            << "fill " << int{f} << " len " << len << " nul " << nul;
      }
    }
  }
}

TEST(FindNul, StopsAtTheRangeEvenWhenANulFollows) {
  const uint8_t s[16] = {'l', 'o', 'o', 'p', 'b', 'a', 'c', 'k', 'x', 0};
  EXPECT_EQ(FindNul(s, 9), nullptr);
  EXPECT_EQ(FindNul(s, 10), s + 9);
  EXPECT_EQ(FindNul(s, 0), nullptr);
}

}  // namespace
}  // namespace causeway::ctf
