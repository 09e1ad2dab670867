// XXH64 against published test vectors.
#include "saguaro/xxh64.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>


namespace saguaro {
namespace {

TEST(Xxh64, PublishedVectors) {
  EXPECT_EQ(xxh64("", 0, 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(xxh64("a", 1, 0), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(xxh64("abc", 3, 0), 0x44BC2CF5AD770999ULL);
  const std::string fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(xxh64(fox.data(), fox.size(), 0), 0x0B242D361FDA71BCULL);
}

TEST(Xxh64, LongInputAndSeedFromReferenceSanityBuffer) {
  // xxHash's own sanity test: buffer of 2654435761-multiplicative bytes (xxhsum's SANITY_BUFFER).
  std::vector<unsigned char> buf(2367);
  uint64_t byte_gen = 2654435761U;
  for (auto& b : buf) {
    b = static_cast<unsigned char>(byte_gen >> 56);
    byte_gen *= 11400714785074694797ULL;
  }
  EXPECT_EQ(xxh64(buf.data(), 0, 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(xxh64(buf.data(), 1, 0), 0xE934A84ADB052768ULL);
  EXPECT_EQ(xxh64(buf.data(), 1, 2654435761U), 0x5014607643A9B4C3ULL);
  EXPECT_EQ(xxh64(buf.data(), 14, 0), 0x8282DCC4994E35C8ULL);
  EXPECT_EQ(xxh64(buf.data(), 222, 0), 0xB641AE8CB691C174ULL);
}

TEST(Xxh64, PiecesEqualTheWhole) {
  // Every cut of the input into two or three pieces, across the 32-byte stripes, gives the one-shot hash.
  std::vector<unsigned char> buf(203);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(i * 131 + 7);
  for (size_t len : {size_t{0}, size_t{5}, size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{100}, buf.size()}) {
    const uint64_t whole = xxh64(buf.data(), len, 99);
    for (size_t a = 0; a <= len; ++a)
      for (size_t b = a; b <= len; b += 7) {
        Xxh64 h(99);
        h.update(buf.data(), a);
        h.update(buf.data() + a, b - a);
        h.update(buf.data() + b, len - b);
        ASSERT_EQ(h.digest(), whole) << "len " << len << " cuts " << a << ", " << b;
      }
  }
}

}  // namespace
}  // namespace saguaro
