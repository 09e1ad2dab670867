// What the C API's files share: the model behind a saguaro_model_t and the thread's last error.
#pragma once

#include <memory>
#include <string>

#include "saguaro/chat_template.h"
#include "saguaro/engine.h"

struct saguaro_model {
  std::unique_ptr<saguaro::Engine> engine;
  std::unique_ptr<saguaro::ChatTemplate> chat;  // the bundle's `chat.template`, null when it has none
};

namespace saguaro {
/// The message saguaro_last_error() returns on this thread.
std::string& capi_last_error();
}  // namespace saguaro
