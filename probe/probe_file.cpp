//===- probe_file.cpp - Read and write SGPROBE1 probe files -----------------------------===//
//
// Layout (little-endian; docs/probe.md is the specification):
//   "SGPROBE1", u32 version=1, u32 d, u32 h, u32 m1, u32 m2, u32 tap_layer,
//   u64 meta_bytes, meta JSON {"model", "width", "tap_layer", "train"},
//   u64 n_params, n_params f32, u64 FNV-1a 64 of every preceding byte, "SGPROEND".
//
//===------------------------------------------------------------------------------------===//
#include "probe/probe_file.h"

#include "probe/byte_io.h"
#include "probe/rng.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace saguaro::probe {
namespace {

constexpr char kMagic[8] = {'S', 'G', 'P', 'R', 'O', 'B', 'E', '1'};
constexpr char kEndMagic[8] = {'S', 'G', 'P', 'R', 'O', 'E', 'N', 'D'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxWidth = 1u << 20;

bool fail(std::string &error, const std::string &path, const std::string &problem) {
  error = path + ": " + problem;
  return false;
}

} // namespace

bool write_probe_file(const std::string &path, const ProbeWeights &probe, std::string &error) {
  const ProbeShape &s = probe.shape;
  if (s.d <= 0 || s.h <= 0 || s.m1 <= 0 || s.m2 <= 0)
    return fail(error, path, "probe widths must be positive");
  if (probe.params.size() != probe_layout(s, PoolKind::attention).total)
    return fail(error, path, "parameter count does not match the widths");
  nlohmann::json train = nlohmann::json::parse(probe.train_json.empty() ? "{}" : probe.train_json, nullptr, false);
  if (train.is_discarded())
    return fail(error, path, "training summary is not JSON");
  nlohmann::json meta = {{"model", probe.model}, {"width", s.d}, {"tap_layer", probe.tap_layer}, {"train", train}};
  std::string meta_text = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  ByteWriter w;
  w.bytes(kMagic, 8);
  w.u32(kVersion);
  for (int v : {s.d, s.h, s.m1, s.m2, probe.tap_layer})
    w.u32(static_cast<uint32_t>(v));
  w.u64(meta_text.size());
  w.bytes(meta_text.data(), meta_text.size());
  w.u64(probe.params.size());
  w.f32s(probe.params.data(), probe.params.size());
  w.u64(fnv1a64(w.buffer().data(), w.buffer().size()));
  w.bytes(kEndMagic, 8);
  return write_file_atomically(path, w.buffer(), error);
}

bool read_probe_file(const std::string &path, ProbeWeights &out, std::string &error) {
  std::string bytes;
  if (!read_file_bytes(path, bytes, error))
    return false;
  ByteReader r(bytes);
  char magic[8] = {};
  if (bytes.size() < 8)
    return fail(error, path, "truncated: " + std::to_string(bytes.size()) + " bytes is shorter than the magic");
  if (!r.bytes(magic, 8) || std::memcmp(magic, kMagic, 8) != 0)
    return fail(error, path, "not a probe file (bad magic; expected \"SGPROBE1\")");
  uint32_t version = r.u32();
  uint32_t d = r.u32(), h = r.u32(), m1 = r.u32(), m2 = r.u32(), tap_layer = r.u32();
  uint64_t meta_bytes = r.u64();
  if (!r.ok())
    return fail(error, path, "truncated header");
  if (version != kVersion)
    return fail(error, path, "unsupported probe version " + std::to_string(version) + " (this build reads 1)");
  for (uint32_t v : {d, h, m1, m2})
    if (v == 0 || v > kMaxWidth)
      return fail(error, path, "probe width " + std::to_string(v) + " is out of range");
  if (meta_bytes > r.remaining())
    return fail(error, path, "truncated: metadata runs past the end of the file");
  std::string meta_text(meta_bytes, '\0');
  r.bytes(meta_text.data(), meta_bytes);

  ProbeWeights p;
  p.shape = ProbeShape{int(d), int(h), int(m1), int(m2)};
  p.tap_layer = int(tap_layer);
  uint64_t expected_params = probe_layout(p.shape, PoolKind::attention).total;
  uint64_t n_params = r.u64();
  if (!r.ok())
    return fail(error, path, "truncated: the parameter count is missing");
  if (n_params != expected_params)
    return fail(error, path, "holds " + std::to_string(n_params) + " parameters, the widths need " +
                                 std::to_string(expected_params));
  uint64_t expected_size = r.offset() + n_params * 4 + 8 + 8;
  if (bytes.size() != expected_size)
    return fail(error, path, std::string(bytes.size() < expected_size ? "truncated" : "trailing bytes") +
                                 ": the file has " + std::to_string(bytes.size()) + " bytes, expected " +
                                 std::to_string(expected_size));
  p.params.resize(n_params);
  r.f32s(p.params.data(), n_params);
  size_t checked = r.offset();
  uint64_t checksum = r.u64();
  if (checksum != fnv1a64(bytes.data(), checked))
    return fail(error, path, "checksum mismatch; the file is damaged");
  char end[8];
  if (!r.bytes(end, 8) || std::memcmp(end, kEndMagic, 8) != 0)
    return fail(error, path, "bad end marker (expected \"SGPROEND\")");
  for (float v : p.params)
    if (!std::isfinite(v))
      return fail(error, path, "holds a non-finite parameter");

  nlohmann::json meta = nlohmann::json::parse(meta_text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() || !meta.contains("model") || !meta["model"].is_string() ||
      !meta.contains("width") || !meta["width"].is_number_integer() || meta["width"].get<int64_t>() != int64_t(d))
    return fail(error, path, "metadata is not a JSON object with 'model' and a 'width' equal to the header's");
  p.model = meta["model"].get<std::string>();
  p.train_json = meta.contains("train") ? meta["train"].dump() : "{}";
  out = std::move(p);
  return true;
}

bool check_probe_fits_data(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                           const std::string &data_path, std::string &error) {
  if (probe.shape.d != data.width)
    return fail(error, probe_path, "the probe expects width " + std::to_string(probe.shape.d) + " but " + data_path +
                                       " has width " + std::to_string(data.width));
  if (probe.tap_layer != data.tap_layer)
    return fail(error, probe_path, "the probe reads tap layer " + std::to_string(probe.tap_layer) + " but " +
                                       data_path + " was captured at layer " + std::to_string(data.tap_layer));
  return true;
}

} // namespace saguaro::probe
