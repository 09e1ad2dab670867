// Rotary position embedding (generic).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace saguaro::kernels::generic {

/// Inverse frequency i of a head of dimension `hd`: 1/powf(theta, (float)(2i)/hd), llama2.c's float expression.
/// With `llama3_factor` > 0 it is adjusted as Hugging Face's rope_type "llama3" (Llama 3.1/3.2): wavelengths
/// longer than original_context/low_freq_factor are stretched by the factor, shorter than
/// original_context/high_freq_factor are kept, and the band between is blended linearly in original_context/wavelength.
/// Every ISA kernel takes its angles from here, so all of them agree bit for bit.
inline float rope_inv_freq(int i, int hd, float theta, float llama3_factor, float low_freq_factor,
                           float high_freq_factor, float original_context) {
  const float freq = 1.0f / powf(theta, static_cast<float>(2 * i) / static_cast<float>(hd));
  if (!(llama3_factor > 0.0f)) return freq;
  const float wavelen = 2.0f * 3.14159265358979323846f / freq;
  if (wavelen < original_context / high_freq_factor) return freq;
  if (wavelen > original_context / low_freq_factor) return freq / llama3_factor;
  const float smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
  return (1.0f - smooth) * freq / llama3_factor + smooth * freq;
}

/// cos and sin of the rotation angles val_i = pos·freq_i (i < HD/2) as rope_f32 computes them.
template <int HD>
struct RopeAngles {
  float cos[HD / 2];
  float sin[HD / 2];
};

/// The angles of `pos` for the ISA kernels, remembered per thread for the last position and parameters: a decode
/// step rotates q and k of every layer at the same position, so its 2·layers rope calls make the 3·HD/2 libm calls
/// (powf, cosf, sinf) once instead of each (Qwen3-0.6B: ~7 thousand cycles per layer). The frequencies are kept
/// apart, keyed by the parameters alone, so prefill's rows (one position each) compute them once per call too.
template <int HD>
inline const RopeAngles<HD>& rope_angles(float pos, float theta, float llama3_factor, float low_freq_factor,
                                         float high_freq_factor, float original_context) {
  constexpr int kHalf = HD / 2;
  struct Memo {
    bool have_freq = false, have_angles = false;
    float params[5];
    float freq[kHalf];
    float pos;
    RopeAngles<HD> angles;
  };
  static thread_local Memo m;
  const float params[5] = {theta, llama3_factor, low_freq_factor, high_freq_factor, original_context};
  if (!m.have_freq || std::memcmp(params, m.params, sizeof params) != 0) {  // bit patterns: NaN never matches
    for (int i = 0; i < kHalf; ++i)
      m.freq[i] = rope_inv_freq(i, HD, theta, llama3_factor, low_freq_factor, high_freq_factor, original_context);
    std::memcpy(m.params, params, sizeof params);
    m.have_freq = true, m.have_angles = false;
  }
  if (!m.have_angles || std::memcmp(&pos, &m.pos, sizeof pos) != 0) {
    for (int i = 0; i < kHalf; ++i) {
      const float val = pos * m.freq[i];
      m.angles.cos[i] = cosf(val);
      m.angles.sin[i] = sinf(val);
    }
    m.pos = pos, m.have_angles = true;
  }
  return m.angles;
}

/// Rotates the pair (v[i0], v[i1]) by the angle of cosine c and sine s: (v0·c - v1·s, v0·s + v1·c), llama2.c's
/// order; for i1 = i0 + HD/2 it is Hugging Face's x·cos + rotate_half(x)·sin (the sums commute exactly).
inline void rope_rotate_pair(float* v, int i0, int i1, float c, float s) {
  const float v0 = v[i0];
  const float v1 = v[i1];
  v[i0] = v0 * c - v1 * s;
  v[i1] = v0 * s + v1 * c;
}

