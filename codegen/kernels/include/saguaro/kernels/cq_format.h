// Codebook-quantization (CQ) format primitives shared by the compiler's quantizer and the kernels.
//
// Normative spec: docs/quantization.md. Header-only, C++17, standard library only. Everything here is
// deterministic and portable (no floating-point library calls except one sqrt per rotation call), so the
// compiler (compiler/quantize/) and the kernels (generic/cq.h) compute the same rotation bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace saguaro::kernels::cq {

/// Seed of the splitmix64 stream that defines the rotation of every group size.
constexpr uint64_t kRotationSeed = 0x5A6E0C0DEB00C5ADull;

/// Smallest power of two >= k (1 for k <= 1).
constexpr int next_pow2(int k) {
  int p = 1;
  while (p < k) p *= 2;
  return p;
}

/// Group size g = min(128, max(8, next_pow2(K))).
constexpr int group_size(int K) {
  const int p = next_pow2(K);
  return p < 8 ? 8 : (p > 128 ? 128 : p);
}

/// Zero-padded row length Kp = ceil(K / g) * g.
constexpr int padded_k(int K) { return (K + group_size(K) - 1) / group_size(K) * group_size(K); }

/// Groups per row G = Kp / g.
constexpr int groups(int K) { return padded_k(K) / group_size(K); }

/// Bytes of one group's codes: g * bits / 8 (whole bytes since g >= 8).
constexpr int group_code_bytes(int K, int bits) { return group_size(K) * bits / 8; }

/// Bytes of one row's codes: G * g * bits / 8 (the second dimension of the U8 codes tensor).
constexpr int row_code_bytes(int K, int bits) { return groups(K) * group_code_bytes(K, bits); }

