// read_pixels_npy: the [H, W, 3] uint8 / float32 arrays `--pixels` takes, and one clear error per
// kind of bad file. The .npy bytes are written here by hand, as numpy.save lays them out.
#include <gtest/gtest.h>

#include <cstring>

#include "image_test_support.h"
#include "saguaro/image/pixels_npy.h"

namespace saguaro::image {
namespace {

using test::Bytes;

/// A version 1.0 .npy with the given header dict and data bytes (the dict padded as numpy pads it).
Bytes npy(std::string dict, const Bytes& data, uint8_t major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict.push_back(' ');
  dict.push_back('\n');
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  for (size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<uint8_t>(dict.size() >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

PixelsNpy read(const Bytes& bytes) { return read_pixels_npy_memory(bytes.data(), bytes.size(), "p.npy"); }

TEST(PixelsNpy, ReadsUint8AndFloat32) {
  const Bytes u8 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const PixelsNpy a = read(npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 3), }", u8));
  EXPECT_FALSE(a.is_float);
  EXPECT_EQ(a.height, 2);
  EXPECT_EQ(a.width, 2);
  EXPECT_EQ(a.uint8.pixels, std::vector<uint8_t>(u8.begin(), u8.end()));

  const float values[6] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 0.125f};
  Bytes f32(sizeof values);
  std::memcpy(f32.data(), values, sizeof values);
  // Version 2 headers and keys in another order are numpy's too.
  const PixelsNpy b = read(npy("{'shape': (1, 2, 3), 'fortran_order': False, 'descr': '<f4'}", f32, 2));
  EXPECT_TRUE(b.is_float);
  EXPECT_EQ(b.width, 2);
  EXPECT_EQ(b.float32, std::vector<float>(values, values + 6));

  const std::string path = test::temp_path("pixels.npy");
  test::write_bytes(path, npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 3), }", u8));
  EXPECT_EQ(read_pixels_npy(path).uint8.pixels[11], 12);
}

/// Each bad file fails with "p.npy: ..." on one line.
TEST(PixelsNpy, BadFilesNameTheFileAndProblem) {
  const Bytes twelve(12, 7);
  const std::pair<Bytes, const char*> cases[] = {
      {Bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, "not a .npy file"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 3), }", twelve, 4), "version 4"},
      {Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 200, 0, '{'}, "truncated in its header"},
      {npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 3), }", twelve), "dtype '<f8' is not supported"},
      {npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1, 3), }", twelve), "dtype '>f4'"},
      {npy("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 3), }", twelve), "Fortran order"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4, 3), }", twelve), "not an [H, W, 3] image"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 3, 4), }", twelve), "not an [H, W, 3] image"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4, 3), }", {}), "not an [H, W, 3] image"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, x, 3), }", twelve), "not a tuple of integers"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 3), }", Bytes(11, 7)),
       "holds 11 data bytes, its shape needs 12"},
      {npy("{'descr': '|u1', 'fortran_order': False, 'shape': (20000, 20000, 3), }", twelve),
       "image is 20000x20000 pixels, above the limit of 67108864"},
      {npy("{'descr': '|u1', 'fortran_order': False}", twelve), "header has no shape"},
  };
  for (const auto& [bytes, want] : cases) {
    const std::string message = test::image_error([&] { read(bytes); }, "p.npy");
    EXPECT_NE(message.find(want), std::string::npos) << want << " → " << message;
  }
}

}  // namespace
}  // namespace saguaro::image
