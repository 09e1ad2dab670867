// .npy format version 1.0: magic, u16 header length, Python-dict header padded to 64 bytes, raw data.
#include "saguaro/npy_writer.h"

#include <cstdio>

namespace saguaro {
namespace {

/// Writes the header for `descr` and `shape` (a Python tuple), then `bytes` raw bytes, to path.tmp,
/// and renames it to `path`: a failed write never leaves a partial file behind.
bool writeNpy(const std::string& path, const char* descr, const std::string& shape, const void* data,
              size_t bytes, std::string* err) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  while ((prefix + dict.size() + 1) % 64 != 0) dict.push_back(' ');
  dict.push_back('\n');
  std::string head = "\x93NUMPY";
  head.push_back('\x01');
  head.push_back('\x00');
  head.push_back(static_cast<char>(dict.size() & 0xff));
  head.push_back(static_cast<char>(dict.size() >> 8));
  head += dict;

  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return *err = path + ": cannot create " + tmp, false;
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
  ok = ok && (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return *err = path + ": cannot write", false;
  }
  return true;
}

}  // namespace

bool write_npy_f32(const std::string& path, const std::vector<float>& data, uint64_t rows, uint64_t cols,
                   std::string* err) {
  return writeNpy(path, "<f4", "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")", data.data(),
                  data.size() * sizeof(float), err);
}

bool write_npy_bool(const std::string& path, const std::vector<uint8_t>& data, std::string* err) {
  return writeNpy(path, "|b1", "(" + std::to_string(data.size()) + ",)", data.data(), data.size(), err);
}

}  // namespace saguaro
