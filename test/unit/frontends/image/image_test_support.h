// Helpers of the image unit tests: crafted PNG files, SHA-256, file access, one-line errors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace saguaro::image::test {

using Bytes = std::vector<uint8_t>;

/// A PNG chunk: big-endian length, type, data, CRC-32 of type and data.
Bytes png_chunk(const std::string& type, const Bytes& data);

/// A complete PNG whose IHDR says width×height, colour type and bit depth, holding the given
/// filtered scanlines (one filter byte per row, then the packed samples) in a stored zlib stream.
/// Extra chunks (PLTE, tRNS) go between IHDR and IDAT.
Bytes make_png(uint32_t width, uint32_t height, int color_type, int bit_depth, const Bytes& scanlines,
               const std::vector<Bytes>& extra_chunks = {});

/// Hex SHA-256 of the bytes.
std::string sha256_hex(const uint8_t* data, size_t size);

Bytes read_bytes(const std::string& path);
void write_bytes(const std::string& path, const Bytes& bytes);

/// A fresh scratch path for this test (under the gtest temp dir).
std::string temp_path(const std::string& name);

/// ../shared/data/images/NAME, or "" when the shared material is absent.
std::string shared_image(const std::string& name);

bool file_exists(const std::string& path);

/// Runs `f`, which must throw ImageError whose message is one line starting with "name: ", and
/// returns the message; any other outcome fails the test (and returns "").
std::string image_error(const std::function<void()>& f, const std::string& name);

}  // namespace saguaro::image::test
