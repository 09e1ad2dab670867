//===- Synth.cpp - `saguaro synth`: random-weight models with real shapes --------------===//
//
// Reads a Hugging Face config.json (LlamaForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM,
// Gemma4ForCausalLM, Gemma4ForConditionalGeneration's text decoder and towers), lists the tensors the
// importer (compiler/import/HfImport.cpp, Gemma4Import.cpp) expects with their shapes, and
// streams seeded normals into model.safetensors one chunk at a time, so a 1B model needs a few
// MB of memory. Scales keep activations O(1): linears N(0, 1/in_features), norm weights ≈ 1
// (Gemma stores them as an offset from 1, so ≈ 0), the embedding N(0, initializer_range²).
// Weights are stored in the config's torch_dtype when it is bfloat16 or float16, else float32.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Synth.h"

#include "compiler/import/HfImport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace saguaro;

namespace {
/// How one tensor's values are drawn: mean + std · N(0, 1).
struct TensorPlan {
  std::string name;
  std::vector<int64_t> shape;
  double mean, std;

  uint64_t elements() const {
    uint64_t n = 1;
    for (int64_t d : shape)
      n *= static_cast<uint64_t>(d);
    return n;
  }
};

enum class StoreType { F32, BF16, F16 };

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Standard normals by Box–Muller over xoshiro256** (portable: the same file on every platform
/// whose libm rounds log/sin/cos alike, unlike std::normal_distribution across standard libraries).
class NormalStream {
public:
  explicit NormalStream(uint64_t seed) {
    for (uint64_t &w : s)
      w = splitmix64(seed);
  }
  double next() {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    double u1 = (static_cast<double>(bits() >> 11) + 1.0) * 0x1.0p-53; // (0, 1]
    double u2 = static_cast<double>(bits() >> 11) * 0x1.0p-53;
    double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * M_PI * u2;
    spare = r * std::sin(a), hasSpare = true;
    return r * std::cos(a);
  }

private:
  uint64_t bits() {
    auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return result;
  }
  uint64_t s[4];
  double spare = 0;
  bool hasSpare = false;
};

uint32_t floatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

/// Round-to-nearest-even float32 → bfloat16 (finite inputs).
uint16_t toBf16(float f) {
  uint32_t x = floatBits(f);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// Round-to-nearest-even float32 → IEEE half (finite inputs; overflow saturates to infinity).
uint16_t toF16(float f) {
  uint32_t x = floatBits(f), sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu) - 127 + 15;
  if (exp >= 31)
    return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t shift = 13;
  if (exp <= 0) { // subnormal half: shift the implicit bit in
    if (exp < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    shift = static_cast<uint32_t>(14 - exp);
    exp = 0;
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> shift), rem = mant & ((1u << shift) - 1),
           half = 1u << (shift - 1);
  if (rem > half || (rem == half && (h & 1u)))
    ++h; // a carry into the exponent is the correct rounding
  return static_cast<uint16_t>(sign | h);
}

/// The dtype config.json names (`torch_dtype`, else `dtype`): bfloat16, float16, else float32.
StoreType storeTypeOf(const llvm::json::Object &c) {
  llvm::StringRef dtype = c.getString("torch_dtype").value_or(c.getString("dtype").value_or("float32"));
  return dtype == "bfloat16" ? StoreType::BF16 : dtype == "float16" ? StoreType::F16 : StoreType::F32;
}

/// The model's shapes, read from config.json with the importer's defaults.
struct Shapes {
  bool gemma = false, qkNorm = false, tied = false;
  int64_t dim = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0;
  double embedStd = 0.02;
};

llvm::Expected<Shapes> readShapes(const std::string &path, const llvm::json::Object &c) {
  auto err = [&](const llvm::Twine &msg) { return fileError(path, msg); };
  const llvm::json::Array *archs = c.getArray("architectures");
  std::optional<llvm::StringRef> arch = archs && !archs->empty() ? (*archs)[0].getAsString() : std::nullopt;
  if (!arch)
    return err("missing field 'architectures'");
  Shapes s;
  if (*arch == "Gemma3ForCausalLM")
    s.gemma = s.qkNorm = true;
  else if (*arch == "Qwen3ForCausalLM")
    s.qkNorm = true;
  else if (*arch != "LlamaForCausalLM")
    return err("unknown architecture '" + *arch +
               "' (supported: LlamaForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM, Gemma4ForCausalLM, "
               "Gemma4ForConditionalGeneration)");
  auto integer = [&](llvm::StringRef key, std::optional<int64_t> fallback, int64_t &out) -> llvm::Error {
    const llvm::json::Value *v = c.get(key);
    if (!v || v->kind() == llvm::json::Value::Null) {
      if (!fallback)
        return err("missing field '" + key + "'");
      out = *fallback;
    } else if (std::optional<int64_t> i = v->getAsInteger()) {
      out = *i;
    } else {
      return err("field '" + key + "' must be an integer");
    }
    if (out <= 0)
      return err("field '" + key + "' must be positive");
    return llvm::Error::success();
  };
  for (auto [key, out] : {std::pair<const char *, int64_t *>{"hidden_size", &s.dim},
                          {"intermediate_size", &s.hidden},
                          {"num_hidden_layers", &s.layers},
                          {"num_attention_heads", &s.heads},
                          {"vocab_size", &s.vocab}})
    if (auto e = integer(key, std::nullopt, *out))
      return std::move(e);
  if (auto e = integer("num_key_value_heads", s.heads, s.kvHeads))
    return std::move(e);
  if (auto e = integer("head_dim", s.gemma ? 256 : s.qkNorm ? 128 : s.dim / s.heads, s.headDim))
    return std::move(e);
  s.tied = c.getBoolean("tie_word_embeddings").value_or(s.gemma);
  if (std::optional<double> r = c.getNumber("initializer_range"); r && *r > 0)
    s.embedStd = *r;
  return s;
}

/// Every tensor HfImport reads for these shapes, in file order.
std::vector<TensorPlan> planTensors(const Shapes &s) {
  const double normMean = s.gemma ? 0.0 : 1.0, normStd = 0.02;
  auto linear = [](std::string name, int64_t out, int64_t in) {
    return TensorPlan{std::move(name), {out, in}, 0.0, 1.0 / std::sqrt(static_cast<double>(in))};
  };
  auto norm = [&](std::string name, int64_t n) { return TensorPlan{std::move(name), {n}, normMean, normStd}; };
  std::vector<TensorPlan> t;
  t.push_back({"model.embed_tokens.weight", {s.vocab, s.dim}, 0.0, s.embedStd});
  const int64_t q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
  for (int64_t i = 0; i < s.layers; ++i) {
    std::string p = "model.layers." + std::to_string(i) + ".";
    t.push_back(norm(p + "input_layernorm.weight", s.dim));
    t.push_back(linear(p + "self_attn.q_proj.weight", q, s.dim));
    t.push_back(linear(p + "self_attn.k_proj.weight", kv, s.dim));
    t.push_back(linear(p + "self_attn.v_proj.weight", kv, s.dim));
    if (s.qkNorm) {
      t.push_back(norm(p + "self_attn.q_norm.weight", s.headDim));
      t.push_back(norm(p + "self_attn.k_norm.weight", s.headDim));
    }
    t.push_back(linear(p + "self_attn.o_proj.weight", s.dim, q));
    t.push_back(norm(p + "post_attention_layernorm.weight", s.dim));
    if (s.gemma) {
      t.push_back(norm(p + "pre_feedforward_layernorm.weight", s.dim));
      t.push_back(norm(p + "post_feedforward_layernorm.weight", s.dim));
    }
    t.push_back(linear(p + "mlp.gate_proj.weight", s.hidden, s.dim));
    t.push_back(linear(p + "mlp.up_proj.weight", s.hidden, s.dim));
    t.push_back(linear(p + "mlp.down_proj.weight", s.dim, s.hidden));
  }
  t.push_back(norm("model.norm.weight", s.dim));
  if (!s.tied)
    t.push_back(linear("lm_head.weight", s.vocab, s.dim));
  return t;
}

/// Every tensor Gemma4Import reads for this config (the text decoder, the vision tower of a vision_config and the
/// audio tower of an audio_config), in the importer's order: norm weights and layer_scalar 1 ± 0.02 (Gemma 4
/// multiplies by the weight itself), tables N(0, initializer_range²), linears N(0, 1/in_features), a clipped linear's
/// bounds ∓1000 (wide open). The weights of ones that the importer adds itself are not written.
llvm::Expected<std::vector<TensorPlan>> planGemma4(const std::string &path, const llvm::json::Object &c,
                                                   llvm::StringRef architecture) {
  ModelDesc d;
  std::vector<std::string> notes;
  if (auto e = describeGemma4(HfConfig(c, path), architecture, llvm::sys::path::parent_path(path), d, notes))
    return std::move(e);
  // The audio tower of an audio_config (the importer compiles it when the files hold its tensors, as these will).
  if (architecture == "Gemma4ForConditionalGeneration" && c.getObject("audio_config"))
    if (auto e = describeGemma4Audio(HfConfig(c, path), d))
      return std::move(e);
  double embedStd = c.getNumber("initializer_range").value_or(0.02);
  std::vector<TensorPlan> t;
  for (auto &[name, shape] : expectedTensors(d)) {
    if (llvm::any_of(d.layerWeights, [&](const LayerWeights &l) { return l.vNorm == name; }) ||
        name == d.vision.headOnes || name == d.vision.dimOnes || name == d.audio.outOnes || name == d.audio.clipLow ||
        name == d.audio.clipHigh)
      continue;
    if (shape.empty())
      t.push_back({name, shape, llvm::StringRef(name).ends_with("_min") ? -1000.0 : 1000.0, 0.0});
    else if (shape.size() == 1)
      t.push_back({name, shape, 1.0, 0.02});
    else if (name == d.tokEmbedding || name == d.ple.table)
      t.push_back({name, shape, 0.0, embedStd > 0 ? embedStd : 0.02});
    else
      t.push_back({name, shape, 0.0, 1.0 / std::sqrt(static_cast<double>(shape.back()))});
  }
  return t;
}

/// The safetensors header: 8-byte little-endian length, then JSON padded with spaces to 8 bytes.
std::string safetensorsHeader(const std::vector<TensorPlan> &tensors, StoreType type) {
  const uint64_t elementBytes = type == StoreType::F32 ? 4 : 2;
  const char *dtype = type == StoreType::F32 ? "F32" : type == StoreType::BF16 ? "BF16" : "F16";
  llvm::json::Object header{{"__metadata__", llvm::json::Object{{"format", "pt"}}}};
  uint64_t offset = 0;
  for (const TensorPlan &t : tensors) {
    uint64_t end = offset + t.elements() * elementBytes;
    header[t.name] = llvm::json::Object{{"dtype", dtype},
                                        {"shape", llvm::json::Array(t.shape)},
                                        {"data_offsets", llvm::json::Array{offset, end}}};
    offset = end;
  }
  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(header));
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((static_cast<uint64_t>(json.size()) >> (8 * i)) & 0xff);
  return out + json;
}

/// Streams every tensor's values to `path` in chunks.
llvm::Error writeSafetensors(const std::string &path, const std::vector<TensorPlan> &tensors, StoreType type,
                             uint64_t seed) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return fileError(path, "cannot create: " + ec.message());
  out << safetensorsHeader(tensors, type);
  constexpr uint64_t kChunk = 1 << 20;
  std::vector<float> f32(kChunk);
  std::vector<uint16_t> half(kChunk);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorPlan &t = tensors[i];
    uint64_t tensorSeed = seed ^ (0xd1b54a32d192ed03ull * (i + 1));
    NormalStream rng(tensorSeed); // per tensor: a tensor's values do not depend on the ones before it
    for (uint64_t done = 0, n = t.elements(); done < n;) {
      uint64_t m = std::min(kChunk, n - done);
      for (uint64_t j = 0; j < m; ++j)
        f32[j] = static_cast<float>(t.mean + t.std * rng.next());
      if (type == StoreType::F32) {
        out.write(reinterpret_cast<const char *>(f32.data()), m * 4);
      } else {
        for (uint64_t j = 0; j < m; ++j)
          half[j] = type == StoreType::BF16 ? toBf16(f32[j]) : toF16(f32[j]);
        out.write(reinterpret_cast<const char *>(half.data()), m * 2);
      }
      done += m;
    }
  }
  out.close();
  if (out.has_error())
    return fileError(path, "cannot write: " + out.error().message());
  return llvm::Error::success();
}
} // namespace

