//===- Tokenize.cpp - `saguaro tokenize` -----------------------------------------------===//
//
// Runs exactly the tokenizer a bundle ships: a source that is not a bundle is compiled into a
// one-tensor blob first, and the runtime's own encoder and decoder read it back.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Tokenize.h"

#include "blob_writer.h"
#include "compiler/tokenizer/TokenizerSource.h"
#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <sstream>

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

} // namespace

std::unique_ptr<Blob> saguaro::openTokenizerBlob(const std::string &source, std::string *err) {
  llvm::SmallString<256> bundleBlob(source);
  llvm::sys::path::append(bundleBlob, "weights.sgw");
  if (llvm::sys::fs::exists(bundleBlob))
    return Blob::open(bundleBlob.str().str(), err);
  TokenizerTensor tok;
  if (!import_tokenizer(source, &tok, err))
    return nullptr;
  llvm::SmallString<256> tmp;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("saguaro-tokenizer", "sgw", tmp)) {
    *err = "cannot create a temporary file: " + ec.message();
    return nullptr;
  }
  std::string path = tmp.str().str();
  std::vector<BlobTensor> tensors = {BlobTensor{tok.name, "tokenizer", "row-major", DType::U8,
                                                {static_cast<int64_t>(tok.bytes.size())}, tok.bytes.data(),
                                                tok.bytes.size()}};
  std::unique_ptr<Blob> blob;
  if (write_blob(path, tensors, tok.meta, err))
    blob = Blob::open(path, err);
  llvm::sys::fs::remove(path); // the mapping stays valid after unlinking
  return blob;
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
