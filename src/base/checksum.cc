#include "base/checksum.h"

#include <cstring>

namespace causeway {

namespace {
constexpr uint64_t kMulA = 0x9E3779B185EBCA87ull;
constexpr uint64_t kMulB = 0xC2B2AE3D27D4EB4Full;

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Mix(uint64_t lane, uint64_t word) { return Rotl(lane + word * kMulB, 31) * kMulA; }
inline uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kMulB;
  h ^= h >> 29;
  h *= kMulA;
  h ^= h >> 32;
  return h;
}
}  // namespace

void Checksum64::Blocks(const uint8_t* p, size_t blocks) {
  uint64_t a = lane_[0], b = lane_[1], c = lane_[2], d = lane_[3];
  for (size_t i = 0; i < blocks; ++i, p += kBlock) {
    a = Mix(a, Load64(p));
    b = Mix(b, Load64(p + 8));
    c = Mix(c, Load64(p + 16));
    d = Mix(d, Load64(p + 24));
  }
  lane_[0] = a, lane_[1] = b, lane_[2] = c, lane_[3] = d;
}

void Checksum64::Update(const void* data, size_t n) {
  // An empty vector's data() may be null, which memcpy must not be given even for 0 bytes.
  if (n == 0) return;
  const auto* p = static_cast<const uint8_t*>(data);
  total_ += n;
  if (tail_size_) {
    const size_t take = n < kBlock - tail_size_ ? n : kBlock - tail_size_;
    std::memcpy(tail_ + tail_size_, p, take);
    tail_size_ += take;
    p += take;
    n -= take;
    if (tail_size_ < kBlock) return;
    Blocks(tail_, 1);
    tail_size_ = 0;
  }
  Blocks(p, n / kBlock);
  p += n / kBlock * kBlock;
  n %= kBlock;
  std::memcpy(tail_, p, n);
  tail_size_ = n;
}

uint64_t Checksum64::Digest() const {
  uint64_t h = Rotl(lane_[0], 1) + Rotl(lane_[1], 7) + Rotl(lane_[2], 12) + Rotl(lane_[3], 18);
  h = Mix(h, total_);
  // The tail a byte at a time, each folded in with its position, so that trailing zero
  // bytes change the value.
  for (size_t i = 0; i < tail_size_; ++i) h = Mix(h, (uint64_t{tail_[i]} << 8) | i);
  return Avalanche(h);
}

}  // namespace causeway
