// Parses the three UCD files and writes compact range tables (runtime layout in unicode/unicode_tables.h).
#include "UnicodeTables.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include "TableWriter.h"

namespace saguaro {
namespace {

constexpr uint32_t kNumCodePoints = 0x110000;
constexpr uint8_t kLetter = 1, kNumber = 2, kSpace = 4;  // runtime-min/src/unicode/unicode_tables.h

struct Ucd {
  std::vector<uint8_t> cls, ccc;
  std::map<uint32_t, std::pair<bool, std::vector<uint32_t>>> decomp;  // cp → (compat?, direct mapping)
  std::vector<bool> excluded;                                        // Full_Composition_Exclusion
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, sep);) out.push_back(f);
  return out;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Calls f(lo, hi, value) for each "lo..hi ; Value" or "cp ; Value" line of a property file.
bool for_each_property(const std::string& path, const std::function<void(uint32_t, uint32_t, const std::string&)>& f,
                       std::string* err) {
  std::ifstream in(path);
  if (!in) return *err = path + ": cannot open (install unicode-data or set SAGUARO_UNICODE_DIR)", false;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    const size_t semi = line.find(';');
    if (semi == std::string::npos) continue;
    const std::string range = trim(line.substr(0, semi));
    const std::string value = trim(split(line.substr(semi + 1), ';')[0]);
    const size_t dots = range.find("..");
    const uint32_t lo = std::strtoul(range.c_str(), nullptr, 16);
    const uint32_t hi = dots == std::string::npos ? lo : std::strtoul(range.c_str() + dots + 2, nullptr, 16);
    if (lo <= hi && hi < kNumCodePoints) f(lo, hi, value);
  }
  return true;
}

bool read_ucd(const std::string& dir, Ucd* u, std::string* err) {
  u->cls.assign(kNumCodePoints, 0), u->ccc.assign(kNumCodePoints, 0), u->excluded.assign(kNumCodePoints, false);
  const std::string path = dir + "/UnicodeData.txt";
  std::ifstream in(path);
  if (!in) return *err = path + ": cannot open (install unicode-data or set SAGUARO_UNICODE_DIR)", false;
  uint32_t range_start = 0;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = split(line, ';');
    if (f.size() < 6) continue;
    const uint32_t cp = std::strtoul(f[0].c_str(), nullptr, 16);
    if (cp >= kNumCodePoints) return *err = path + ": bad code point " + f[0], false;
    const char g = f[2].empty() ? '?' : f[2][0];
    const uint8_t bits = g == 'L' ? kLetter : g == 'N' ? kNumber : 0;
    if (f[1].find(", First>") != std::string::npos) {
      range_start = cp;
      continue;
    }
    const uint32_t lo = f[1].find(", Last>") != std::string::npos ? range_start : cp;
    for (uint32_t c = lo; c <= cp; ++c) u->cls[c] |= bits;
    u->ccc[cp] = static_cast<uint8_t>(std::atoi(f[3].c_str()));
    if (f[5].empty()) continue;
    const bool compat = f[5][0] == '<';
    std::vector<uint32_t> mapping;
    for (const std::string& x : split(compat ? f[5].substr(f[5].find('>') + 1) : f[5], ' '))
      if (!x.empty()) mapping.push_back(std::strtoul(x.c_str(), nullptr, 16));
    u->decomp[cp] = {compat, mapping};
  }
  return for_each_property(dir + "/PropList.txt", [&](uint32_t lo, uint32_t hi, const std::string& v) {
           if (v == "White_Space") for (uint32_t c = lo; c <= hi; ++c) u->cls[c] |= kSpace;
         }, err) &&
         for_each_property(dir + "/DerivedNormalizationProps.txt", [&](uint32_t lo, uint32_t hi, const std::string& v) {
           if (v == "Full_Composition_Exclusion") for (uint32_t c = lo; c <= hi; ++c) u->excluded[c] = true;
         }, err);
}

