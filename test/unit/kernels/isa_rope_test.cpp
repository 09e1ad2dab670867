// ISA rope_f32 against the generic one: the same float operations per element, so bit for bit.
#include "isa_test_util.h"

namespace saguaro::kernels::test {
namespace {

template <int H, int HD, int Style, int Rotary = HD / 2>
void CheckRope() {
  for (int32_t rows : {1, 4}) {
    for (int32_t pos0 : {0, 7, 1000}) {
      for (float theta : {10000.0f, 1000000.0f}) {
        for (float pos_scale : {1.0f, 8.0f}) {
          // Llama 3 frequency scaling off (factor 0) and on, with a context of 64 so that every band occurs.
          for (float llama3 : {0.0f, 8.0f}) {
            SCOPED_TRACE(testing::Message() << "H " << H << " HD " << HD << " Style " << Style << " Rotary " << Rotary
                                            << " rows " << rows
                                            << " pos0 " << pos0 << " theta " << theta << " pos_scale " << pos_scale
                                            << " llama3 " << llama3);
            const auto x = RandomFloats(static_cast<size_t>(rows) * H * HD, 10 * H + HD + pos0, -2.0f, 2.0f);
            std::vector<float> want = x, got = x;
            generic::rope_f32<H, HD, Style, Rotary>(rows, pos0, want.data(), theta, pos_scale, llama3, 1.0f, 4.0f,
                                                    64.0f);
            isa::rope_f32<H, HD, Style, Rotary>(rows, pos0, got.data(), theta, pos_scale, llama3, 1.0f, 4.0f, 64.0f);
            ExpectBitEqual(got.data(), want.data(), want.size());
          }
        }
      }
    }
  }
}

template <int Style>
void CheckRopeShapes() {
  CheckRope<1, 2, Style>();
  CheckRope<3, 4, Style>();
  CheckRope<8, 8, Style>();
  CheckRope<2, 12, Style>();
  CheckRope<4, 16, Style>();
  CheckRope<3, 24, Style>();
  CheckRope<2, 64, Style>();
  CheckRope<8, 128, Style>();
  CheckRope<1, 256, Style>();
}

// Partial rotary (Gemma 4's proportional RoPE): rotated pair counts below, at and past a vector's width, and none.
template <int Style>
void CheckPartialRopeShapes() {
  CheckRope<2, 32, Style, 4>();
  CheckRope<1, 32, Style, 3>();
  CheckRope<2, 64, Style, 9>();
  CheckRope<1, 64, Style, 16>();
  CheckRope<1, 512, Style, 64>();  // E2B's full layers
  CheckRope<2, 16, Style, 0>();
}

TEST(IsaRope, PartialRotaryBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckPartialRopeShapes<0>();
  CheckPartialRopeShapes<1>();
}

TEST(IsaRope, InterleavedBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckRopeShapes<0>();
}

TEST(IsaRope, HalvesBitIdentical) {
  SAGUARO_REQUIRE_ISA();
  CheckRopeShapes<1>();
}

// The ISA kernels remember the last position's angles per thread (generic::rope_angles): a decode step's sequence
// of calls — q and k (other head counts) at one position, then the next position, a layer with another theta (Gemma's
// local and global layers), back to an earlier position — must each still equal the generic kernel.
TEST(IsaRope, RememberedAnglesFollowPositionAndParameters) {
  SAGUARO_REQUIRE_ISA();
  struct Call {
    int heads;
    int32_t pos;
    float theta;
  };
  const Call calls[] = {{4, 5, 10000.0f},   {2, 5, 10000.0f}, {4, 6, 10000.0f}, {4, 6, 1000000.0f},
                        {2, 6, 1000000.0f}, {4, 6, 10000.0f}, {2, 5, 10000.0f}, {4, 5, 10000.0f}};
  for (const Call& c : calls) {
    SCOPED_TRACE(testing::Message() << "heads " << c.heads << " pos " << c.pos << " theta " << c.theta);
    const auto x = RandomFloats(static_cast<size_t>(c.heads) * 64, c.pos + c.heads, -2.0f, 2.0f);
    std::vector<float> want = x, got = x;
    if (c.heads == 4) {
      generic::rope_f32<4, 64, 1>(1, c.pos, want.data(), c.theta, 1.0f);
      isa::rope_f32<4, 64, 1>(1, c.pos, got.data(), c.theta, 1.0f);
    } else {
      generic::rope_f32<2, 64, 1>(1, c.pos, want.data(), c.theta, 1.0f);
      isa::rope_f32<2, 64, 1>(1, c.pos, got.data(), c.theta, 1.0f);
    }
    ExpectBitEqual(got.data(), want.data(), want.size());
  }
}

TEST(IsaRope, KernelsHeaderSelectsIsa) { EXPECT_EQ((&kernels::rope_f32<2, 64, 0>), (&isa::rope_f32<2, 64, 0>)); }

}  // namespace
}  // namespace saguaro::kernels::test