/// Standard splitmix64 generator (Vigna); `next` advances the state and returns the mixed output.
struct SplitMix64 {
  uint64_t state;
  constexpr uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// Fills perm[0..g) (Fisher–Yates from the identity, i = g-1 … 1) then sign[0..g) from the seeded stream.
template <class Perm, class Sign>
constexpr void fill_rotation(int g, Perm* perm, Sign* sign) {
  SplitMix64 rng{kRotationSeed};
  for (int i = 0; i < g; ++i) perm[i] = static_cast<Perm>(i);
  for (int i = g - 1; i >= 1; --i) {
    const int j = static_cast<int>(rng.next() % static_cast<uint64_t>(i + 1));
    const Perm t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int i = 0; i < g; ++i) sign[i] = (rng.next() & 1u) == 0 ? Sign(1) : Sign(-1);
}

/// Runtime rotation parameters for group size g: permutation π and signs s of R_g.
struct Rotation {
  std::vector<int32_t> perm;
  std::vector<float> sign;
};

/// Builds the rotation of group size g at run time (compiler side); equals make_rotation_table<g>().
inline Rotation make_rotation(int g) {
  Rotation r;
  r.perm.resize(static_cast<size_t>(g));
  r.sign.resize(static_cast<size_t>(g));
  fill_rotation(g, r.perm.data(), r.sign.data());
  return r;
}

/// Compile-time rotation parameters for group size G (kernel side).
template <int G>
struct RotationTable {
  int32_t perm[G];
  float sign[G];
};

/// Builds the rotation of group size G at compile time; equals make_rotation(G).
template <int G>
constexpr RotationTable<G> make_rotation_table() {
  RotationTable<G> t{};
  fill_rotation(G, t.perm, t.sign);
  return t;
}

/// The rotation table of group size G as a constexpr variable (one instance per G).
template <int G>
inline constexpr RotationTable<G> kRotationTable = make_rotation_table<G>();

/// In-place unnormalized fast Walsh–Hadamard transform v = H_g v (Sylvester order, butterflies h = 1, 2, 4, …).
inline void fwht_inplace(float* v, int g) {
  for (int h = 1; h < g; h *= 2) {
    for (int i = 0; i < g; i += 2 * h) {
      for (int j = i; j < i + h; ++j) {
        const float a = v[j];
        const float b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
}

/// 1/sqrt(g) as a float, the normalization of R_g (sqrt is correctly rounded, so this is portable).
inline float rotation_scale(int g) { return 1.0f / std::sqrt(static_cast<float>(g)); }

/// out = R_g v = (1/√g)·H_g·(s ⊙ v[π]); out must not alias v.
inline void rotate(const float* v, float* out, int g, const int32_t* perm, const float* sign) {
  for (int i = 0; i < g; ++i) out[i] = sign[i] * v[perm[i]];
  fwht_inplace(out, g);
  const float scale = rotation_scale(g);
  for (int i = 0; i < g; ++i) out[i] *= scale;
}

/// out = R_gᵀ u: t = H_g u, t *= 1/√g, t *= s, then out[π[i]] = t[i]; out must not alias u; g <= 128.
inline void unrotate(const float* u, float* out, int g, const int32_t* perm, const float* sign) {
  float t[128];
  for (int i = 0; i < g; ++i) t[i] = u[i];
  fwht_inplace(t, g);
  const float scale = rotation_scale(g);
  for (int i = 0; i < g; ++i) out[perm[i]] = (t[i] * scale) * sign[i];
}

/// Code i (bits wide) of a group's little-endian bit stream: bits i·bits … i·bits+bits−1, LSB first.
inline uint32_t read_code(const uint8_t* group, int i, int bits) {
  const int p = i * bits;
  const int byte = p >> 3;
  const int off = p & 7;
  uint32_t v = static_cast<uint32_t>(group[byte]) >> off;
  if (off + bits > 8) v |= static_cast<uint32_t>(group[byte + 1]) << (8 - off);
  return v & ((1u << bits) - 1u);
}

/// Stores code i (bits wide, low bits of `code`) into a group's bit stream, leaving the other bits unchanged.
inline void write_code(uint8_t* group, int i, int bits, uint32_t code) {
  const int p = i * bits;
  const int byte = p >> 3;
  const int off = p & 7;
  const uint32_t mask = (1u << bits) - 1u;
  code &= mask;
  group[byte] = static_cast<uint8_t>((group[byte] & ~(mask << off)) | (code << off));
  if (off + bits > 8) {
    const int sh = 8 - off;
    group[byte + 1] = static_cast<uint8_t>((group[byte + 1] & ~(mask >> sh)) | (code >> sh));
  }
}

/// How the codes of a weight are arranged in the blob (docs/quantization.md, "Packed layouts"); the kern-pack-weights
/// pass picks one per weight for the target and records it in manifest.json.
///  - kLayoutLsb: the format's own bit stream, code i of a group at bits i·bits … (read_code).
///  - kLayoutPlanar: the group is cut into chunks of B = planar_chunk(g, bits) codes, each stored as bit planes so
///    that one vector load and a shift and a mask yield B/P consecutive codes (P = 8/bits planes per byte):
///    4 bits — byte e (e < B/2) holds code e in its low and code B/2+e in its high nibble; 2 bits — byte e (e < B/4)
///    holds code q·B/4+e in bits 2q, 2q+1 (q = 0…3); 1 bit — the LSB stream; 3 bits — the codes' low two bits
///    arranged as for 2 bits (B/4 bytes), then the LSB stream of their high bits (B/8 bytes).
///  - kLayoutPlanarPanel8: planar groups, and rows in panels of 8 (the last panel holds the N mod 8 rest): panel p
///    stores group 0 of its rows one after another, then group 1, …, so a kernel that computes 8 outputs at once
///    reads one sequential stream. The norms follow the same panels ([panel][group][row]).
enum CodeLayout : int { kLayoutLsb = 0, kLayoutPlanar = 1, kLayoutPlanarPanel8 = 2 };

/// Rows per panel of a layout (1: plain row-major rows).
constexpr int panel_rows(int layout) { return layout == kLayoutPlanarPanel8 ? 8 : 1; }

/// Index, in units of one group's data (codes or norm), of group j of row n in a tensor of N rows of G groups.
constexpr int64_t group_index(int64_t n, int j, int64_t N, int G, int layout) {
  const int P = panel_rows(layout);
  if (P == 1) return n * G + j;
  const int64_t p0 = n / P * P;
  const int64_t width = N - p0 < P ? N - p0 : P;
  return p0 * G + static_cast<int64_t>(j) * width + (n - p0);
}

/// Codes per chunk of kLayoutPlanar: 64 (4 bits), 128 (2 and 3 bits), 32 (1 bit), at most the group size g.
constexpr int planar_chunk(int g, int bits) {
  const int b = bits == 4 ? 64 : (bits == 1 ? 32 : 128);
  return b < g ? b : g;
}

/// Code i of a group of g codes stored in `layout`.
inline uint32_t read_code_in(const uint8_t* group, int i, int g, int bits, int layout) {
  if (layout == kLayoutLsb || bits == 1) return read_code(group, i, bits);  // planar (with or without panels)
  const int B = planar_chunk(g, bits);
  const uint8_t* chunk = group + (i / B) * B * bits / 8;
  const int e = i % B;
  if (bits == 4) return (chunk[e % (B / 2)] >> (4 * (e / (B / 2)))) & 0xFu;
  const uint32_t low = (chunk[e % (B / 4)] >> (2 * (e / (B / 4)))) & 0x3u;
  if (bits == 2) return low;
  return low | (read_code(chunk + B / 4, e, 1) << 2);
}

/// Rearranges one group of g codes from the format's bit stream (kLayoutLsb) into `layout`; dst holds g·bits/8
/// bytes and must not alias src.
inline void pack_group(const uint8_t* src, uint8_t* dst, int g, int bits, int layout) {
  const int bytes = g * bits / 8;
  if (layout == kLayoutLsb || bits == 1) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  std::memset(dst, 0, static_cast<size_t>(bytes));
  const int B = planar_chunk(g, bits);
  for (int i = 0; i < g; ++i) {
    const uint32_t v = read_code(src, i, bits);
    uint8_t* chunk = dst + (i / B) * B * bits / 8;
    const int e = i % B;
    if (bits == 4) {
      chunk[e % (B / 2)] |= static_cast<uint8_t>(v << (4 * (e / (B / 2))));
      continue;
    }
    chunk[e % (B / 4)] |= static_cast<uint8_t>((v & 0x3u) << (2 * (e / (B / 4))));
    if (bits == 3) write_code(chunk + B / 4, e, 1, v >> 2);
  }
}

/// Rearranges a whole CQ tensor — codes U8 [N][G·g·bits/8] and norms F16 [N][G], both in the format's order — into
/// `layout` (same sizes); the destinations must not alias the sources.
inline void pack_tensor(const uint8_t* codes, const uint16_t* norms, int64_t N, int K, int bits, int layout,
                        uint8_t* out_codes, uint16_t* out_norms) {
  const int g = group_size(K), G = groups(K), gb = group_code_bytes(K, bits);
  for (int64_t n = 0; n < N; ++n)
    for (int j = 0; j < G; ++j) {
      const int64_t at = group_index(n, j, N, G, layout);
      pack_group(codes + (n * G + j) * gb, out_codes + at * gb, g, bits, layout);
      out_norms[at] = norms[n * G + j];
    }
}

/// The int8 activation path (docs/quantization.md, "Integer kernels"): codebook values as integers in [-64, 64].
/// q[c] = round(64·cb[c] / m) with m = max |cb[c]|, and cb[c] ≈ q[c]·(m / 64); `scale` receives m / 64.
inline void int8_codebook(const float* cb, int bits, int8_t* q, float* scale) {
  const int n = 1 << bits;
  float m = 0.0f;
  for (int c = 0; c < n; ++c) m = std::fabs(cb[c]) > m ? std::fabs(cb[c]) : m;
  for (int c = 0; c < n; ++c) q[c] = m > 0.0f ? static_cast<int8_t>(std::nearbyint(64.0f * cb[c] / m)) : 0;
  *scale = m / 64.0f;
}

/// Bytes of one row of quantized activations for K inputs: padded_k(K) int8 values, then groups(K) float scales,
/// then groups(K) int32 sums (a multiple of 8, so rows stay 4-byte aligned).
constexpr int act_row_bytes(int K) { return padded_k(K) + 8 * groups(K); }

/// IEEE binary16 bits to float (exact; subnormals, ±inf and NaN payloads preserved).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    // Zero or subnormal: mant · 2^-24, exact in float.
    float f = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -f : f;
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Float to IEEE binary16 bits, round to nearest even; overflow to ±inf, subnormals, NaN stays NaN (quiet).
inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7FFFFFFFu;
  if (x >= 0x7F800000u) {  // inf or NaN
    if (x == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
    return static_cast<uint16_t>(sign | 0x7C00u | 0x200u | ((x >> 13) & 0x3FFu));
  }
  if (x >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to inf
  if (x >= 0x38800000u) {                                               // normal half (>= 2^-14)
    const uint32_t mant = x & 0x7FFFFFu;
    uint32_t h = ((((x >> 23) - 127u + 15u)) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry into the exponent is correct
    return static_cast<uint16_t>(sign | h);
  }
  if (x <= 0x33000000u) return sign;  // <= 2^-25 rounds to ±0 (2^-25 ties to even 0)
  // Subnormal half: value / 2^-24 = mant · 2^(e - 126), shift = 126 - e in [14, 24].
  const uint32_t e = x >> 23;
  const uint32_t mant = (x & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126u - e;
  uint32_t h = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (h & 1u))) ++h;  // may become 0x400, the smallest normal
  return static_cast<uint16_t>(sign | h);
}

}  // namespace saguaro::kernels::cq
