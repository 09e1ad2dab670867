// Bad inputs: each is refused with one line that names the file and the problem, and a lying
// header is refused before the decoder allocates anything.
#include <gtest/gtest.h>

#include "image_test_support.h"
#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"

namespace saguaro::image {
namespace {

using test::Bytes;

/// Decodes and returns the error message, failing the test when decoding succeeds or when the
/// message is not one line starting with `name`.
std::string decode_error(const Bytes& bytes, const std::string& name, const DecodeLimits& limits = {}) {
  return test::image_error([&] { decode_image_memory(bytes.data(), bytes.size(), name, limits); }, name);
}

std::string file_error(const std::string& path) {
  return test::image_error([&] { decode_image(path); }, path);
}

Bytes cut(Bytes bytes, size_t keep) {
  bytes.resize(keep);
  return bytes;
}

TEST(BadInput, PngClaiming100000x100000PixelsIsRefusedBeforeAnyAllocation) {
  const std::string path = test::temp_path("huge.png");
  test::write_bytes(path, test::make_png(100000, 100000, 2, 8, Bytes(1 + 3 * 16, 0)));
  reset_decoder_allocation_stats();
  const std::string message = file_error(path);
  EXPECT_NE(message.find("100000x100000"), std::string::npos) << message;
  EXPECT_NE(message.find("limit"), std::string::npos) << message;
  EXPECT_EQ(largest_decoder_allocation(), 0u);
}

TEST(BadInput, PixelCountLimitAppliesBelowTheSideLimit) {
  reset_decoder_allocation_stats();
  const std::string message = decode_error(test::make_png(30000, 30000, 0, 8, {0}), "big.png");
  EXPECT_NE(message.find("900000000 pixels, above the limit of 67108864"), std::string::npos) << message;
  EXPECT_EQ(largest_decoder_allocation(), 0u);
}

TEST(BadInput, LimitsAreConfigurable) {
  DecodeLimits small;
  small.max_side = 8;
  const std::string message = decode_error(test::make_png(9, 1, 0, 8, Bytes(10, 0)), "wide.png", small);
  EXPECT_NE(message.find("exceeds the limit of 8"), std::string::npos) << message;
}

TEST(BadInput, PngTooSmallToHoldItsPixelsIsRefusedBeforeAnyAllocation) {
  reset_decoder_allocation_stats();
  const std::string message = decode_error(test::make_png(4000, 4000, 2, 8, Bytes(100, 0)), "liar.png");
  EXPECT_NE(message.find("PNG is truncated"), std::string::npos) << message;
  EXPECT_EQ(largest_decoder_allocation(), 0u);
}

TEST(BadInput, TruncatedCraftedPng) {
  const Bytes png = test::make_png(16, 16, 2, 8, Bytes(16 * 49, 7));
  for (size_t keep : {size_t{8}, size_t{20}, size_t{40}, png.size() - 12, png.size() - 1}) {
    const std::string message = decode_error(cut(png, keep), "cut.png");
    EXPECT_NE(message.find("PNG is truncated"), std::string::npos) << keep << ": " << message;
  }
}

TEST(BadInput, TruncatedSharedPng) {
  const std::string path = test::shared_image("phototest.derived.png");
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/images";
  const Bytes png = test::read_bytes(path);
  const std::string message = decode_error(cut(png, png.size() / 2), "half.png");
  EXPECT_NE(message.find("PNG is truncated: chunk IDAT"), std::string::npos) << message;
}

TEST(BadInput, TruncatedSharedJpeg) {
  const std::string path = test::shared_image("dog.jpg");
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/images";
  const Bytes jpeg = test::read_bytes(path);
  for (size_t keep : {size_t{3}, size_t{100}, jpeg.size() / 2, jpeg.size() - 2}) {
    const std::string message = decode_error(cut(jpeg, keep), "cut.jpg");
    EXPECT_NE(message.find("JPEG is truncated"), std::string::npos) << keep << ": " << message;
  }
}

TEST(BadInput, JpegWithUnsupportedCodingOrNoHeight) {
  // SOI, SOF9 (arithmetic) 8-bit 1x1 one component, EOI.
  const Bytes arithmetic = {0xFF, 0xD8, 0xFF, 0xC9, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0, 0xFF, 0xD9};
  EXPECT_NE(decode_error(arithmetic, "arith.jpg").find("FFC9 is not supported"), std::string::npos);
  Bytes dnl = arithmetic;
  dnl[3] = 0xC0;
  dnl[7] = 0;
  dnl[8] = 0;  // height 0: given later by a DNL marker
  EXPECT_NE(decode_error(dnl, "dnl.jpg").find("DNL"), std::string::npos);
}

TEST(BadInput, FuzzFindingsInStbAreRefusedByTheMarkerWalk) {
  const std::pair<const char*, const char*> cases[] = {
      {"dht-1763-codes.jpg", "Huffman table (DHT) declares 1763 codes, at most 256 exist"},
      {"undefined-huffman-table.jpg", "Huffman table AC1 is used but not defined"},
      {"undefined-quantization-table.jpg", "quantization table 0 is used but not defined"},
  };
  for (const auto& [file, want] : cases) {
    const std::string path = std::string(SAGUARO_IMAGE_FIXTURES) + "/fuzz-regressions/" + file;
    EXPECT_NE(file_error(path).find(want), std::string::npos) << file;
  }
}

TEST(BadInput, JpegScanWithoutItsHuffmanTables) {
  Bytes jpeg = {0xFF, 0xD8, 0xFF, 0xDB, 0, 67, 0x00};
  jpeg.insert(jpeg.end(), 64, 1);  // DQT 0
  const Bytes sof = {0xFF, 0xC0, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0};
  const Bytes sos = {0xFF, 0xDA, 0, 8, 1, 1, 0x00, 0, 63, 0, 0x12, 0x34, 0xFF, 0xD9};
  jpeg.insert(jpeg.end(), sof.begin(), sof.end());
  jpeg.insert(jpeg.end(), sos.begin(), sos.end());
  EXPECT_NE(decode_error(jpeg, "nodht.jpg").find("Huffman table DC0 is used but not defined"), std::string::npos);
}

TEST(BadInput, ZeroLengthFile) {
  const std::string path = test::temp_path("empty.png");
  test::write_bytes(path, {});
  EXPECT_NE(file_error(path).find("empty file"), std::string::npos);
  EXPECT_NE(decode_error({}, "empty.jpg").find("empty file"), std::string::npos);
}

TEST(BadInput, NotAnImage) {
  const std::string path = test::temp_path("notes.png");
  test::write_bytes(path, Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_NE(file_error(path).find("not a PNG or JPEG file"), std::string::npos);
}

TEST(BadInput, BadCrcIsNamed) {
  Bytes png = test::make_png(4, 4, 0, 8, Bytes(20, 3));
  png[png.size() - 20] ^= 0x40;  // inside the IDAT data
  EXPECT_NE(decode_error(png, "crc.png").find("bad CRC in chunk IDAT"), std::string::npos);
}

TEST(BadInput, CorruptCompressedDataWithValidCrcs) {
  // A zlib stream whose first block uses the reserved block type 3.
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  const Bytes whole = test::make_png(4, 4, 0, 8, Bytes(20, 3));
  const Bytes ihdr(whole.begin() + 8, whole.begin() + 33);
  const Bytes idat = test::png_chunk("IDAT", {0x78, 0x01, 0x07, 0, 0, 0, 0}), iend = test::png_chunk("IEND", {});
  for (const Bytes* part : {&ihdr, &idat, &iend}) png.insert(png.end(), part->begin(), part->end());
  EXPECT_NE(decode_error(png, "zlib.png").find("cannot decode PNG"), std::string::npos);
}

TEST(BadInput, MissingFileAndDirectory) {
  EXPECT_NE(file_error(test::temp_path("absent.png")).find("cannot open"), std::string::npos);
  EXPECT_NE(file_error(::testing::TempDir()).find("not a regular file"), std::string::npos);
}

TEST(BadInput, FileAboveTheSizeLimit) {
  const std::string path = test::temp_path("big.png");
  test::write_bytes(path, Bytes(4096, 0));
  DecodeLimits limits;
  limits.max_file_bytes = 1000;
  try {
    decode_image(path, limits);
    ADD_FAILURE() << "decoded";
  } catch (const ImageError& e) {
    EXPECT_NE(std::string(e.what()).find("4096 bytes, above the limit of 1000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saguaro::image
