// HugePageMemory: zero-filled, writable, huge-page aligned when large, cleared by clear(), owned by one object.
#include "huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace saguaro {
namespace {

constexpr uint64_t kHugePage = uint64_t{2} << 20;

bool all_zero(const HugePageMemory& m) {
  const auto* p = static_cast<const unsigned char*>(m.data());
  for (uint64_t i = 0; i < m.bytes(); ++i)
    if (p[i] != 0) return false;
  return true;
}

TEST(HugePageMemory, LargeMemoryStartsOnAHugePageAndReadsZero) {
  HugePageMemory m(3 * kHugePage + 12345);
  ASSERT_NE(m.data(), nullptr);
  EXPECT_EQ(m.bytes(), 3 * kHugePage + 12345);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % kHugePage, 0u);
  EXPECT_TRUE(all_zero(m));
}

TEST(HugePageMemory, SmallMemoryIsPageAlignedAndReadsZero) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, uint64_t{100000}, kHugePage - 1}) {
    HugePageMemory m(bytes);
    ASSERT_NE(m.data(), nullptr) << bytes;
    EXPECT_EQ(m.bytes(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % 4096, 0u) << bytes;
    EXPECT_TRUE(all_zero(m)) << bytes;
    EXPECT_FALSE(m.advised()) << bytes << ": ordinary pages are not advised";
  }
}

TEST(HugePageMemory, ClearZeroesWhatWasWritten) {
  for (uint64_t bytes : {uint64_t{5000}, kHugePage + 64}) {
    HugePageMemory m(bytes);
    auto* p = static_cast<unsigned char*>(m.data());
    p[0] = 1, p[bytes / 2] = 2, p[bytes - 1] = 3;
    EXPECT_FALSE(all_zero(m));
    m.clear();
    EXPECT_TRUE(all_zero(m)) << bytes;
  }
}

TEST(HugePageMemory, MovingHandsOverTheMemory) {
  HugePageMemory a(kHugePage);
  void* p = a.data();
  const bool advised = a.advised();
  static_cast<unsigned char*>(p)[7] = 9;
  HugePageMemory b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.bytes(), 0u);
  EXPECT_FALSE(a.advised());
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.advised(), advised);
  HugePageMemory c(4096);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(static_cast<unsigned char*>(c.data())[7], 9);
  EXPECT_EQ(c.bytes(), kHugePage);
}

}  // namespace
}  // namespace saguaro
