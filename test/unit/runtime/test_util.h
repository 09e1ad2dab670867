// Helpers shared by the runtime tests: tiny tokenizer bytes, a fake bundle on disk, temp dirs, file I/O.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace saguaro::test {

/// A llama2.c tokenizer.bin with 264 ids: <unk>, BOS, EOS, <0x00>..<0xFF>, " ", "a", "b", " a", "ab".
std::vector<uint8_t> tiny_llama2c_tokenizer();
/// Builds llama2.c tokenizer.bin bytes from (piece, score) pairs.
std::vector<uint8_t> llama2c_tokenizer_bytes(const std::vector<std::pair<std::string, float>>& vocab,
                                             int32_t max_token_length);
/// A fresh empty directory under the system temp dir ($TMPDIR or /tmp), removed with everything in it when the test
/// program exits normally (a test that crashes leaves its directory for inspection).
std::string make_temp_dir();
/// Writes DIR/weights.sgw for the fake model (bigram weight + tiny llama2c tokenizer); returns the blob path.
std::string write_fake_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& meta = {});
/// Whole file contents ("" if unreadable).
std::string read_file(const std::string& path);
/// Replaces the file's contents.
void write_file(const std::string& path, const std::string& bytes);
/// Directory of /work/shared (../shared from the project root), "" when absent.
std::string shared_dir();
/// Standard output of a shell command ("" when it cannot start).
std::string run_command(const std::string& cmd);

}  // namespace saguaro::test
