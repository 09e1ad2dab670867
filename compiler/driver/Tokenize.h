//===- Tokenize.h - `saguaro tokenize` -------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_TOKENIZE_H
#define SAGUARO_COMPILER_DRIVER_TOKENIZE_H

#include <memory>
#include <string>

namespace saguaro {

struct TokenizeOptions {
  std::string source; // a bundle, a model directory or a tokenizer file
  std::string input;  // text, or ids separated by spaces with `decode`
  bool decode = false;
  bool noSpecial = false;
};

class Blob;

/// Opens the blob of a bundle, or compiles a tokenizer source into a temporary one-tensor blob;
/// null + "FILE: problem" on failure.
std::unique_ptr<Blob> openTokenizerBlob(const std::string &source, std::string *err);

/// Prints the ids of the text (or the text of the ids) as the compiled runtime tokenizer computes
/// them; returns the process exit code, printing "saguaro: FILE: problem" on failure.
int runTokenize(const TokenizeOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_TOKENIZE_H
