// XXH64 (Yann Collet's xxHash, 64-bit variant), header-only, portable C++17.
// The one implementation of the blob checksums: the compiler's blob writer and the runtime's loader both include it,
// so they cannot disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace saguaro {
namespace xxh64_detail {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads, independent of host byte order and alignment.
inline uint64_t read64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint32_t read32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline uint64_t round(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = rotl(acc, 31);
  return acc * kP1;
}

inline uint64_t merge_round(uint64_t acc, uint64_t val) {
  acc ^= round(0, val);
  return acc * kP1 + kP4;
}

}  // namespace xxh64_detail

/// XXH64 computed over bytes that arrive in pieces: update() with each piece in order, then digest(). The result
/// equals xxh64() of the concatenation whatever the cut (the loader hashes the blob's mapped section this way, a
/// chunk at a time, so that verifying it does not read it into memory).
class Xxh64 {
 public:
  explicit Xxh64(uint64_t seed = 0)
      : v_{seed + xxh64_detail::kP1 + xxh64_detail::kP2, seed + xxh64_detail::kP2, seed, seed - xxh64_detail::kP1},
        seed_(seed) {}

  void update(const void* data, size_t len) {
    using namespace xxh64_detail;
    const unsigned char* p = static_cast<const unsigned char*>(data);
    const unsigned char* const end = p + len;
    total_ += len;
    if (buffered_ > 0) {  // complete the stripe left over from the previous piece
      const size_t take = len < 32 - buffered_ ? len : 32 - buffered_;
      std::memcpy(buf_ + buffered_, p, take);
      buffered_ += take;
      p += take;
      if (buffered_ < 32) return;
      stripe(buf_);
      buffered_ = 0;
    }
    for (; end - p >= 32; p += 32) stripe(p);
    buffered_ = static_cast<size_t>(end - p);
    if (buffered_ > 0) std::memcpy(buf_, p, buffered_);
  }

  uint64_t digest() const {
    using namespace xxh64_detail;
    uint64_t h;
    if (total_ >= 32) {
      h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
      for (uint64_t v : v_) h = merge_round(h, v);
    } else {
      h = seed_ + kP5;
    }
    h += total_;
    const unsigned char* p = buf_;
    const unsigned char* const end = buf_ + buffered_;
    while (p + 8 <= end) {
      h ^= round(0, read64(p));
      h = rotl(h, 27) * kP1 + kP4;
      p += 8;
    }
    if (p + 4 <= end) {
      h ^= uint64_t(read32(p)) * kP1;
      h = rotl(h, 23) * kP2 + kP3;
      p += 4;
    }
    while (p < end) {
      h ^= (*p) * kP5;
      h = rotl(h, 11) * kP1;
      ++p;
    }
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

 private:
  void stripe(const unsigned char* p) {
    using xxh64_detail::read64;
    using xxh64_detail::round;
    v_[0] = round(v_[0], read64(p));
    v_[1] = round(v_[1], read64(p + 8));
    v_[2] = round(v_[2], read64(p + 16));
    v_[3] = round(v_[3], read64(p + 24));
  }

  uint64_t v_[4];
  uint64_t seed_;
  uint64_t total_ = 0;
  unsigned char buf_[32] = {};
  size_t buffered_ = 0;
};

/// XXH64 of `len` bytes at `data` with `seed`.
inline uint64_t xxh64(const void* data, size_t len, uint64_t seed = 0) {
  Xxh64 h(seed);
  h.update(data, len);
  return h.digest();
}

}  // namespace saguaro
