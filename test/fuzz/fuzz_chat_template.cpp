// libFuzzer target: a chat_template (the Jinja subset) through the chat-template compiler; when it compiles, the
// pieces go through the runtime's parser and are applied to a fixed conversation.
#include "ChatCompiler.h"
#include "fuzz_chat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  saguaro::ChatTemplateOptions opts;
  opts.bos_token = "<s>";
  opts.eos_token = "</s>";
  if (size > 0) opts.enable_thinking = data[0] & 1;
  saguaro::fuzz::compile_and_apply(std::string(reinterpret_cast<const char*>(data), size), opts);
  return 0;
}
