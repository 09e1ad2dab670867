// libFuzzer target: tokenizer_config.json (its chat_template string or named list, bos_token / eos_token as strings,
// objects or null) read as the compiler reads it, then the template compiled and applied.
#include "ChatCompiler.h"
#include "fuzz_chat.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = saguaro::fuzz::private_dir("tokenizer_config");
  const std::string path = saguaro::fuzz::write_file(dir, "tokenizer_config.json", data, size);
  std::string text, err;
  saguaro::ChatTemplateOptions opts;
  if (!saguaro::read_chat_special_tokens(path, &opts, &err)) return 0;
  if (!saguaro::read_chat_template(path, &text, &err)) return 0;
  saguaro::fuzz::compile_and_apply(text, opts);
  return 0;
}
