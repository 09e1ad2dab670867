// .npy version 1.0: magic, u16 header length, a Python dict padded to 64 bytes, raw data (npy_file.h).
#include "saguaro/image/npy_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {

std::string npy_header(const NpyArray& a) {
  std::string dims;  // as Python prints a tuple: (), (3,), (2, 3)
  for (size_t i = 0; i < a.shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(a.shape[i]);
  if (a.shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  while ((prefix + dict.size() + 1) % 64 != 0) dict.push_back(' ');
  dict.push_back('\n');
  std::string head = "\x93NUMPY\x01";
  head.push_back('\0');
  head.push_back(static_cast<char>(dict.size() & 0xFF));
  head.push_back(static_cast<char>(dict.size() >> 8));
  return head + dict;
}

/// Writes `a` to `tmp`; returns errno's message on failure (and removes what it wrote), else "".
std::string write_one(const NpyArray& a, const std::string& tmp) {
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return std::string("cannot create ") + tmp + ": " + std::strerror(errno);
  const std::string head = npy_header(a);
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
  ok = ok && (a.size == 0 || std::fwrite(a.bytes, 1, a.size, f) == a.size);
  const int saved = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (ok) return "";
  std::remove(tmp.c_str());
  return std::string("cannot write: ") + std::strerror(saved);
}

}  // namespace

void write_npy(const std::vector<NpyArray>& arrays) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    const std::string problem = write_one(arrays[i], arrays[i].path + ".tmp");
    if (problem.empty()) continue;
    for (size_t j = 0; j < i; ++j) std::remove((arrays[j].path + ".tmp").c_str());
    throw ImageError(arrays[i].path + ": " + problem);
  }
  for (size_t i = 0; i < arrays.size(); ++i) {
    const std::string tmp = arrays[i].path + ".tmp";
    if (std::rename(tmp.c_str(), arrays[i].path.c_str()) == 0) continue;
    const int saved = errno;
    for (size_t j = i; j < arrays.size(); ++j) std::remove((arrays[j].path + ".tmp").c_str());
    throw ImageError(arrays[i].path + ": cannot write: " + std::strerror(saved));
  }
}

}  // namespace saguaro::image
