// Dispatches a tokenizer source to the importer of its format.
#include "TokenizerSource.h"

#include <sys/stat.h>

#include "SpmImport.h"
#include "TokenizerImport.h"

namespace saguaro {
namespace {

bool is_directory(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string find_tokenizer_in(const std::string& dir) {
  for (const char* name : {"tokenizer.json", "tokenizer.model"})
    if (exists(dir + "/" + name)) return dir + "/" + name;
  return "";
}

bool import_tokenizer(const std::string& source, TokenizerTensor* out, std::string* err) {
  std::string path = source;
  if (is_directory(source)) {
    path = find_tokenizer_in(source);
    if (path.empty()) return *err = source + ": no tokenizer.json or tokenizer.model in this directory", false;
  } else if (!exists(source)) {
    return *err = source + ": no such file or directory", false;
  }
  out->bytes.clear();
  out->meta.clear();
  if (ends_with(path, ".json")) {
    out->name = "tokenizer.bpe";
    return import_hf_tokenizer(path, &out->bytes, &out->meta, err);
  }
  if (ends_with(path, ".model") || ends_with(path, ".gguf")) {
    out->name = "tokenizer.spm";
    return import_spm_tokenizer(path, &out->bytes, &out->meta, err);
  }
  out->name = "tokenizer.llama2c";
  return import_llama2c_tokenizer(path, &out->bytes, &out->meta, err);
}

}  // namespace saguaro