/// In-place RoPE on x[rows][H][HD]; row r sits at position (pos0+r)/pos_scale.
/// Style 0: interleaved pairs (2i, 2i+1) as llama2.c; Style 1: halves (i, i+HD/2) as HF rotate_half.
/// Both use freq_i = rope_inv_freq(i, ...), val = pos*freq, then cosf/sinf (llama2.c order). The last four
/// arguments are Llama 3's frequency scaling (rope_inv_freq); the default 0 factor means none.
/// Only the first Rotary pairs rotate (partial rotary, Gemma 4's "proportional" RoPE: the frequencies stay those of
/// the whole HD); the others are left as they are, which is what a zero frequency would give.
template <int H, int HD, int Style, int Rotary = HD / 2>
inline void rope_f32(int32_t rows, int32_t pos0, float* x, float theta, float pos_scale, float llama3_factor = 0.0f,
                     float low_freq_factor = 1.0f, float high_freq_factor = 4.0f, float original_context = 8192.0f) {
  static_assert(HD % 2 == 0, "head dim must be even");
  static_assert(Style == 0 || Style == 1, "rope style is 0 (interleaved) or 1 (halves)");
  static_assert(Rotary >= 0 && Rotary <= HD / 2, "rotary pairs are 0 to HD/2");
  constexpr int kHalf = HD / 2;
  for (int32_t r = 0; r < rows; ++r) {
    // Dividing by 1.0f is exact, so unscaled positions match llama2.c's int-to-float conversion.
    const float pos = static_cast<float>(pos0 + r) / pos_scale;
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int i = 0; i < Rotary; ++i) {
      const float freq =
          rope_inv_freq(i, HD, theta, llama3_factor, low_freq_factor, high_freq_factor, original_context);
      const float val = pos * freq;
      const float fcr = cosf(val);
      const float fci = sinf(val);
      const int i0 = Style == 0 ? 2 * i : i;
      const int i1 = Style == 0 ? 2 * i + 1 : i + kHalf;
      for (int h = 0; h < H; ++h) rope_rotate_pair(xr + h * HD, i0, i1, fcr, fci);
    }
  }
}

/// In-place 2-D RoPE on x[rows][H][HD] (Gemma 4's vision encoder, apply_multidimensional_rope): row r's patch sits
/// at column positions[r][0] and row positions[r][1] (int32 [rows][2], used as they are, a negative padding
/// position too). In every head the channels [0, HD/2) rotate by the column, [HD/2, HD) by the row; inside each
/// half, rotate_half pairs (j, j + HD/4) turn by pos·freq_j, freq_j = rope_inv_freq(j, HD/2, theta) =
/// 1/powf(theta, (float)(2j)/(HD/2)) — both axes share the HD/4 frequencies. Angles, cosines and sines are float
/// (powf, a float product, cosf, sinf) as Hugging Face computes them in float32.
template <int H, int HD>
inline void rope_2d_f32(int32_t rows, const int32_t* positions, float* x, float theta) {
  static_assert(HD % 4 == 0, "each of the two halves of a head splits into rotate_half pairs");
  constexpr int kAxis = HD / 2;      // channels per axis
  constexpr int kFreqs = HD / 4;     // rotate_half pairs per axis
  for (int32_t r = 0; r < rows; ++r) {
    float* xr = x + static_cast<int64_t>(r) * H * HD;
    for (int axis = 0; axis < 2; ++axis) {
      const float pos = static_cast<float>(positions[2 * static_cast<int64_t>(r) + axis]);
      for (int j = 0; j < kFreqs; ++j) {
        const float val = pos * rope_inv_freq(j, kAxis, theta, 0.0f, 1.0f, 4.0f, 8192.0f);
        const float c = cosf(val);
        const float s = sinf(val);
        for (int h = 0; h < H; ++h) rope_rotate_pair(xr + h * HD + axis * kAxis, j, j + kFreqs, c, s);
      }
    }
  }
}

}  // namespace saguaro::kernels::generic
