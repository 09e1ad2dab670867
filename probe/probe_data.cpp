//===- probe_data.cpp - Read and write SGPRBDT1 data files ------------------------------===//
//
// Layout (all little-endian; docs/probe.md is the specification):
//   "SGPRBDT1", u32 version=1, u32 width, u32 tap_layer, u32 n_samples, u64 meta_bytes,
//   meta JSON, per sample: n_tokens*width f32 hidden + n_tokens f32 entropy, "SGPRBEND".
//
//===------------------------------------------------------------------------------------===//
#include "probe/probe_data.h"

#include "probe/byte_io.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <type_traits>

namespace saguaro::probe {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'P', 'R', 'B', 'D', 'T', '1'};
constexpr char kEndMagic[8] = {'S', 'G', 'P', 'R', 'B', 'E', 'N', 'D'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 8 + 4 * 4 + 8;
// Sanity limits that keep size arithmetic far from overflow; real models are far below them.
constexpr uint64_t kMaxWidth = 1u << 20;
constexpr uint64_t kMaxTokens = 1u << 24;

bool fail(std::string &error, const std::string &path, const std::string &problem) {
  error = path + ": " + problem;
  return false;
}

/// Index of the first non-finite value, or -1.
long first_non_finite(const std::vector<float> &v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      return static_cast<long>(i);
  return -1;
}

/// Checks what both the reader and the writer require of one sample's arrays.
bool check_arrays(const ProbeSample &s, int width, const std::string &path, std::string &error) {
  if (s.entropy.empty())
    return fail(error, path, "sample '" + s.id + "' has n_tokens = 0 (every answer has at least one token)");
  if (s.hidden.size() != s.entropy.size() * static_cast<size_t>(width))
    return fail(error, path, "sample '" + s.id + "' has " + std::to_string(s.hidden.size()) +
                                 " hidden values, expected n_tokens * width = " +
                                 std::to_string(s.entropy.size() * width));
  if (long i = first_non_finite(s.hidden); i >= 0)
    return fail(error, path, "sample '" + s.id + "' has a non-finite hidden value (NaN or Inf) at token " +
                                 std::to_string(i / width) + ", dimension " + std::to_string(i % width));
  if (long i = first_non_finite(s.entropy); i >= 0)
    return fail(error, path, "sample '" + s.id + "' has a non-finite entropy at token " + std::to_string(i));
  return true;
}

/// A family is either held out or not: the evaluation's "held-out families" would otherwise
/// contain families the probe was trained on.
bool check_families(const std::vector<ProbeSample> &samples, const std::string &path, std::string &error) {
  std::map<std::string, bool> heldout;
  for (const ProbeSample &s : samples) {
    auto [it, inserted] = heldout.emplace(s.family, s.heldout);
    if (!inserted && it->second != s.heldout)
      return fail(error, path, "family '" + s.family + "' is held out on some samples but not on others (e.g. '" +
                                   s.id + "')");
  }
  return true;
}

/// Reads one typed field of a sample's JSON object.
template <typename T>
bool field(const nlohmann::json &obj, const char *name, T &out, size_t index, const std::string &path,
           std::string &error) {
  auto it = obj.find(name);
  bool typed = it != obj.end() && (std::is_same_v<T, std::string>   ? it->is_string()
                                   : std::is_same_v<T, bool>         ? it->is_boolean()
                                                                     : it->is_number_integer());
  if (!typed) {
    const char *type = std::is_same_v<T, std::string> ? "string" : std::is_same_v<T, bool> ? "bool" : "integer";
    return fail(error, path, "metadata of sample " + std::to_string(index) + " lacks " + type + " field '" + name + "'");
  }
  out = it->get<T>();
  return true;
}

} // namespace

bool write_probe_data(const std::string &path, const ProbeData &data, std::string &error) {
  if (data.width <= 0 || static_cast<uint64_t>(data.width) > kMaxWidth)
    return fail(error, path, "width " + std::to_string(data.width) + " is out of range");
  if (data.samples.empty())
    return fail(error, path, "refusing to write a data file with no samples");
  nlohmann::json meta = {{"model", data.model}, {"tap_layer", data.tap_layer}, {"width", data.width}};
  nlohmann::json samples = nlohmann::json::array();
  std::set<std::string> ids;
  for (const ProbeSample &s : data.samples) {
    if (!ids.insert(s.id).second)
      return fail(error, path, "sample id '" + s.id + "' is not unique");
    if (!check_arrays(s, data.width, path, error))
      return false;
    samples.push_back({{"id", s.id},
                       {"family", s.family},
                       {"difficulty", s.difficulty},
                       {"heldout", s.heldout},
                       {"guessable", s.guessable},
                       {"wrong", s.wrong},
                       {"n_tokens", s.n_tokens()},
                       {"question", s.question},
                       {"answer", s.answer}});
  }
  if (!check_families(data.samples, path, error))
    return false;
  meta["samples"] = std::move(samples);
  // Replace invalid UTF-8 in questions/answers rather than failing the whole collection.
  std::string meta_text = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  ByteWriter w;
  w.bytes(kMagic, 8);
  w.u32(kVersion);
  w.u32(static_cast<uint32_t>(data.width));
  w.u32(static_cast<uint32_t>(data.tap_layer));
  w.u32(static_cast<uint32_t>(data.samples.size()));
  w.u64(meta_text.size());
  w.bytes(meta_text.data(), meta_text.size());
  for (const ProbeSample &s : data.samples) {
    w.f32s(s.hidden.data(), s.hidden.size());
    w.f32s(s.entropy.data(), s.entropy.size());
  }
  w.bytes(kEndMagic, 8);
  return write_file_atomically(path, w.buffer(), error);
}

