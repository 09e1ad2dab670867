// .npy version 1.0: magic, u16 header length, a Python dict padded to 64 bytes, raw data (npy_file.h).
#include "saguaro/image/npy_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "saguaro/image/error.h"

namespace saguaro::image {

void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* bytes, size_t size) {
  std::string dims;  // as Python prints a tuple: (), (3,), (2, 3)
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  while ((prefix + dict.size() + 1) % 64 != 0) dict.push_back(' ');
  dict.push_back('\n');
  std::string head = "\x93NUMPY\x01";
  head.push_back('\0');
  head.push_back(static_cast<char>(dict.size() & 0xFF));
  head.push_back(static_cast<char>(dict.size() >> 8));
  head += dict;

  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw ImageError(path + ": cannot create " + tmp + ": " + std::strerror(errno));
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
  ok = ok && (size == 0 || std::fwrite(bytes, 1, size, f) == size);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(tmp.c_str());
    throw ImageError(path + ": cannot write: " + std::strerror(saved));
  }
}

}  // namespace saguaro::image
