#include "state/state_format.h"

#include <zlib.h>

namespace causeway::state::format {

uint32_t Crc32(uint32_t crc, const void* data, size_t bytes) {
  const auto* p = static_cast<const Bytef*>(data);
  // zlib takes a 32-bit length.
  while (bytes > 0) {
    const uInt chunk = bytes > (1u << 30) ? (1u << 30) : static_cast<uInt>(bytes);
    crc = static_cast<uint32_t>(crc32(crc, p, chunk));
    p += chunk;
    bytes -= chunk;
  }
  return crc;
}

}  // namespace causeway::state::format
