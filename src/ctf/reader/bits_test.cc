// FindNul against memchr on every position and length that crosses its inline words.
#include "ctf/reader/bits.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace causeway::ctf {
namespace {

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
