// Port of llama2.c run.c's tokenizer (encode, decode, safe_printf) over a validated in-memory tokenizer.bin.
#include "tokenizer_llama2c.h"

#include <algorithm>
#include <cstring>

namespace saguaro {
namespace {

int32_t read_i32(const unsigned char* p) {
  uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
  int32_t r;
  std::memcpy(&r, &v, 4);
  return r;
}

// C-locale isprint / isspace, as run.c's safe_printf sees them.
bool printable_or_space(unsigned char c) { return (c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r'); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::unique_ptr<Llama2cTokenizer> Llama2cTokenizer::create(const unsigned char* data, uint64_t size,
                                                           std::string* err) {
  if (size < 4) return *err = "llama2c tokenizer truncated (no header)", nullptr;
  const int32_t max_token_length = read_i32(data);
  if (max_token_length <= 0) return *err = "llama2c tokenizer: bad max_token_length", nullptr;
  std::unique_ptr<Llama2cTokenizer> t(new Llama2cTokenizer());
  uint64_t p = 4;
  while (p < size) {
    if (size - p < 8) return *err = "llama2c tokenizer truncated at id " + std::to_string(t->offsets_.size()), nullptr;
    float score;
    std::memcpy(&score, data + p, 4);
    const int32_t len = read_i32(data + p + 4);
    p += 8;
    if (len < 0 || static_cast<uint64_t>(len) > size - p)
      return *err = "llama2c tokenizer truncated at id " + std::to_string(t->offsets_.size()), nullptr;
    t->offsets_.push_back(static_cast<uint32_t>(t->pool_.size()));
    t->scores_.push_back(score);
    t->pool_.append(reinterpret_cast<const char*>(data + p), static_cast<size_t>(len));
    t->pool_.push_back('\0');
    t->max_len_ = std::max(t->max_len_, static_cast<size_t>(len));
    p += static_cast<uint64_t>(len);
  }
  if (t->offsets_.size() < 3) return *err = "llama2c tokenizer has fewer than 3 tokens", nullptr;
  t->sorted_.resize(t->offsets_.size());
  for (size_t i = 0; i < t->sorted_.size(); ++i) t->sorted_[i] = static_cast<int32_t>(i);
  const Llama2cTokenizer* self = t.get();
  std::stable_sort(t->sorted_.begin(), t->sorted_.end(),
                   [self](int32_t a, int32_t b) { return std::strcmp(self->str(a), self->str(b)) < 0; });
  t->buf_.assign(t->max_len_ * 2 + 3, '\0');
  for (int b = 0; b < 256; ++b) t->byte_pieces_[2 * b] = static_cast<unsigned char>(b);
  t->bos_id = 1;
  t->eos_id = 2;
  t->add_bos = true;
  t->stop_at_bos = true;
  return t;
}

int32_t Llama2cTokenizer::lookup(const char* s) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), s,
                             [this](int32_t id, const char* key) { return std::strcmp(str(id), key) < 0; });
  return (it != sorted_.end() && std::strcmp(str(*it), s) == 0) ? *it : -1;
}

bool Llama2cTokenizer::encode(std::string_view text, bool add_bos, std::vector<int32_t>* out, std::string* err) {
  out->clear();
  if (text.find('\0') != std::string_view::npos) return *err = "prompt contains a NUL byte", false;
  if (add_bos) out->push_back(1);
  if (!text.empty()) {
    // run.c adds the dummy-prefix token for " " (when the vocab has one).
    const int32_t dummy = lookup(" ");
    if (dummy >= 0) out->push_back(dummy);
  }
  // One token per UTF-8 codepoint (at most 4 bytes), or its bytes + 3 when the codepoint is not in the vocab.
  char cp[5];
  size_t cp_len = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) cp_len = 0;
    cp[cp_len++] = static_cast<char>(c);
    cp[cp_len] = '\0';
    const bool next_is_cont = i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
    if (next_is_cont && cp_len < 4) continue;
    const int32_t id = lookup(cp);
    if (id != -1) {
      out->push_back(id);
    } else {
      for (size_t k = 0; k < cp_len; ++k) out->push_back(static_cast<unsigned char>(cp[k]) + 3);
    }
    cp_len = 0;
  }
  // Greedily merge the adjacent pair whose concatenation has the best score, until none is in the vocab.
  std::vector<int32_t>& tok = *out;
  while (true) {
    float best_score = -1e10f;
    int32_t best_id = -1;
    size_t best_idx = 0;
    for (size_t i = 0; i + 1 < tok.size(); ++i) {
      const size_t la = std::strlen(str(tok[i]));
      std::memcpy(buf_.data(), str(tok[i]), la);
      std::strcpy(buf_.data() + la, str(tok[i + 1]));
      const int32_t id = lookup(buf_.data());
      if (id != -1 && scores_[id] > best_score) {
        best_score = scores_[id];
        best_id = id;
        best_idx = i;
      }
    }
    if (best_id == -1) break;
    tok[best_idx] = best_id;
    tok.erase(tok.begin() + static_cast<std::ptrdiff_t>(best_idx) + 1);
  }
  return true;
}

std::string_view Llama2cTokenizer::piece(int32_t prev, int32_t token) const {
  if (token < 0 || token >= vocab_size()) return {};
  const char* p = str(token);
  if (prev == 1 && p[0] == ' ') ++p;  // run.c strips the leading space after BOS
  // "<0xXX>" stands for the raw byte (run.c: sscanf(piece, "<0x%02hhX>", &byte)).
  if (p[0] == '<' && p[1] == '0' && p[2] == 'x') {
    const int h0 = hex_digit(p[3]);
    if (h0 >= 0) {
      const int h1 = hex_digit(p[4]);
      const int byte = h1 >= 0 ? h0 * 16 + h1 : h0;
      p = reinterpret_cast<const char*>(byte_pieces_ + 2 * byte);
    }
  }
  // safe_printf: nothing for an empty piece or a single unprintable byte.
  if (p[0] == '\0') return {};
  if (p[1] == '\0' && !printable_or_space(static_cast<unsigned char>(p[0]))) return {};
  return std::string_view(p);
}

}  // namespace saguaro