// Recursive decomposition of cp (canonical mappings only unless `compat`).
void full_decomposition(const Ucd& u, uint32_t cp, bool compat, std::vector<uint32_t>* out) {
  auto it = u.decomp.find(cp);
  if (it == u.decomp.end() || (it->second.first && !compat)) return out->push_back(cp);
  for (uint32_t c : it->second.second) full_decomposition(u, c, compat, out);
}

// Writes n × {lo, hi, value} for the maximal runs of equal nonzero values.
void put_ranges(const std::vector<uint8_t>& v, std::vector<uint8_t>* out) {
  std::vector<uint32_t> flat;
  for (uint32_t c = 0; c < kNumCodePoints;) {
    uint32_t e = c;
    while (e + 1 < kNumCodePoints && v[e + 1] == v[c]) ++e;
    if (v[c]) flat.insert(flat.end(), {c, e, v[c]});
    c = e + 1;
  }
  put_u32(out, static_cast<uint32_t>(flat.size() / 3));
  for (uint32_t x : flat) put_u32(out, x);
}

}  // namespace

std::string unicode_data_dir() {
  const char* env = std::getenv("SAGUARO_UNICODE_DIR");
  return env && *env ? env : "/usr/share/unicode";
}

namespace {

bool build_unicode_tables(const UnicodeTableNeeds& needs, std::vector<uint8_t>* out, std::string* err) {
  Ucd u;
  const bool norm = needs.normalization || needs.compat;
  if ((needs.classes || norm) && !read_ucd(unicode_data_dir(), &u, err)) return false;
  if (needs.classes) put_ranges(u.cls, out); else put_u32(out, 0);
  if (norm) put_ranges(u.ccc, out); else put_u32(out, 0);
  std::vector<uint32_t> entries, pool, comp;
  for (const auto& [cp, d] : u.decomp) {
    if (!norm || (d.first && !needs.compat)) continue;
    std::vector<uint32_t> canon, compat;
    if (!d.first) full_decomposition(u, cp, false, &canon);
    if (needs.compat) full_decomposition(u, cp, true, &compat);
    if (compat == canon) compat.clear();
    entries.insert(entries.end(), {cp, static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(canon.size())});
    pool.insert(pool.end(), canon.begin(), canon.end());
    entries.insert(entries.end(), {static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(compat.size())});
    pool.insert(pool.end(), compat.begin(), compat.end());
    if (!d.first && d.second.size() == 2 && !u.excluded[cp]) comp.insert(comp.end(), {d.second[0], d.second[1], cp});
  }
  put_u32(out, static_cast<uint32_t>(entries.size() / 5));
  for (uint32_t x : entries) put_u32(out, x);
  put_u32(out, static_cast<uint32_t>(pool.size()));
  for (uint32_t x : pool) put_u32(out, x);
  std::vector<std::array<uint32_t, 3>> pairs;
  for (size_t i = 0; i < comp.size(); i += 3) pairs.push_back({comp[i], comp[i + 1], comp[i + 2]});
  std::sort(pairs.begin(), pairs.end());
  put_u32(out, static_cast<uint32_t>(pairs.size()));
  for (const auto& p : pairs) for (uint32_t x : p) put_u32(out, x);
  return true;
}

}  // namespace

// The tables depend only on `needs` and the UCD directory: a process importing many tokenizers (the tests, the
// fuzzer) parses the 2 MB of UnicodeData.txt once per combination instead of once per tokenizer.
bool append_unicode_tables(const UnicodeTableNeeds& needs, std::vector<uint8_t>* out, std::string* err) {
  using Key = std::tuple<std::string, bool, bool, bool>;
  static std::mutex mutex;
  static std::map<Key, std::vector<uint8_t>> built;
  const Key key{unicode_data_dir(), needs.classes, needs.normalization, needs.compat};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = built.find(key); it != built.end()) return out->insert(out->end(), it->second.begin(), it->second.end()), true;
  }
  std::vector<uint8_t> tables;
  if (!build_unicode_tables(needs, &tables, err)) return false;
  out->insert(out->end(), tables.begin(), tables.end());
  const std::lock_guard<std::mutex> lock(mutex);
  built.emplace(key, std::move(tables));
  return true;
}

}  // namespace saguaro
