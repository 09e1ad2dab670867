#include "library.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace saguaro_node {
namespace {

template <typename F>
bool resolve(void* handle, const char* name, F* out, std::string* error) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  if (*out == nullptr) *error = std::string("no ") + name + " in the library";
  return *out != nullptr;
}

}  // namespace

const CApi* load_library(const std::string& path, std::string* error) {
  // Process-wide: every Node.js worker_thread loads the addon anew, and all of them share the libraries.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CApi>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(path);
  if (found != loaded.end()) return found->second.get();
  // RTLD_LOCAL: every bundle's library defines the same symbols for its own compiled model, so two bundles in one
  // process must not resolve into each other.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = path + ": cannot load: " + dlerror();
    return nullptr;
  }
  auto api = std::make_unique<CApi>();
  std::string missing;
  if (!resolve(handle, "saguaro_init", &api->init, &missing) ||
      !resolve(handle, "saguaro_complete", &api->complete, &missing) ||
      !resolve(handle, "saguaro_stop", &api->stop, &missing) ||
      !resolve(handle, "saguaro_destroy", &api->destroy, &missing) ||
      !resolve(handle, "saguaro_last_error", &api->last_error, &missing) ||
      !resolve(handle, "saguaro_audio_begin", &api->audio_begin, &missing) ||
      !resolve(handle, "saguaro_audio_push", &api->audio_push, &missing) ||
      !resolve(handle, "saguaro_audio_push_int16", &api->audio_push_int16, &missing) ||
      !resolve(handle, "saguaro_audio_end", &api->audio_end, &missing) ||
      !resolve(handle, "saguaro_audio_id", &api->audio_id, &missing) ||
      !resolve(handle, "saguaro_audio_destroy", &api->audio_destroy, &missing)) {
    dlclose(handle);
    *error = path + ": " + missing;
    return nullptr;
  }
  return (loaded[path] = std::move(api)).get();
}

}  // namespace saguaro_node
