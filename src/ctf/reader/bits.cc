#include "ctf/reader/bits.h"

namespace causeway::ctf {

uint64_t ReadRawBitsOutOfLine(const uint8_t* base, const uint8_t* end, uint64_t bit_pos,
                              const ScalarDesc& d) {
  return ReadRawBits(base, end, bit_pos, d);
}

}  // namespace causeway::ctf
