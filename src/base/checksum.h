// A 64-bit checksum of a byte stream, to tell a damaged or cut file from a whole one (not a
// defence against someone who forges files: the readers check every count and index
// anyway). Four independent multiply-rotate lanes over 32-byte blocks, so that it runs at
// memory speed: a cache file is checked on every load, and the check must cost far less
// than re-reading the trace it replaces. Fed in any pieces, it gives the same value as fed
// at once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace causeway {

class Checksum64 {
 public:
  void Update(const void* data, size_t n);
  uint64_t Digest() const;

  static uint64_t Of(const void* data, size_t n) {
    Checksum64 c;
    c.Update(data, n);
    return c.Digest();
  }

 private:
  static constexpr size_t kBlock = 32;
  void Blocks(const uint8_t* p, size_t blocks);

  uint64_t lane_[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                       0x27D4EB2F165667C5ull};
  uint8_t tail_[kBlock] = {};
  size_t tail_size_ = 0;
  uint64_t total_ = 0;
};

}  // namespace causeway
