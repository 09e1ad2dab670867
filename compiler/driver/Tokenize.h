//===- Tokenize.h - `saguaro tokenize` -------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_TOKENIZE_H
#define SAGUARO_COMPILER_DRIVER_TOKENIZE_H

#include <string>

namespace saguaro {

struct TokenizeOptions {
  std::string source; // a bundle, a model directory or a tokenizer file
  std::string input;  // text, or ids separated by spaces with `decode`
  bool decode = false;
  bool noSpecial = false;
};

/// Prints the ids of the text (or the text of the ids) as the compiled runtime tokenizer computes
/// them; returns the process exit code, printing "saguaro: FILE: problem" on failure.
int runTokenize(const TokenizeOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_TOKENIZE_H
