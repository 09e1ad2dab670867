//===- Tokenize.cpp - `saguaro tokenize` -----------------------------------------------===//
//
// Runs exactly the tokenizer a bundle ships: a source that is not a bundle is compiled into a
// one-tensor blob first, and the runtime's own encoder and decoder read it back. Compiling a
// 262k-token tokenizer.json takes seconds, so the blob is kept in the cache directory under a key
// of the compiler and the files it was compiled from; later calls map it and answer at once.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Tokenize.h"

#include "blob_writer.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/tokenizer/TokenizerSource.h"
#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"
#include "saguaro/xxh64.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// The key of a tokenizer file's compiled blob: the compiler (compilerHash), the file's contents and, for a
/// tokenizer.json, the tokenizer_config.json (BOS, EOS) and generation_config.json (stop ids) beside it.
llvm::Expected<std::string> tokenizerKey(const std::string &file) {
  auto self = compilerHash();
  if (!self)
    return self.takeError();
  std::vector<std::string> inputs = {file};
  for (const char *beside : {"tokenizer_config.json", "generation_config.json"}) {
    llvm::SmallString<256> config(llvm::sys::path::parent_path(file));
    llvm::sys::path::append(config, beside);
    if (llvm::StringRef(file).ends_with(".json") && llvm::sys::fs::exists(config))
      inputs.push_back(config.str().str());
  }
  std::string key = "saguaro tokenizer|saguaro=" + hex64(*self) + "|";
  for (const std::string &f : inputs) {
    auto h = hashFile(f);
    if (!h)
      return h.takeError();
    key += llvm::sys::path::filename(f).str() + "=" + hex64(*h) + "|";
  }
  return hex64(xxh64(key.data(), key.size(), 0));
}

/// Writes the one-tensor blob of `tok` to `path` through a temporary file renamed into place, so that an
/// interrupted or concurrent run never leaves a half-written blob under that name.
bool writeTokenizerBlob(const TokenizerTensor &tok, const std::string &path, std::string *err) {
  std::vector<BlobTensor> tensors = {BlobTensor{tok.name, "tokenizer", "row-major", DType::U8,
                                                {static_cast<int64_t>(tok.bytes.size())}, tok.bytes.data(),
                                                tok.bytes.size()}};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  if (!write_blob(tmp, tensors, tok.meta, err)) {
    llvm::sys::fs::remove(tmp);
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    *err = path + ": cannot write: " + ec.message();
    return false;
  }
  return true;
}

/// A blob of `tok` that is unlinked once mapped: the fallback when the cache cannot be written.
std::unique_ptr<Blob> temporaryTokenizerBlob(const TokenizerTensor &tok, std::string *err) {
  llvm::SmallString<256> tmp;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("saguaro-tokenizer", "sgw", tmp)) {
    *err = "cannot create a temporary file: " + ec.message();
    return nullptr;
  }
  std::string path = tmp.str().str();
  std::unique_ptr<Blob> blob;
  if (writeTokenizerBlob(tok, path, err))
    blob = Blob::open(path, err);
  llvm::sys::fs::remove(path); // the mapping stays valid after unlinking
  return blob;
}
} // namespace

std::unique_ptr<Blob> saguaro::openTokenizerBlob(const std::string &source, std::string *err) {
  llvm::SmallString<256> bundleBlob(source);
  llvm::sys::path::append(bundleBlob, "weights.sgw");
  if (llvm::sys::fs::exists(bundleBlob))
    return Blob::open(bundleBlob.str().str(), err);
  TokenizerTensor tok;
  const std::string file = llvm::sys::fs::is_directory(source) ? find_tokenizer_in(source) : source;
  if (!llvm::sys::fs::exists(file)) {
    import_tokenizer(source, &tok, err); // says what is missing
    return nullptr;
  }
  auto limit = cacheLimitBytes();
  auto key = limit ? tokenizerKey(file) : llvm::Expected<std::string>(limit.takeError());
  if (!key) {
    *err = llvm::toString(key.takeError());
    return nullptr;
  }
  const std::string entry = cacheRoot() + "/" + *key, cached = entry + "/tokenizer.sgw";
  if (llvm::sys::fs::exists(cached)) {
    std::string damage;
    if (std::unique_ptr<Blob> blob = Blob::open(cached, &damage)) {
      stampCacheEntry(entry);
      return blob;
    }
    llvm::errs() << "saguaro: " << damage << "; compiling " << file << " again\n";
    llvm::sys::fs::remove_directories(entry);
  }
  if (!import_tokenizer(source, &tok, err))
    return nullptr; // names what in the file cannot be compiled
  std::string why;
  if (std::error_code ec = llvm::sys::fs::create_directories(entry)) {
    why = entry + ": " + ec.message();
  } else if (writeTokenizerBlob(tok, cached, &why)) {
    stampCacheEntry(entry);
    evictCacheOverLimit(entry, *limit);
    return Blob::open(cached, err);
  }
  llvm::errs() << "saguaro: warning: not caching the compiled tokenizer: " << why << "\n";
  return temporaryTokenizerBlob(tok, err);
}

int saguaro::runTokenize(const TokenizeOptions &o) {
  std::string err;
  std::unique_ptr<Blob> blob = openTokenizerBlob(o.source, &err);
  if (!blob)
    return fail(err);
  std::unique_ptr<Tokenizer> tok = make_tokenizer(*blob, &err);
  if (!tok)
    return fail(err);
  std::string out;
  if (o.decode) {
    std::istringstream in(o.input);
    std::string word;
    int32_t prev = -1;
    while (in >> word) {
      char *end = nullptr;
      long id = std::strtol(word.c_str(), &end, 10);
      if (*end != '\0' || id < 0 || id >= tok->vocab_size())
        return fail(o.source + ": token id '" + word + "' is not in [0, " + std::to_string(tok->vocab_size()) + ")");
      bool special = id == tok->bos_id || id == tok->eos_id;
      if (!(o.noSpecial && special))
        out += std::string(tok->piece(prev, static_cast<int32_t>(id)));
      prev = static_cast<int32_t>(id);
    }
    llvm::outs() << out << "\n";
    return 0;
  }
  std::vector<int32_t> ids;
  if (!tok->encode(o.input, tok->add_bos && !o.noSpecial, &ids, &err))
    return fail(o.source + ": " + err);
  for (size_t i = 0; i < ids.size(); ++i)
    out += (i ? " " : "") + std::to_string(ids[i]);
  llvm::outs() << out << "\n";
  return 0;
}
