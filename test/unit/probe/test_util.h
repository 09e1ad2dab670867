//===- test_util.h - Helpers shared by the probe unit tests -----------------------------===//
#ifndef SAGUARO_TEST_UNIT_PROBE_TEST_UTIL_H
#define SAGUARO_TEST_UNIT_PROBE_TEST_UTIL_H

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace saguaro::probe::testing {

/// This process's scratch directory: ctest runs each test in its own process, in parallel.
inline std::string temp_dir() {
  std::string dir = std::string(PROBE_TEST_TMP) + "/" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

/// A fresh path in temp_dir().
inline std::string temp_path(const std::string &name) {
  std::string path = temp_dir() + "/" + name;
  std::filesystem::remove(path);
  return path;
}

inline std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace saguaro::probe::testing

#endif // SAGUARO_TEST_UNIT_PROBE_TEST_UTIL_H
