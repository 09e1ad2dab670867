// libFuzzer target: a tokenizer.json through the compiler's importer, then the runtime's BPE tokenizer.
#include "TokenizerImport.h"
#include "fuzz_util.h"
#include "tokenizer_bpe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = saguaro::fuzz::write_input(data, size, "tokenizer.json");
  std::vector<uint8_t> table;
  std::vector<std::pair<std::string, std::string>> meta;
  std::string err;
  if (!saguaro::import_hf_tokenizer(path, &table, &meta, &err)) return 0;
  auto tok = saguaro::BpeTokenizer::create(table.data(), table.size(), &err);
  if (tok) saguaro::fuzz::exercise(*tok);
  return 0;
}
