// libFuzzer target: a SentencePiece tokenizer.model through the importer, then the runtime's SPM tokenizer.
#include "SpmImport.h"
#include "fuzz_util.h"
#include "tokenizer_spm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = saguaro::fuzz::write_input(data, size, "tokenizer.model");
  std::vector<uint8_t> table;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  if (!saguaro::import_spm_tokenizer(path, &table, &meta, &err)) return 0;
  auto tok = saguaro::SpmTokenizer::create(table.data(), table.size(), &err);
  if (tok) saguaro::fuzz::exercise(*tok);
  return 0;
}
