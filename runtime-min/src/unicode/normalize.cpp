// Decompose (canonical or compatibility), put combining marks in canonical order, then compose canonically.
#include "unicode/normalize.h"

#include <algorithm>

#include "unicode/utf8.h"

namespace saguaro {
namespace {

// Stable sort of every run of non-starters by combining class (canonical ordering).
void reorder(const UnicodeTables& t, std::vector<uint32_t>* v) {
  for (size_t i = 0; i < v->size();) {
    if (t.ccc((*v)[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < v->size() && t.ccc((*v)[j]) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(v->begin() + i, v->begin() + j, [&](uint32_t a, uint32_t b) { return t.ccc(a) < t.ccc(b); });
    i = j;
  }
}

// Canonical composition in place (the algorithm of UAX #15's sample code).
void compose(const UnicodeTables& t, std::vector<uint32_t>* v) {
  if (v->empty()) return;
  std::vector<uint32_t>& b = *v;
  size_t starter = 0, out = 1;
  int last_class = t.ccc(b[0]) ? 256 : 0;
  for (size_t i = 1; i < b.size(); ++i) {
    const uint32_t c = b[i];
    const int cls = t.ccc(c);
    const uint32_t composite = t.compose(b[starter], c);
    if (composite && (last_class < cls || last_class == 0)) {
      b[starter] = composite;
      continue;
    }
    if (cls == 0) starter = out;
    last_class = cls;
    b[out++] = c;
  }
  b.resize(out);
}

}  // namespace

void normalize(const UnicodeTables& t, NormalForm form, std::string_view in, NormalizeScratch* scratch, std::string* out) {
  out->clear();
  if (std::all_of(in.begin(), in.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return (void)out->assign(in.data(), in.size());
  const bool compat = form == NormalForm::NFKC || form == NormalForm::NFKD;
  std::vector<uint32_t>& cps = scratch->cps;
  cps.clear();
  for (size_t i = 0, n; i < in.size(); i += n) t.decompose(utf8::decode(in, i, &n), compat, &cps);
  reorder(t, &cps);
  if (form == NormalForm::NFC || form == NormalForm::NFKC) compose(t, &cps);
  for (uint32_t cp : cps) utf8::append(cp, out);
}

}  // namespace saguaro
