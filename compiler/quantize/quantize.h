// Codebook quantization (Cactus-Quants style, docs/quantization.md) and the baselines it is compared with.
//
// Plain C++17, no LLVM. Errors: the functions throw std::invalid_argument on bad input; callers compiled
// with -fno-exceptions should first call cq_input_error() / hessian_error(), which never throw and return
// an empty string when the input is acceptable.
//
// Threads: quantize_cq, dequantize_cq, rtn and gptq split rows over std::thread (hardware_concurrency,
// capped by set_num_threads); results never depend on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace saguaro::quant {

/// Lloyd-Max centroids (2^bits, ascending, float32) of one coordinate of a uniform unit vector in R^g; cached.
const std::vector<float>& codebook(int g, int bits);

/// Same centroids in double precision, before rounding to float (for tests and the reference check).
std::vector<double> codebook_f64(int g, int bits);

/// One quantized tensor in the stored format: codes U8 [N][groups·g·bits/8], norms F16 bits [N][groups].
struct CqTensor {
  int bits = 0, g = 0, groups = 0;
  std::vector<uint8_t> codes;
  std::vector<uint16_t> norms;
};

/// Empty when W[N][K] can be CQ-quantized at `bits` (1..4, sizes, finite values, norms within fp16), else why not.
std::string cq_input_error(const float* w, int64_t N, int64_t K, int bits);

/// Quantizes row-major W[N][K] per docs/quantization.md (norm, normalize, rotate, nearest centroid, pack).
CqTensor quantize_cq(const float* w, int64_t N, int64_t K, int bits);

/// Decodes a CqTensor to row-major float [N][K]: per group σ·R_gᵀ c[code], padding dropped.
std::vector<float> dequantize_cq(const CqTensor& t, int64_t N, int64_t K);

/// Stored bytes (codes + norms, not the shared codebook) per weight of a CQ tensor [N][K]: (bits·Kp/8 + 2·G)/K.
double bytes_per_weight(int64_t N, int64_t K, int bits);

/// 8 · bytes_per_weight: bits + 16/g, plus padding when K is not a multiple of g (what manifests report as bpw).
double bits_per_weight(int64_t N, int64_t K, int bits);

/// Round-to-nearest fake quant (quantize then dequantize) per row in groups of `group` along K (last one may be
/// shorter). symmetric, bits >= 2: s = max|w|/(2^(b-1)-1), q = clamp(round(w/s), -(2^(b-1)-1), 2^(b-1)-1), ŵ = q·s;
/// symmetric, 1 bit: ŵ = s·sign(w) with s = mean|w| (sign(0) = +1);
/// asymmetric: s = (max-min)/(2^b-1), z = clamp(round(-min/s), 0, 2^b-1), q = clamp(round(w/s)+z, 0, 2^b-1),
/// ŵ = (q-z)·s (integer zero point, as AWQ/GPTQ); a constant group is reproduced exactly. round = ties to even.
std::vector<float> rtn(const float* w, int64_t N, int64_t K, int bits, bool symmetric, int group = 128);

/// llama.cpp's Q4_0 as fake quant (quantize_row_q4_0_reference, then dequantize): per row, blocks of 32 along K (the
/// last one may be shorter, as if zero-padded); max = the signed value of largest magnitude (the first one on ties),
/// d = max/−8, q = min(15, trunc(x·(1/d) + 8.5)) (0 when d = 0), ŵ = (q − 8)·fp16(d). 4.5 stored bits per weight.
std::vector<float> q4_0(const float* w, int64_t N, int64_t K);

/// Empty when `hessian` is a usable K×K matrix (size, finite, symmetric within 1e-3 relative, diag >= 0).
std::string hessian_error(const std::vector<float>& hessian, int64_t K);

/// GPTQ fake quant (Frantar et al. 2022, no act-order): asymmetric min/max grid per group of `group` columns,
/// taken from the error-updated weights when the group starts; column-by-column error feedback with the upper
/// Cholesky factor of (H + damp·mean(diag H)·I)^-1, H = Xᵀ X (K×K, row-major). Dead inputs (H_ii = 0) are zeroed.
/// If the damped H is not positive definite, damp is multiplied by 10 (up to 4 times) before giving up.
std::vector<float> gptq(const float* w, int64_t N, int64_t K, int bits, const std::vector<float>& hessian,
                        int group = 128, float damp = 0.01f);

/// Error feedback's default damping (relative to mean(diag H)) for a matrix quantized at `bits`, used by the
/// driver for CQ and GPTQ alike when no --damp is given. Chosen per bit width on held-out validation text of
/// both project models, not the evaluation text (docs/quantization.md, "Error feedback", the damp table): at
/// 2 bits damp 1 beats 0.1 on both (default model 0.155 vs 0.224 mean KL, stories260K 2.45 vs 2.52), at 3 and
/// 4 bits 0.1 is best on both. GPTQ's paper uses 0.01, which over-fits the calibration activations at 2 bits.
/// 1 bit was not validated; it takes the 2-bit value (the coarser grid, the more error is fed forward).
constexpr float kDampLowBits = 1.0f;   // bits <= 2
constexpr float kDampHighBits = 0.1f;  // bits 3 and 4
constexpr float default_damp(int bits) { return bits <= 2 ? kDampLowBits : kDampHighBits; }

/// The damping error feedback uses for a matrix at `bits`: `damp` when given (an explicit --damp applies to
/// every matrix), default_damp(bits) otherwise.
constexpr float damp_for(std::optional<float> damp, int bits) { return damp ? *damp : default_damp(bits); }

/// GPTQ-style error feedback with CQ's grid: per group, weights rotated (W R_gᵀ), the norm taken from the
/// error-updated rotated group, each coordinate snapped to the nearest centroid·σ, and the error fed forward
/// with the inverse-Hessian Cholesky of the rotated Hessian. Output is a CqTensor in the stored format.
/// `damp` defaults to default_damp(bits).
CqTensor cq_with_error_feedback(const float* w, int64_t N, int64_t K, int bits, const std::vector<float>& hessian,
                                std::optional<float> damp = std::nullopt);

/// Caps the worker threads (0 = hardware_concurrency, the default).
void set_num_threads(int n);

namespace detail {
/// Upper-triangular U with Uᵀ U = H^-1 for SPD H (K×K row-major, double); false if H is not positive definite.
bool inverse_cholesky_upper(const std::vector<double>& H, int64_t K, std::vector<double>& U);
}  // namespace detail

}  // namespace saguaro::quant
