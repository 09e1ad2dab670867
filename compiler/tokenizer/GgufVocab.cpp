// GGUF parsing: every count and length is checked against the bytes left in the file before anything is
// allocated, so a garbled file cannot request more memory than its own size.
#include "GgufVocab.h"

#include <cstring>

namespace saguaro {
namespace {

constexpr int kMaxArrayDepth = 4;
constexpr uint32_t kMaxDims = 4;  // GGML_MAX_DIMS

// A key as it can appear in a one-line message: control bytes escaped, at most 60 bytes.
std::string printable(const std::string& s) {
  std::string r;
  for (unsigned char c : s.substr(0, 60)) r += (c < 0x20 || c == 0x7F) ? '?' : static_cast<char>(c);
  return s.size() > 60 ? r + "..." : r;
}

struct Reader {
  const uint8_t* p;
  uint64_t left;
  std::string* err;

  bool fail(const std::string& what) {
    if (err->empty()) *err = what;
    return false;
  }
  bool raw(void* out, uint64_t n, const char* what) {
    if (left < n) return fail(std::string("truncated in ") + what);
    std::memcpy(out, p, n);  // GGUF is little endian, as every supported host
    p += n, left -= n;
    return true;
  }
  bool u32(uint32_t* v, const char* what) { return raw(v, 4, what); }
  bool u64(uint64_t* v, const char* what) { return raw(v, 8, what); }
  bool str(std::string* s, const char* what) {
    uint64_t n;
    if (!u64(&n, what)) return false;
    if (n > left) return fail(std::string("string length ") + std::to_string(n) + " beyond the end of the file in " + what);
    s->assign(reinterpret_cast<const char*>(p), n);
    p += n, left -= n;
    return true;
  }
};

// Byte size of a fixed-size scalar type, 0 for STRING/ARRAY, -1 for an unknown type.
int scalar_bytes(uint32_t t) {
  switch (static_cast<GgufType>(t)) {
    case GgufType::kU8: case GgufType::kI8: case GgufType::kBool: return 1;
    case GgufType::kU16: case GgufType::kI16: return 2;
    case GgufType::kU32: case GgufType::kI32: case GgufType::kF32: return 4;
    case GgufType::kU64: case GgufType::kI64: case GgufType::kF64: return 8;
    case GgufType::kString: case GgufType::kArray: return 0;
  }
  return -1;
}

// Decodes one fixed-size scalar of type `t` from 8 raw bytes into `v`'s u / i / f.
void set_scalar(GgufType t, const uint8_t* b, GgufValue* v) {
  uint64_t u = 0;
  std::memcpy(&u, b, static_cast<size_t>(scalar_bytes(static_cast<uint32_t>(t))));
  switch (t) {
    case GgufType::kI8: v->i = static_cast<int8_t>(u); break;
    case GgufType::kI16: v->i = static_cast<int16_t>(u); break;
    case GgufType::kI32: v->i = static_cast<int32_t>(u); break;
    case GgufType::kI64: v->i = static_cast<int64_t>(u); break;
    case GgufType::kF32: { float x; uint32_t w = static_cast<uint32_t>(u); std::memcpy(&x, &w, 4); v->f = x; break; }
    case GgufType::kF64: std::memcpy(&v->f, &u, 8); break;
    default: v->u = u; break;
  }
}

double as_number(const GgufValue& v) {
  switch (v.type) {
    case GgufType::kI8: case GgufType::kI16: case GgufType::kI32: case GgufType::kI64: return static_cast<double>(v.i);
    case GgufType::kF32: case GgufType::kF64: return v.f;
    default: return static_cast<double>(v.u);
  }
}

bool read_value(Reader* r, uint32_t type, int depth, GgufValue* v, const std::string& key);

bool read_array(Reader* r, int depth, GgufValue* v, const std::string& key) {
  uint32_t et;
  uint64_t n;
  if (!r->u32(&et, key.c_str()) || !r->u64(&n, key.c_str())) return false;
  const int eb = scalar_bytes(et);
  if (eb < 0) return r->fail("unknown array element type " + std::to_string(et) + " in " + key);
  if (depth >= kMaxArrayDepth) return r->fail("arrays nested deeper than " + std::to_string(kMaxArrayDepth) + " in " + key);
  // Smallest encoding of one element: its fixed size, a u64 string length, or a nested array header.
  const uint64_t min_bytes = eb > 0 ? uint64_t(eb) : (et == uint32_t(GgufType::kString) ? 8 : 12);
  if (n > r->left / min_bytes) return r->fail("array of " + std::to_string(n) + " elements beyond the end of the file in " + key);
  v->elem = static_cast<GgufType>(et);
  for (uint64_t k = 0; k < n; ++k) {
    GgufValue e;
    if (!read_value(r, et, depth + 1, &e, key)) return false;
    if (et == uint32_t(GgufType::kString)) v->strings.push_back(std::move(e.str));
    else if (et == uint32_t(GgufType::kArray)) v->arrays.push_back(std::move(e));
    else v->numbers.push_back(as_number(e));
  }
  return true;
}

bool read_value(Reader* r, uint32_t type, int depth, GgufValue* v, const std::string& key) {
  const int nb = scalar_bytes(type);
  if (nb < 0) return r->fail("unknown value type " + std::to_string(type) + " in " + key);
  v->type = static_cast<GgufType>(type);
  if (type == uint32_t(GgufType::kString)) return r->str(&v->str, key.c_str());
  if (type == uint32_t(GgufType::kArray)) return read_array(r, depth, v, key);
  uint8_t b[8] = {0};
  if (!r->raw(b, static_cast<uint64_t>(nb), key.c_str())) return false;
  set_scalar(v->type, b, v);
  return true;
}

bool is_integer(const GgufValue& v) {
  return static_cast<uint32_t>(v.type) <= 5 || v.type == GgufType::kU64 || v.type == GgufType::kI64;
}

// Reads an integer-typed id; -1 stays when the key is absent. Rejects non-integers and ids outside [0, n).
bool get_id(const GgufFile& f, const char* key, size_t n, int32_t* out, std::string* err) {
  const GgufValue* v = f.find(key);
  if (!v) return true;
  if (!is_integer(*v)) return *err = std::string(key) + " is not an integer", false;
  const double x = as_number(*v);
  if (x < 0 || x >= static_cast<double>(n)) return *err = std::string(key) + " = " + std::to_string(static_cast<int64_t>(x)) + " is outside the vocabulary", false;
  *out = static_cast<int32_t>(x);
  return true;
}

bool get_bool(const GgufFile& f, const char* key, bool* out, std::string* err) {
  const GgufValue* v = f.find(key);
  if (!v) return true;
  if (v->type != GgufType::kBool) return *err = std::string(key) + " is not a bool", false;
  *out = v->u != 0;
  return true;
}

}  // namespace

const GgufValue* GgufFile::find(const std::string& key) const {
  for (const auto& e : kv)
    if (e.first == key) return &e.second;
  return nullptr;
}

bool parse_gguf(const uint8_t* data, uint64_t size, GgufFile* out, std::string* err) {
  *out = GgufFile();
  err->clear();
  Reader r{data, size, err};
  char magic[4];
  if (!r.raw(magic, 4, "header") || std::memcmp(magic, "GGUF", 4) != 0) return r.fail("not a GGUF file (bad magic)");
  uint64_t n_tensors, n_kv;
  if (!r.u32(&out->version, "header") || !r.u64(&n_tensors, "header") || !r.u64(&n_kv, "header")) return false;
  if (out->version != 2 && out->version != 3)
    return r.fail("unsupported GGUF version " + std::to_string(out->version) + " (2 and 3 are read)");
  // A key/value takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info at least 8 + 4 + 4 + 8.
  if (n_kv > r.left / 13) return r.fail("metadata count " + std::to_string(n_kv) + " exceeds the file size");
  if (n_tensors > r.left / 24) return r.fail("tensor count " + std::to_string(n_tensors) + " exceeds the file size");
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string key;
    uint32_t type;
    if (!r.str(&key, "metadata key") || !r.u32(&type, "metadata type")) return false;
    if (out->find(key)) return r.fail("duplicate metadata key " + printable(key));
    GgufValue v;
    if (!read_value(&r, type, 0, &v, printable(key))) return false;
    out->kv.emplace_back(std::move(key), std::move(v));
  }
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensorInfo t;
    uint32_t n_dims;
    if (!r.str(&t.name, "tensor info") || !r.u32(&n_dims, "tensor info")) return false;
    if (n_dims > kMaxDims) return r.fail("tensor " + printable(t.name) + " has " + std::to_string(n_dims) + " dimensions");
    t.dims.resize(n_dims);
    for (uint64_t& d : t.dims)
      if (!r.u64(&d, "tensor info")) return false;
    if (!r.u32(&t.ggml_type, "tensor info") || !r.u64(&t.offset, "tensor info")) return false;
    out->tensors.push_back(std::move(t));
  }
  return true;
}

