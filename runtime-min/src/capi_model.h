// What the C API's other files (capi_audio.cpp) need of capi.cpp: a model's engine and the thread's last error.
#pragma once

#include <string>

#include "saguaro/engine.h"
#include "saguaro/saguaro.h"

namespace saguaro {
/// The engine behind a model from saguaro_init (not NULL).
Engine& capi_engine(saguaro_model_t model);
/// The message saguaro_last_error() returns on this thread.
std::string& capi_last_error();
}  // namespace saguaro
