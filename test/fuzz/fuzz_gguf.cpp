// libFuzzer target: GGUF vocab files through the parser and the SentencePiece importer.
#include "GgufVocab.h"
#include "SpmImport.h"
#include "fuzz_util.h"
#include "tokenizer_spm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  saguaro::GgufFile file;
  std::string err;
  if (!saguaro::parse_gguf(data, size, &file, &err)) return 0;
  const std::string path = saguaro::fuzz::write_input(data, size, "vocab.gguf");
  std::vector<uint8_t> table;
  std::vector<std::pair<std::string, std::string>> meta;
  if (!saguaro::import_spm_tokenizer(path, &table, &meta, &err)) return 0;
  auto tok = saguaro::SpmTokenizer::create(table.data(), table.size(), &err);
  if (tok) saguaro::fuzz::exercise(*tok);
  return 0;
}
