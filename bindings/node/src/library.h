// The C API of one bundle's shared library (BUNDLE/build/libsaguaro.so), opened with dlopen. Its prototypes are
// those of runtime-min/include/saguaro/saguaro.h, declared here because the installed package has no checkout
// beside it.
#ifndef SAGUARO_NODE_LIBRARY_H_
#define SAGUARO_NODE_LIBRARY_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace saguaro_node {

struct saguaro_model;  // opaque: saguaro_model_t of saguaro.h
struct saguaro_audio;  // opaque: saguaro_audio_t of saguaro.h
using TokenCallback = void (*)(const char* token, uint32_t token_id, void* user_data);

struct CApi {
  saguaro_model* (*init)(const char* bundle_path);
  int (*complete)(saguaro_model* model, const char* messages_json, const char* options_json, char* out_json,
                  size_t out_size, TokenCallback token_callback, void* user_data);
  void (*stop)(saguaro_model* model);
  void (*destroy)(saguaro_model* model);
  const char* (*last_error)();
  saguaro_audio* (*audio_begin)(saguaro_model* model);
  int (*audio_push)(saguaro_audio* audio, const float* pcm, size_t n);
  int (*audio_push_int16)(saguaro_audio* audio, const int16_t* pcm, size_t n);
  int (*audio_end)(saguaro_audio* audio);
  long (*audio_id)(saguaro_audio* audio);
  void (*audio_destroy)(saguaro_audio* audio);
};

// The C API of the library at `path`, loaded once per process and kept (models of it may live anywhere); nullptr
// with `error` set when it cannot be loaded or lacks a function.
const CApi* load_library(const std::string& path, std::string* error);

}  // namespace saguaro_node

#endif  // SAGUARO_NODE_LIBRARY_H_
