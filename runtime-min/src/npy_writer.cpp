// .npy format version 1.0: magic, u16 header length, Python-dict header padded to 64 bytes, raw data.
#include "saguaro/npy_writer.h"

#include <cstdio>

namespace saguaro {

bool write_npy_f32(const std::string& path, const std::vector<float>& data, uint64_t rows, uint64_t cols,
                   std::string* err) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "), }";
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
  ok = ok && (data.empty() || std::fwrite(data.data(), sizeof(float), data.size(), f) == data.size());
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return *err = path + ": cannot write", false;
  }
  return true;
}

}  // namespace saguaro