bool read_probe_data(const std::string &path, ProbeData &out, std::string &error) {
  std::string bytes;
  if (!read_file_bytes(path, bytes, error))
    return false;
  if (bytes.size() < kHeaderBytes)
    return fail(error, path, "truncated: " + std::to_string(bytes.size()) + " bytes is shorter than the header");
  ByteReader r(bytes);
  char magic[8];
  r.bytes(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0)
    return fail(error, path, "not a probe data file (bad magic; expected \"SGPRBDT1\")");
  uint32_t version = r.u32();
  if (version != kVersion)
    return fail(error, path, "unsupported data version " + std::to_string(version) + " (this build reads 1)");
  uint64_t width = r.u32(), tap_layer = r.u32(), n_samples = r.u32(), meta_bytes = r.u64();
  if (width == 0 || width > kMaxWidth)
    return fail(error, path, "width " + std::to_string(width) + " is out of range");
  if (n_samples == 0)
    return fail(error, path, "the data file contains no samples");
  if (meta_bytes > r.remaining())
    return fail(error, path, "truncated: metadata of " + std::to_string(meta_bytes) + " bytes runs past the end");
  std::string meta_text = bytes.substr(r.offset(), meta_bytes);
  r.skip(meta_bytes);

  nlohmann::json meta = nlohmann::json::parse(meta_text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object())
    return fail(error, path, "metadata is not a JSON object");
  if (!meta.contains("model") || !meta["model"].is_string())
    return fail(error, path, "metadata lacks string field 'model'");
  if (!meta.contains("width") || !meta["width"].is_number_integer() || meta["width"].get<int64_t>() != int64_t(width))
    return fail(error, path, "metadata 'width' does not match the header width " + std::to_string(width));
  if (!meta.contains("tap_layer") || !meta["tap_layer"].is_number_integer() ||
      meta["tap_layer"].get<int64_t>() != int64_t(tap_layer))
    return fail(error, path, "metadata 'tap_layer' does not match the header tap layer " + std::to_string(tap_layer));
  if (!meta.contains("samples") || !meta["samples"].is_array() || meta["samples"].size() != n_samples)
    return fail(error, path, "metadata 'samples' is not an array of the header's " + std::to_string(n_samples) +
                                 " samples");

  ProbeData data;
  data.model = meta["model"].get<std::string>();
  data.width = static_cast<int>(width);
  data.tap_layer = static_cast<int>(tap_layer);
  data.samples.resize(n_samples);
  std::set<std::string> ids;
  uint64_t payload = 0;
  for (size_t i = 0; i < n_samples; ++i) {
    const nlohmann::json &m = meta["samples"][i];
    ProbeSample &s = data.samples[i];
    int64_t n_tokens = 0;
    if (!m.is_object())
      return fail(error, path, "metadata of sample " + std::to_string(i) + " is not an object");
    if (!field(m, "id", s.id, i, path, error) || !field(m, "family", s.family, i, path, error) ||
        !field(m, "difficulty", s.difficulty, i, path, error) || !field(m, "heldout", s.heldout, i, path, error) ||
        !field(m, "guessable", s.guessable, i, path, error) || !field(m, "wrong", s.wrong, i, path, error) ||
        !field(m, "n_tokens", n_tokens, i, path, error) || !field(m, "question", s.question, i, path, error) ||
        !field(m, "answer", s.answer, i, path, error))
      return false;
    if (!ids.insert(s.id).second)
      return fail(error, path, "sample id '" + s.id + "' is not unique");
    if (n_tokens < 1 || uint64_t(n_tokens) > kMaxTokens)
      return fail(error, path, "sample '" + s.id + "' has n_tokens = " + std::to_string(n_tokens) +
                                   " (must be 1 .. " + std::to_string(kMaxTokens) + ")");
    s.entropy.resize(n_tokens);
    s.hidden.resize(uint64_t(n_tokens) * width);
    payload += uint64_t(n_tokens) * (width + 1) * 4;
  }

  if (!check_families(data.samples, path, error))
    return false;
  uint64_t expected = kHeaderBytes + meta_bytes + payload + 8;
  if (bytes.size() != expected)
    return fail(error, path, std::string(bytes.size() < expected ? "truncated" : "trailing bytes") + ": the file has " +
                                 std::to_string(bytes.size()) + " bytes, the header and metadata describe " +
                                 std::to_string(expected));
  for (ProbeSample &s : data.samples) {
    r.f32s(s.hidden.data(), s.hidden.size());
    r.f32s(s.entropy.data(), s.entropy.size());
    if (!check_arrays(s, data.width, path, error))
      return false;
  }
  char end[8];
  if (!r.bytes(end, 8) || std::memcmp(end, kEndMagic, 8) != 0)
    return fail(error, path, "bad end marker (expected \"SGPRBEND\"); the file is damaged");
  out = std::move(data);
  return true;
}

} // namespace saguaro::probe