bool read_gguf_vocab(const GgufFile& f, GgufVocab* out, std::string* err) {
  *out = GgufVocab();
  const GgufValue* model = f.find("tokenizer.ggml.model");
  if (!model || model->type != GgufType::kString) return *err = "no tokenizer.ggml.model string (not a tokenizer GGUF?)", false;
  out->model = model->str;
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  if (!tokens || tokens->type != GgufType::kArray || tokens->elem != GgufType::kString || tokens->strings.empty())
    return *err = "tokenizer.ggml.tokens is missing or not a non-empty array of strings", false;
  out->tokens = tokens->strings;
  const size_t n = out->tokens.size();
  if (n > size_t(INT32_MAX)) return *err = "too many tokens", false;
  if (const GgufValue* s = f.find("tokenizer.ggml.scores")) {
    if (s->type != GgufType::kArray || s->elem != GgufType::kF32 || s->numbers.size() != n)
      return *err = "tokenizer.ggml.scores must be " + std::to_string(n) + " float32 values", false;
    for (double x : s->numbers) out->scores.push_back(static_cast<float>(x));
  }
  if (const GgufValue* t = f.find("tokenizer.ggml.token_type")) {
    if (t->type != GgufType::kArray || t->elem != GgufType::kI32 || t->numbers.size() != n)
      return *err = "tokenizer.ggml.token_type must be " + std::to_string(n) + " int32 values", false;
    for (double x : t->numbers) out->token_types.push_back(static_cast<int32_t>(x));
  }
  out->add_bos = out->model == "llama";  // llama.cpp's default for SentencePiece vocabs without the key
  if (!get_id(f, "tokenizer.ggml.bos_token_id", n, &out->bos_id, err) ||
      !get_id(f, "tokenizer.ggml.eos_token_id", n, &out->eos_id, err) ||
      !get_id(f, "tokenizer.ggml.unknown_token_id", n, &out->unk_id, err) ||
      !get_id(f, "tokenizer.ggml.padding_token_id", n, &out->pad_id, err) ||
      !get_bool(f, "tokenizer.ggml.add_bos_token", &out->add_bos, err) ||
      !get_bool(f, "tokenizer.ggml.add_eos_token", &out->add_eos, err) ||
      !get_bool(f, "tokenizer.ggml.add_space_prefix", &out->add_space_prefix, err) ||
      !get_bool(f, "tokenizer.ggml.remove_extra_whitespaces", &out->remove_extra_whitespaces, err))
    return false;
  if (const GgufValue* cm = f.find("tokenizer.ggml.precompiled_charsmap")) out->precompiled_charsmap_bytes = cm->size() + cm->str.size();
  return true;
}

}  // namespace saguaro
