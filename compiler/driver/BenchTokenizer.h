//===- BenchTokenizer.h - `saguaro bench tokenizer` ------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_BENCHTOKENIZER_H
#define SAGUARO_COMPILER_DRIVER_BENCHTOKENIZER_H

#include <string>

namespace saguaro {

/// Measures encode throughput of the compiled runtime tokenizer of `source` on the lines of
/// `textFile` (or a built-in multilingual text), beside the sentencepiece library on the same
/// lines in the same run when `source` is a SentencePiece model; prints a table (or JSON).
int runTokenizerBench(const std::string &source, const std::string &textFile, bool json);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_BENCHTOKENIZER_H
