#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

#include "saguaro/handoff/environment.h"
#include "saguaro/handoff/error.h"

namespace saguaro::handoff {
namespace {

std::string xdg_dir(const EnvLookup& env, const char* xdg_var, const char* home_suffix) {
  if (auto xdg = env(xdg_var); xdg && (*xdg)[0] == '/') return *xdg + "/saguaro";
  if (auto home = env("HOME")) return *home + home_suffix + "/saguaro";
  throw HandoffError(std::string("cannot find the user's directory: neither ") + xdg_var + " nor HOME is set");
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || value[0] == '\0') return std::nullopt;
    return std::string(value);
  };
}

std::string saguaro_config_dir(const EnvLookup& env) { return xdg_dir(env, "XDG_CONFIG_HOME", "/.config"); }
std::string saguaro_state_dir(const EnvLookup& env) { return xdg_dir(env, "XDG_STATE_HOME", "/.local/state"); }

void make_private_dirs(const std::string& dir) {
  for (size_t slash = 1; slash != std::string::npos;) {
    slash = dir.find('/', slash + 1);
    const std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw HandoffError("cannot create directory " + prefix + ": " + std::strerror(errno));
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw HandoffError(dir + " is not a directory");
}

}  // namespace saguaro::handoff
