// read_npy (saguaro/npy_reader.h): what numpy writes reads back; every other file is refused in one line naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "saguaro/npy_reader.h"
#include "saguaro/npy_writer.h"
#include "test_util.h"

namespace {
/// A version-1 .npy with this header dict (padded as numpy pads it) and these data bytes.
std::string npy(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

std::string refusal(const std::string& bytes) {
  const std::string path = saguaro::test::make_temp_dir() + "/x.npy";
  saguaro::test::write_file(path, bytes);
  saguaro::NpyArray a;
  std::string err;
  EXPECT_FALSE(saguaro::read_npy(path, &a, &err));
  return err.substr(err.find(": ") + 2);
}
}  // namespace

TEST(NpyReader, ReadsWhatTheWriterWrites) {
  const std::string path = saguaro::test::make_temp_dir() + "/m.npy";
  std::string err;
  ASSERT_TRUE(saguaro::write_npy_f32(path, {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f}, 2, 3, &err)) << err;
  saguaro::NpyArray a;
  ASSERT_TRUE(saguaro::read_npy(path, &a, &err)) << err;
  EXPECT_EQ(a.dtype, "<f4");
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(a.as<float>(), (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f}));
}

TEST(NpyReader, ReadsInt32AndUint8) {
  const int32_t v[4] = {1, -2, 3, 1 << 20};
  const std::string path = saguaro::test::make_temp_dir() + "/i.npy";
  saguaro::test::write_file(path, npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                                      std::string(reinterpret_cast<const char*>(v), sizeof v)));
  saguaro::NpyArray a;
  std::string err;
  ASSERT_TRUE(saguaro::read_npy(path, &a, &err)) << err;
  EXPECT_EQ(a.as<int32_t>(), (std::vector<int32_t>{1, -2, 3, 1 << 20}));
  saguaro::test::write_file(path, npy("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "abc"));
  ASSERT_TRUE(saguaro::read_npy(path, &a, &err)) << err;
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{'a', 'b', 'c'}));
}

TEST(NpyReader, RefusesWhatItCannotRead) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(refusal("not an array"), "not a .npy file");
  EXPECT_EQ(refusal(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'))),
            ".npy dtype '<f8' is not supported (float32 '<f4', int32 '<i4' or uint8 '|u1')");
  EXPECT_EQ(refusal(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0'))),
            ".npy must be in C order");
  EXPECT_EQ(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "")),
            ".npy shape is not a tuple of integers");
  EXPECT_EQ(refusal(npy(f4, std::string(4, '\0'))), ".npy is truncated: its shape needs 8 data bytes");
  EXPECT_EQ(refusal(npy(f4, std::string(12, '\0'))), ".npy has data past what its shape holds");
  EXPECT_EQ(refusal(npy(f4, "").substr(0, 30)), ".npy is truncated in its header");
}