llvm::Error saguaro::synthesizeModel(const std::string &config, const std::string &outDir, uint64_t seed) {
  auto json = readJsonFile(config);
  if (!json)
    return json.takeError();
  if (!json->getAsObject())
    return fileError(config, "not a JSON object");
  const llvm::json::Object &c = *json->getAsObject();
  const llvm::json::Array *archs = c.getArray("architectures");
  llvm::StringRef arch = archs && !archs->empty() ? (*archs)[0].getAsString().value_or("") : "";
  bool gemma4 = arch == "Gemma4ForCausalLM" || arch == "Gemma4ForConditionalGeneration";
  llvm::Expected<std::vector<TensorPlan>> tensors = std::vector<TensorPlan>();
  if (gemma4) {
    tensors = planGemma4(config, c, arch);
  } else if (auto shapes = readShapes(config, c)) {
    tensors = planTensors(*shapes);
  } else {
    return shapes.takeError();
  }
  if (!tensors)
    return tensors.takeError();
  StoreType type = storeTypeOf(c);
  if (llvm::sys::fs::exists(outDir))
    return fileError(outDir, "already exists (synth does not overwrite)");

  // Everything goes to DIR.tmp first, so an interrupted run never leaves a half-written model at DIR.
  std::string tmp = outDir + ".tmp";
  llvm::sys::fs::remove_directories(tmp);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmp))
    return fileError(tmp, "cannot create: " + ec.message());
  auto fail = [&](llvm::Error e) {
    llvm::sys::fs::remove_directories(tmp);
    return e;
  };
  llvm::SmallString<256> cfgOut(tmp), weights(tmp);
  llvm::sys::path::append(cfgOut, "config.json");
  llvm::sys::path::append(weights, "model.safetensors");
  if (std::error_code ec = llvm::sys::fs::copy_file(config, cfgOut))
    return fail(fileError(cfgOut, "cannot write: " + ec.message()));
  if (auto e = writeSafetensors(weights.str().str(), *tensors, type, seed))
    return fail(std::move(e));
  if (std::error_code ec = llvm::sys::fs::rename(tmp, outDir))
    return fail(fileError(outDir, "cannot rename " + tmp + ": " + ec.message()));
  uint64_t params = 0;
  for (const TensorPlan &t : *tensors)
    params += t.elements();
  const char *typeName = type == StoreType::F32 ? "float32" : type == StoreType::BF16 ? "bfloat16" : "float16";
  llvm::errs() << "saguaro: wrote " << outDir << " (" << tensors->size() << " tensors, " << params << " " << typeName
               << " parameters, seed " << seed << ")\n";
  return llvm::Error::success();
}
