// Helpers shared by the fuzz targets: private scratch files per process, and a tokenizer smoke run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <sys/stat.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "saguaro/tokenizer.h"

namespace saguaro::fuzz {

/// A directory private to this process (in /dev/shm when available): DIR, or DIR/sub when `sub` is given.
inline std::string private_dir(const std::string& sub = "") {
  static const std::string dir = [] {
    std::string d = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/saguaro-fuzz-") +
                    std::to_string(getpid());
    mkdir(d.c_str(), 0700);
    return d;
  }();
  if (sub.empty()) return dir;
  const std::string d = dir + "/" + sub;
  mkdir(d.c_str(), 0700);
  return d;
}

/// Writes `size` bytes to dir/name; returns the path.
inline std::string write_file(const std::string& dir, const std::string& name, const void* data, size_t size) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return path;
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

/// Writes the fuzz input to the private directory as `name`; returns the path.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
  return write_file(private_dir(), name, data, size);
}

/// Encodes and decodes a fixed text with a tokenizer that loaded: ids must be in range.
inline void exercise(Tokenizer& tok) {
  std::vector<int32_t> ids;
  std::string err;
  if (!tok.encode("Hello world 123 h\xC3\xA9llo \xE4\xBD\xA0\xE5\xA5\xBD!\n  x", true, &ids, &err)) return;
  int32_t prev = -1;
  for (int32_t id : ids) {
    if (id < 0 || id >= tok.vocab_size()) __builtin_trap();
    (void)tok.piece(prev, id);
    prev = id;
  }
}

}  // namespace saguaro::fuzz
