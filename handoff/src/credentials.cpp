#include "saguaro/handoff/credentials.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/redact.h"

namespace saguaro::handoff {
namespace {

const char* provider_env_var(ProviderKind provider) {
  switch (provider) {
    case ProviderKind::OpenAI: return "OPENAI_API_KEY";
    case ProviderKind::Anthropic: return "ANTHROPIC_API_KEY";
    case ProviderKind::Gemini: return "GEMINI_API_KEY";
  }
  return "";
}

std::string mode_string(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// A credentials file anyone else can read, or one somebody else owns (and so could have planted), is refused
// rather than silently used or fixed: the user must notice that the key may have leaked.
void check_private_file(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) throw HandoffError("credentials file " + path + " is not a regular file");
  if (st.st_uid != ::geteuid()) throw HandoffError("credentials file " + path + " is not owned by the current user");
  if ((st.st_mode & 077) != 0) {
    throw HandoffError("credentials file " + path + " has mode " + mode_string(st.st_mode) +
                       "; it must be 0600 (run: chmod 600 " + path + ")");
  }
}

// Reads the file through one descriptor, so the permissions checked are those of the file read.
std::optional<nlohmann::json> read_credentials(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw HandoffError("cannot open credentials file " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw HandoffError("cannot stat credentials file " + path);
  }
  try {
    check_private_file(path, st);
  } catch (...) {
    ::close(fd);
    throw;
  }
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  // The parser's message could quote file content, i.e. a key: only say where it broke.
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw HandoffError("credentials file " + path + " is not a JSON object of provider -> key");
  }
  return parsed;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HandoffError("cannot write " + path + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string credentials_file_path(const EnvLookup& env) { return saguaro_config_dir(env) + "/credentials.json"; }

std::optional<ApiKey> resolve_api_key(ProviderKind provider, const EnvLookup& env) {
  for (const char* var : {"SAGUARO_CLOUD_API_KEY", provider_env_var(provider)}) {
    if (auto key = env(var)) {
      register_secret(*key);
      return ApiKey{*key, var};
    }
  }
  const std::string path = credentials_file_path(env);
  auto file = read_credentials(path);
  if (!file) return std::nullopt;
  // Register every stored key before looking at ours, so none can surface in a later error.
  for (const auto& [name, value] : file->items()) {
    if (value.is_string()) register_secret(value.get<std::string>());
  }
  const char* name = provider_name(provider);
  if (!file->contains(name)) return std::nullopt;
  if (!(*file)[name].is_string() || (*file)[name].get<std::string>().empty()) {
    throw HandoffError("credentials file " + path + ": the entry for " + name + " must be a non-empty string");
  }
  return ApiKey{(*file)[name].get<std::string>(), path};
}

void store_api_key(const std::string& provider, const std::string& key, const EnvLookup& env) {
  if (!provider_from_name(provider)) throw HandoffError("unknown provider \"" + provider + "\" (openai, anthropic, gemini)");
  if (key.empty()) throw HandoffError("refusing to store an empty API key");
  if (key.find_first_of("\r\n") != std::string::npos) throw HandoffError("API key must be a single line");
  register_secret(key);
  const std::string dir = saguaro_config_dir(env);
  make_private_dirs(dir);
  const std::string path = dir + "/credentials.json";
  nlohmann::json all = read_credentials(path).value_or(nlohmann::json::object());
  all[provider] = key;

  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  // O_EXCL + mode 0600 at creation: the key is never in a file with wider permissions, not even before a chmod.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw HandoffError("cannot create " + tmp + ": " + std::strerror(errno));
  try {
    if (::fchmod(fd, 0600) != 0) throw HandoffError("cannot set mode 0600 on " + tmp);
    write_all(fd, all.dump(2) + "\n", tmp);
    if (::fsync(fd) != 0) throw HandoffError("cannot sync " + tmp + ": " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw HandoffError("cannot replace " + path + ": " + std::strerror(err));
  }
}

}  // namespace saguaro::handoff
