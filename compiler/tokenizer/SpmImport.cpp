// SentencePiece model / GGUF vocab → validated tokenizer.spm table.
#include "SpmImport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>

#include "GgufVocab.h"
#include "SentencePieceModel.h"

namespace saguaro {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'S', 'P', 'M', '1', '\0', '\0'};
constexpr uint32_t kByteFallback = 1, kAddDummyPrefix = 2, kRemoveExtraWhitespaces = 4, kEscapeWhitespaces = 8;

// A read-only mapping of a whole file (a GGUF may hold gigabytes of weights after its vocabulary).
struct MappedFile {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  void* map = MAP_FAILED;
  ~MappedFile() {
    if (map != MAP_FAILED) ::munmap(map, size);
  }
  bool open(const std::string& path, std::string* err) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return *err = std::string("cannot open: ") + std::strerror(errno), false;
    struct stat st;
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    size = regular ? static_cast<uint64_t>(st.st_size) : 0;
    if (regular && size > 0) map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (!regular) return *err = "not a regular file", false;
    if (size == 0) return *err = "empty file", false;
    if (map == MAP_FAILED) return *err = std::string("cannot map: ") + std::strerror(errno), false;
    data = static_cast<const uint8_t*>(map);
    return true;
  }
};

void put_u32(std::vector<uint8_t>* b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_bytes(std::vector<uint8_t>* b, std::string_view s) {
  put_u32(b, static_cast<uint32_t>(s.size()));
  b->insert(b->end(), s.begin(), s.end());
}

// A piece as it can appear in a one-line message: control bytes escaped, at most 40 bytes.
std::string quoted(const std::string& s) {
  std::string r = "'";
  for (unsigned char c : s.substr(0, 40)) {
    char buf[8];
    if (c < 0x20 || c == 0x7F) std::snprintf(buf, sizeof buf, "\\x%02X", c), r += buf;
    else r += static_cast<char>(c);
  }
  return r + (s.size() > 40 ? "...'" : "'");
}

// "<0xXX>" with two uppercase hex digits, as sentencepiece names byte pieces.
bool is_byte_piece(const std::string& s) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  return s.size() == 6 && s.compare(0, 3, "<0x") == 0 && hex(s[3]) && hex(s[4]) && s[5] == '>';
}

// SentencePiece-model checks shared by both sources (mirroring sentencepiece's own model validation).
bool validate(const SentencePieceModel& m, std::string* err) {
  if (m.model_type != 1 && m.model_type != 2)
    return *err = "SentencePiece model type " + std::to_string(m.model_type) +
                  (m.model_type == 3 ? " (WORD)" : m.model_type == 4 ? " (CHAR)" : "") +
                  " is not supported (UNIGRAM and BPE are)", false;
  if (m.treat_whitespace_as_suffix) return *err = "treat_whitespace_as_suffix is not supported", false;
  if (m.precompiled_charsmap_bytes > 0)
    return *err = "normalizer " + quoted(m.normalizer_name) + " has a precompiled_charsmap (" +
                  std::to_string(m.precompiled_charsmap_bytes) +
                  " bytes) and Unicode normalization maps are not supported yet (only the 'identity' rule is)", false;
  if (m.denormalizer_charsmap_bytes > 0) return *err = "a denormalizer precompiled_charsmap is not supported", false;
  if (m.pieces.size() > (1u << 24)) return *err = "more than 2^24 pieces", false;
  std::set<std::string_view> seen;
  int unk = -1, n_bytes = 0;
  for (size_t id = 0; id < m.pieces.size(); ++id) {
    const auto& p = m.pieces[id];
    const std::string where = "piece " + std::to_string(id);
    if (p.piece.empty()) return *err = where + " is empty", false;
    if (!seen.insert(p.piece).second) return *err = where + " " + quoted(p.piece) + " is defined twice", false;
    if (p.type == SpmPieceType::kUnknown) {
      if (unk >= 0) return *err = "more than one UNKNOWN piece", false;
      unk = static_cast<int>(id);
    }
    if (p.type == SpmPieceType::kByte) {
      if (!m.byte_fallback) return *err = where + " is a BYTE piece but byte_fallback is off", false;
      if (!is_byte_piece(p.piece)) return *err = where + " " + quoted(p.piece) + " is a BYTE piece not named <0xXX>", false;
      ++n_bytes;
    }
  }
  if (unk < 0) return *err = "no UNKNOWN piece", false;
  if (m.byte_fallback && n_bytes != 256) return *err = "byte_fallback needs 256 BYTE pieces, found " + std::to_string(n_bytes), false;
  const int32_t n = static_cast<int32_t>(m.pieces.size());
  if (m.bos_id < -1 || m.bos_id >= n || m.eos_id < -1 || m.eos_id >= n) return *err = "bos/eos id outside the vocabulary", false;
  return true;
}

