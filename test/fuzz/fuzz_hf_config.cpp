// libFuzzer target: a Hugging Face config.json through the importer (every supported architecture: Llama, Qwen3,
// Gemma 3, Gemma 4 text and vision). The directory holds no weights, so each accepted config ends at "no
// model.safetensors"; what is exercised is the configuration's parsing and checks.
#include "compiler/import/ModelDesc.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = saguaro::fuzz::private_dir("config");
  saguaro::fuzz::write_file(dir, "config.json", data, size);
  saguaro::ImportedModel model;
  llvm::consumeError(saguaro::importHuggingFace(dir, model));
  return 0;
}
