//===- byte_io.cpp - Whole-file reads and atomic writes ---------------------------------===//
#include "probe/byte_io.h"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace saguaro::probe {

bool read_file_bytes(const std::string &path, std::string &out, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = path + ": read error";
    return false;
  }
  out = ss.str();
  return true;
}

bool write_file_atomically(const std::string &path, const std::string &bytes, std::string &error) {
  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  std::FILE *f = std::fopen(temp.c_str(), "wb");
  if (!f) {
    error = path + ": cannot create " + temp + ": " + std::strerror(errno);
    return false;
  }
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::remove(temp.c_str());
    error = path + ": write failed (disk full?)";
    return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    error = path + ": cannot rename " + temp + " into place: " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

} // namespace saguaro::probe