// GGUF "llama" vocabulary → the equivalent SentencePiece BPE model (llama.cpp's SPM tokenizer).
bool model_from_gguf(const GgufVocab& v, SentencePieceModel* m, std::string* err) {
  if (v.model != "llama")
    return *err = "tokenizer.ggml.model " + quoted(v.model) + " is not a SentencePiece vocabulary (\"llama\" is)", false;
  *m = SentencePieceModel();
  m->model_type = 2;
  m->normalizer_name = "gguf";
  m->add_dummy_prefix = v.add_space_prefix;
  m->remove_extra_whitespaces = v.remove_extra_whitespaces;
  m->precompiled_charsmap_bytes = v.precompiled_charsmap_bytes;
  m->bos_id = v.bos_id, m->eos_id = v.eos_id;
  for (size_t id = 0; id < v.tokens.size(); ++id) {
    SentencePieceModel::Piece p;
    p.piece = v.tokens[id];
    p.score = v.scores.empty() ? 0.0f : v.scores[id];
    const int32_t t = v.token_types.empty() ? 1 : v.token_types[id];
    if (t < 1 || t > 6) return *err = "token " + std::to_string(id) + " has token_type " + std::to_string(t), false;
    p.type = static_cast<SpmPieceType>(t);
    m->byte_fallback |= p.type == SpmPieceType::kByte;
    m->pieces.push_back(std::move(p));
  }
  if (v.unk_id >= 0 && m->pieces[v.unk_id].type != SpmPieceType::kUnknown)
    return *err = "tokenizer.ggml.unknown_token_id " + std::to_string(v.unk_id) + " is not of type UNKNOWN", false;
  return true;
}

void write_table(const SentencePieceModel& m, std::vector<uint8_t>* b) {
  b->assign(kMagic, kMagic + 8);
  int32_t unk = 0;
  for (size_t id = 0; id < m.pieces.size(); ++id)
    if (m.pieces[id].type == SpmPieceType::kUnknown) unk = static_cast<int32_t>(id);
  const uint32_t flags = (m.byte_fallback ? kByteFallback : 0) | (m.add_dummy_prefix ? kAddDummyPrefix : 0) |
                         (m.remove_extra_whitespaces ? kRemoveExtraWhitespaces : 0) |
                         (m.escape_whitespaces ? kEscapeWhitespaces : 0);
  put_u32(b, static_cast<uint32_t>(m.pieces.size()));
  put_u32(b, static_cast<uint32_t>(m.model_type));
  put_u32(b, static_cast<uint32_t>(unk));
  put_u32(b, flags);
  put_bytes(b, m.unk_surface);
  for (const auto& p : m.pieces) {
    b->push_back(static_cast<uint8_t>(p.type));
    uint32_t bits;
    std::memcpy(&bits, &p.score, 4);
    put_u32(b, bits);
    put_bytes(b, p.piece);
  }
}

}  // namespace

bool import_spm_tokenizer(const std::string& path, std::vector<uint8_t>* bytes,
                          std::vector<std::pair<std::string, std::string>>* meta, std::string* err) {
  MappedFile file;
  SentencePieceModel m;
  bool add_bos, add_eos = false;
  std::string problem;
  if (!file.open(path, &problem)) return *err = path + ": " + problem, false;
  if (file.size >= 4 && std::memcmp(file.data, "GGUF", 4) == 0) {
    GgufFile gguf;
    GgufVocab vocab;
    if (!parse_gguf(file.data, file.size, &gguf, &problem) || !read_gguf_vocab(gguf, &vocab, &problem) ||
        !model_from_gguf(vocab, &m, &problem))
      return *err = path + ": " + problem, false;
    add_bos = vocab.add_bos && vocab.bos_id >= 0, add_eos = vocab.add_eos && vocab.eos_id >= 0;
  } else {
    if (!parse_sentencepiece_model(file.data, file.size, &m, &problem))
      return *err = path + ": not a SentencePiece model: " + problem, false;
    add_bos = m.bos_id >= 0;  // a tokenizer.model does not say; Llama-family models prepend BOS
  }
  if (!validate(m, &problem)) return *err = path + ": " + problem, false;
  write_table(m, bytes);
  *meta = {{"tokenizer.kind", "spm"},
           {"tokenizer.bos_id", std::to_string(m.bos_id)},
           {"tokenizer.eos_id", std::to_string(m.eos_id)},
           {"tokenizer.add_bos", add_bos ? "1" : "0"},
           {"tokenizer.add_eos", add_eos ? "1" : "0"},
           {"tokenizer.vocab_size", std::to_string(m.pieces.size())}};
  return true;
}

}  // namespace saguaro
