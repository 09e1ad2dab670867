// The inputs the libFuzzer targets found, kept in test/fuzz/regressions/<target>/: the unit tests replay each one
// through the code its target drives. Header-only, so test programs that do not link test_util can use it.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace saguaro::test {

/// Calls check(path, bytes) for every file of test/fuzz/regressions/<target>/ (SAGUARO_SOURCE_ROOT must name the
/// checkout); returns how many there were.
inline int for_each_fuzz_finding(const std::string& target,
                                 const std::function<void(const std::string& path, const std::string& bytes)>& check) {
  int seen = 0;
  const std::string dir = std::string(SAGUARO_SOURCE_ROOT) + "/test/fuzz/regressions/" + target;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    check(entry.path().string(), bytes.str());
    ++seen;
  }
  return seen;
}

}  // namespace saguaro::test
