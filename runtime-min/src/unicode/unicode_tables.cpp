// Binary-searched range tables for classes, combining classes, decompositions and compositions.
#include "unicode/unicode_tables.h"

#include <algorithm>

namespace saguaro {
namespace {

constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

template <typename T>
const T* find_range(const std::vector<T>& v, uint32_t cp) {
  auto it = std::upper_bound(v.begin(), v.end(), cp, [](uint32_t c, const T& r) { return c < r.lo; });
  if (it == v.begin()) return nullptr;
  --it;
  return cp <= it->hi ? &*it : nullptr;
}

bool read_ranges(ByteReader* r, std::vector<uint32_t>* flat, uint32_t fields) {
  uint32_t n;
  if (!r->u32(&n) || uint64_t(n) * fields * 4 > r->left) return false;
  flat->resize(uint64_t(n) * fields);
  for (uint32_t& v : *flat) r->u32(&v);
  return true;
}

}  // namespace

bool UnicodeTables::parse(ByteReader* r, std::string* err) {
  std::vector<uint32_t> f;
  auto fail = [&](const char* what) { return *err = std::string("unicode tables: ") + what, false; };
  auto ranges = [&](std::vector<Range>* out, const char* what) {
    if (!read_ranges(r, &f, 3)) return fail(what);
    out->clear();
    for (size_t i = 0; i < f.size(); i += 3) {
      const Range x{f[i], f[i + 1], f[i + 2]};
      if (x.lo > x.hi || (!out->empty() && x.lo <= out->back().hi) || x.value > 255) return fail(what);
      out->push_back(x);
    }
    return true;
  };
  if (!ranges(&class_, "bad class ranges") || !ranges(&ccc_, "bad combining classes")) return false;
  if (!read_ranges(r, &f, 5)) return fail("truncated decompositions");
  decomp_.clear();
  for (size_t i = 0; i < f.size(); i += 5) {
    decomp_.push_back({f[i], f[i + 1], f[i + 2], f[i + 3], f[i + 4]});
    if (decomp_.size() > 1 && decomp_[decomp_.size() - 2].cp >= f[i]) return fail("decompositions out of order");
  }
  if (!read_ranges(r, &pool_, 1)) return fail("truncated decomposition pool");
  for (const Decomp& d : decomp_)
    if (uint64_t(d.canon_off) + d.canon_len > pool_.size() || uint64_t(d.compat_off) + d.compat_len > pool_.size())
      return fail("decomposition outside the pool");
  if (!read_ranges(r, &f, 3)) return fail("truncated compositions");
  comp_.clear();
  for (size_t i = 0; i < f.size(); i += 3) {
    comp_.push_back({f[i], f[i + 1], f[i + 2]});
    const size_t k = comp_.size();
    if (k > 1 && std::make_pair(comp_[k - 2].first, comp_[k - 2].second) >= std::make_pair(f[i], f[i + 1]))
      return fail("compositions out of order");
  }
  for (uint32_t c = 0; c < 128; ++c) ascii_[c] = lookup_class(c);
  return true;
}

uint8_t UnicodeTables::lookup_class(uint32_t cp) const {
  const Range* r = find_range(class_, cp);
  return r ? static_cast<uint8_t>(r->value) : 0;
}

uint8_t UnicodeTables::ccc(uint32_t cp) const {
  if (cp < 0x300) return 0;
  const Range* r = find_range(ccc_, cp);
  return r ? static_cast<uint8_t>(r->value) : 0;
}

void UnicodeTables::decompose(uint32_t cp, bool compat, std::vector<uint32_t>* out) const {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const uint32_t s = cp - kSBase;
    out->push_back(kLBase + s / kNCount);
    out->push_back(kVBase + s % kNCount / kTCount);
    if (s % kTCount) out->push_back(kTBase + s % kTCount);
    return;
  }
  if (cp >= 0xA0) {
    auto it = std::lower_bound(decomp_.begin(), decomp_.end(), cp, [](const Decomp& d, uint32_t c) { return d.cp < c; });
    if (it != decomp_.end() && it->cp == cp) {
      const uint32_t off = compat && it->compat_len ? it->compat_off : it->canon_off;
      const uint32_t len = compat && it->compat_len ? it->compat_len : it->canon_len;
      if (len) return (void)out->insert(out->end(), pool_.begin() + off, pool_.begin() + off + len);
    }
  }
  out->push_back(cp);
}

uint32_t UnicodeTables::compose(uint32_t a, uint32_t b) const {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  auto it = std::lower_bound(comp_.begin(), comp_.end(), std::make_pair(a, b), [](const Comp& c, std::pair<uint32_t, uint32_t> k) {
    return std::make_pair(c.first, c.second) < k;
  });
  return it != comp_.end() && it->first == a && it->second == b ? it->composite : 0;
}

}  // namespace saguaro
