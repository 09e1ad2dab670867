// Helpers shared by the handoff tests: a private temporary directory, a fake environment, fixtures.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/environment.h"

namespace saguaro::handoff::test {

// The recognizable fake key every test uses; it must never show up in any output.
inline constexpr const char* kFakeKey = "sk-test-SECRET-1234";

// mkdtemp'd directory removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

EnvLookup fake_env(std::map<std::string, std::string> vars);

nlohmann::json read_fixture(const std::string& name);
std::string read_text_file(const std::string& path);
void write_text_file(const std::string& path, const std::string& text);

long long now_ms();

}  // namespace saguaro::handoff::test
