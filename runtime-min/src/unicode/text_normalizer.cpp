// Normalizer steps: Unicode forms, literal Replace, Prepend, whitespace Strip.
#include "unicode/text_normalizer.h"

#include "unicode/utf8.h"

namespace saguaro {
namespace {

void replace_all(std::string_view in, std::string_view pat, std::string_view with, std::string* out) {
  out->clear();
  for (size_t i = 0;;) {
    const size_t k = in.find(pat, i);
    if (k == std::string_view::npos) return (void)out->append(in.data() + i, in.size() - i);
    out->append(in.data() + i, k - i);
    out->append(with.data(), with.size());
    i = k + pat.size();
  }
}

void strip(const UnicodeTables& t, std::string_view in, bool left, bool right, std::string* out) {
  size_t b = 0, e = in.size(), n;
  while (left && b < e && (t.classes(utf8::decode(in, b, &n)) & kClassSpace)) b += n;
  while (right && e > b) {
    size_t s = e - 1;
    while (s > b && (static_cast<unsigned char>(in[s]) & 0xC0) == 0x80) --s;
    if (!(t.classes(utf8::decode(in, s, &n)) & kClassSpace) || s + n != e) break;
    e = s;
  }
  out->assign(in.data() + b, e - b);
}

}  // namespace

bool TextNormalizer::parse(ByteReader* r, std::string* err) {
  uint32_t n;
  if (!r->u32(&n) || n > 1024) return *err = "normalizer: bad step count", false;
  ops_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t kind;
    std::string_view a, b;
    Op op;
    if (!r->u8(&kind)) return *err = "normalizer truncated", false;
    op.kind = static_cast<NormalizerOp>(kind);
    switch (op.kind) {
      case NormalizerOp::NFC: case NormalizerOp::NFD: case NormalizerOp::NFKC: case NormalizerOp::NFKD: break;
      case NormalizerOp::Replace:
        if (!r->str(&a) || !r->str(&b) || a.empty()) return *err = "normalizer: bad Replace", false;
        op.a = a, op.b = b;
        break;
      case NormalizerOp::Prepend:
        if (!r->str(&a)) return *err = "normalizer: bad Prepend", false;
        op.a = a;
        break;
      case NormalizerOp::Strip:
        if (!r->u8(&op.left) || !r->u8(&op.right)) return *err = "normalizer: bad Strip", false;
        break;
      default: return *err = "normalizer: unknown step " + std::to_string(kind), false;
    }
    ops_.push_back(std::move(op));
  }
  return true;
}

bool TextNormalizer::needs_classes() const {
  for (const Op& op : ops_)
    if (op.kind == NormalizerOp::Strip) return true;
  return false;
}

bool TextNormalizer::needs_normalization() const {
  for (const Op& op : ops_)
    if (static_cast<uint8_t>(op.kind) <= static_cast<uint8_t>(NormalizerOp::NFKD)) return true;
  return false;
}

void TextNormalizer::apply(const UnicodeTables& t, std::string_view in, std::string* out) {
  out->assign(in.data(), in.size());
  for (const Op& op : ops_) {
    switch (op.kind) {
      case NormalizerOp::Replace: replace_all(*out, op.a, op.b, &tmp_); break;
      case NormalizerOp::Prepend:
        if (out->empty()) continue;
        tmp_ = op.a;
        tmp_ += *out;
        break;
      case NormalizerOp::Strip: strip(t, *out, op.left, op.right, &tmp_); break;
      default: normalize(t, static_cast<NormalForm>(op.kind), *out, &scratch_, &tmp_); break;
    }
    out->swap(tmp_);
  }
}

}  // namespace saguaro
