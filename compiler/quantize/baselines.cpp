// Baselines for CQ, as fake quant (quantize then dequantize to float): round-to-nearest and GPTQ.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compiler/quantize/parallel.h"
#include "compiler/quantize/quantize.h"
#include "saguaro/kernels/cq_format.h"

namespace saguaro::quant {
namespace {

void check_common(const float* w, int64_t N, int64_t K, int bits, int group, const char* who) {
  if (bits < 1 || bits > 8) throw std::invalid_argument(std::string(who) + ": bits " + std::to_string(bits) +
                                                        " outside [1, 8]");
  if (N < 0 || K < 1) throw std::invalid_argument(std::string(who) + ": bad shape");
  if (group < 1) throw std::invalid_argument(std::string(who) + ": group must be >= 1");
  if (N > 0 && w == nullptr) throw std::invalid_argument(std::string(who) + ": null weight pointer");
}

/// Asymmetric uniform grid with an integer zero point: ŵ = (clamp(round(x/s) + z, 0, maxq) − z)·s.
struct AsymGrid {
  float scale = 1.0f, zero = 0.0f, maxq = 1.0f, constant = 0.0f;
  bool is_constant = false;
  float operator()(float x) const {
    if (is_constant) return constant;
    const float q = std::min(std::max(std::nearbyint(x / scale) + zero, 0.0f), maxq);
    return (q - zero) * scale;
  }
};

/// RTN's grid: the group's own min and max (a constant group is reproduced exactly).
AsymGrid minmax_grid(const float* x, int len, int bits) {
  AsymGrid gr;
  gr.maxq = float((1u << bits) - 1u);
  float mn = x[0], mx = x[0];
  for (int i = 1; i < len; ++i) {
    mn = std::min(mn, x[i]);
    mx = std::max(mx, x[i]);
  }
  if (!(mx > mn)) {
    gr.is_constant = true;
    gr.constant = mn;
    return gr;
  }
  gr.scale = (mx - mn) / gr.maxq;
  gr.zero = std::min(std::max(std::nearbyint(-mn / gr.scale), 0.0f), gr.maxq);
  return gr;
}

/// GPTQ's published grid (Quantizer.find_params): range widened to include 0, [-1, 1] when the group is all 0.
AsymGrid gptq_grid(const float* x, int len, int bits) {
  AsymGrid gr;
  gr.maxq = float((1u << bits) - 1u);
  float mn = 0.0f, mx = 0.0f;
  for (int i = 0; i < len; ++i) {
    mn = std::min(mn, x[i]);
    mx = std::max(mx, x[i]);
  }
  if (mn == 0.0f && mx == 0.0f) {
    mn = -1.0f;
    mx = 1.0f;
  }
  gr.scale = (mx - mn) / gr.maxq;
  gr.zero = std::nearbyint(-mn / gr.scale);
  return gr;
}

void rtn_group(const float* x, float* y, int len, int bits, bool symmetric) {
  if (!symmetric) {
    const AsymGrid gr = minmax_grid(x, len, bits);
    for (int i = 0; i < len; ++i) y[i] = gr(x[i]);
    return;
  }
  if (bits == 1) {
    double sum = 0.0;
    for (int i = 0; i < len; ++i) sum += std::fabs(x[i]);
    const float s = static_cast<float>(sum / len);
    for (int i = 0; i < len; ++i) y[i] = x[i] < 0.0f ? -s : s;
    return;
  }
  float amax = 0.0f;
  for (int i = 0; i < len; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float qmax = float((1u << (bits - 1)) - 1u);
  if (amax == 0.0f) {
    std::fill(y, y + len, 0.0f);
    return;
  }
  const float s = amax / qmax;
  for (int i = 0; i < len; ++i) y[i] = std::min(std::max(std::nearbyint(x[i] / s), -qmax), qmax) * s;
}

}  // namespace

std::vector<float> rtn(const float* w, int64_t N, int64_t K, int bits, bool symmetric, int group) {
  check_common(w, N, K, bits, group, "rtn");
  std::vector<float> out(static_cast<size_t>(N * K));
  detail::parallel_rows(N, 64, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n)
      for (int64_t k0 = 0; k0 < K; k0 += group) {
        const int len = static_cast<int>(std::min<int64_t>(group, K - k0));
        rtn_group(w + n * K + k0, out.data() + n * K + k0, len, bits, symmetric);
      }
  });
  return out;
}

std::vector<float> q4_0(const float* w, int64_t N, int64_t K) {
  check_common(w, N, K, 4, 32, "q4_0");
  std::vector<float> out(static_cast<size_t>(N * K));
  detail::parallel_rows(N, 64, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n)
      for (int64_t k0 = 0; k0 < K; k0 += 32) {
        const float* x = w + n * K + k0;
        float* y = out.data() + n * K + k0;
        const int len = static_cast<int>(std::min<int64_t>(32, K - k0));
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < len; ++j)
          if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
        const float d = max / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        const float stored = kernels::cq::half_to_float(kernels::cq::float_to_half(d));
        for (int j = 0; j < len; ++j) {
          // llama.cpp truncates x·id + 8.5 to int8 (x·id ≥ −8, so this is round-half-up) and caps it at 15.
          const int q = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * id + 8.5f)));
          y[j] = static_cast<float>(q - 8) * stored;
        }
      }
  });
  return out;
}

std::string hessian_error(const std::vector<float>& hessian, int64_t K) {
  if (K < 1) return "hessian: K must be >= 1";
  if (int64_t(hessian.size()) != K * K)
    return "hessian: expected " + std::to_string(K) + "x" + std::to_string(K) + " values, got " +
           std::to_string(hessian.size());
  for (int64_t i = 0; i < K; ++i) {
    const float d = hessian[i * K + i];
    if (!(d >= 0.0f)) return "hessian: diagonal entry " + std::to_string(i) + " is negative or NaN";
    for (int64_t j = 0; j < K; ++j) {
      const float a = hessian[i * K + j], b = hessian[j * K + i];
      if (!std::isfinite(a)) return "hessian: non-finite entry";
      if (j > i && std::fabs(a - b) > 1e-3f * std::max({std::fabs(a), std::fabs(b), 1e-30f}) + 1e-30f)
        return "hessian: not symmetric at (" + std::to_string(i) + ", " + std::to_string(j) + ")";
    }
  }
  return {};
}

namespace detail {

bool inverse_cholesky_upper(const std::vector<double>& H, int64_t K, std::vector<double>& U) {
  // UL factorization H = T Tᵀ with T upper triangular (a Cholesky run from the last index), then U = T⁻¹:
  // Uᵀ U = T⁻ᵀ T⁻¹ = (T Tᵀ)⁻¹ = H⁻¹ and U is upper with a positive diagonal, i.e. the upper Cholesky factor of H⁻¹.
  // Both steps are blocked by kB columns/rows so that the large operand is streamed once per block, not per index.
  constexpr int64_t kB = 32;
  std::vector<double> T(static_cast<size_t>(K * K), 0.0);
  for (int64_t i = 0; i < K; ++i)
    for (int64_t j = i; j < K; ++j) T[i * K + j] = H[i * K + j];
  std::vector<double> Bt;
  for (int64_t j1 = K; j1 > 0; j1 -= kB) {
    const int64_t j0 = std::max<int64_t>(0, j1 - kB), bw = j1 - j0;
    // (1) T[i][jj] -= Σ_{k ≥ j1} T[i][k] T[jj][k] for jj in [j0, j1), i ≤ jj: the block rows, transposed.
    const int64_t tail = K - j1;
    if (tail > 0) {
      Bt.assign(static_cast<size_t>(tail * bw), 0.0);
      for (int64_t jj = 0; jj < bw; ++jj)
        for (int64_t k = 0; k < tail; ++k) Bt[k * bw + jj] = T[(j0 + jj) * K + j1 + k];
      parallel_rows(j1, 64, [&](int64_t b, int64_t e) {
        double acc[kB];
        for (int64_t i = b; i < e; ++i) {
          const double* ti = T.data() + i * K + j1;
          for (int64_t jj = 0; jj < bw; ++jj) acc[jj] = 0.0;
          for (int64_t k = 0; k < tail; ++k) {
            const double a = ti[k];
            const double* bk = Bt.data() + k * bw;
            for (int64_t jj = 0; jj < bw; ++jj) acc[jj] += a * bk[jj];
          }
          for (int64_t jj = std::max<int64_t>(0, i - j0); jj < bw; ++jj) T[i * K + j0 + jj] -= acc[jj];
        }
      });
    }
    // (2) Finish the block's columns right to left with the contributions from inside the block.
    for (int64_t j = j1 - 1; j >= j0; --j) {
      const double* tj = T.data() + j * K;
      double s = tj[j];
      for (int64_t k = j + 1; k < j1; ++k) s -= tj[k] * tj[k];
      if (!(s > 0.0) || !std::isfinite(s)) return false;
      const double d = std::sqrt(s);
      T[j * K + j] = d;
      for (int64_t i = 0; i < j; ++i) {
        double* ti = T.data() + i * K;
        double v = ti[j];
        for (int64_t k = j + 1; k < j1; ++k) v -= ti[k] * tj[k];
        ti[j] = v / d;
      }
    }
  }
  // U = T⁻¹ by rows from the bottom: u_i = (e_i − Σ_{k>i} T[i][k] u_k) / T[i][i], rows blocked by kB.
  U.assign(static_cast<size_t>(K * K), 0.0);
  for (int64_t i1 = K; i1 > 0; i1 -= kB) {
    const int64_t i0 = std::max<int64_t>(0, i1 - kB);
    for (int64_t i = i0; i < i1; ++i) U[i * K + i] = 1.0;
    // Contributions of the finished rows k ≥ i1, each row of U streamed once for the whole block.
    parallel_rows(i1 - i0, (i1 - i0 + 1) / 2, [&](int64_t b, int64_t e) {
      for (int64_t k = i1; k < K; ++k) {
        const double* uk = U.data() + k * K;
        for (int64_t i = i0 + b; i < i0 + e; ++i) {
          const double a = T[i * K + k];
          double* ui = U.data() + i * K;
          for (int64_t c = k; c < K; ++c) ui[c] -= a * uk[c];
        }
      }
    });
    for (int64_t i = i1 - 1; i >= i0; --i) {
      double* ui = U.data() + i * K;
      for (int64_t k = i + 1; k < i1; ++k) {
        const double a = T[i * K + k];
        const double* uk = U.data() + k * K;
        for (int64_t c = k; c < K; ++c) ui[c] -= a * uk[c];
      }
      const double inv = 1.0 / T[i * K + i];
      for (int64_t c = i; c < K; ++c) ui[c] *= inv;
    }
  }
  return true;
}

/// Damped inverse-Hessian Cholesky (float, row-major upper) and the dead-input mask, shared by GPTQ and CQ-EF.
std::vector<float> prepare_hessian(const std::vector<float>& hessian, int64_t K, float damp, std::vector<char>& dead,
                                   const char* who) {
  const std::string err = hessian_error(hessian, K);
  if (!err.empty()) throw std::invalid_argument(std::string(who) + ": " + err);
  if (!(damp >= 0.0f)) throw std::invalid_argument(std::string(who) + ": damp must be >= 0");
  std::vector<double> H(static_cast<size_t>(K * K));
  dead.assign(static_cast<size_t>(K), 0);
  for (int64_t i = 0; i < K; ++i)
    for (int64_t j = 0; j < K; ++j) H[i * K + j] = 0.5 * (double(hessian[i * K + j]) + double(hessian[j * K + i]));
  double mean = 0.0;
  for (int64_t i = 0; i < K; ++i) {
    if (H[i * K + i] == 0.0) {
      dead[i] = 1;
      H[i * K + i] = 1.0;
    }
    mean += H[i * K + i];
  }
  mean /= double(K);
  std::vector<double> U;
  double d = damp;
  for (int attempt = 0; attempt < 5; ++attempt, d *= 10.0) {
    std::vector<double> Hd = H;
    for (int64_t i = 0; i < K; ++i) Hd[i * K + i] += d * mean;
    if (inverse_cholesky_upper(Hd, K, U)) return std::vector<float>(U.begin(), U.end());
    if (d == 0.0) d = 1e-4;  // so that the retries damp at all
  }
  throw std::invalid_argument(std::string(who) + ": Hessian is not positive definite even with damping " +
                              std::to_string(d / 10.0));
}

}  // namespace detail

std::vector<float> gptq(const float* w, int64_t N, int64_t K, int bits, const std::vector<float>& hessian, int group,
                        float damp) {
  check_common(w, N, K, bits, group, "gptq");
  std::vector<char> dead;
  const std::vector<float> U = detail::prepare_hessian(hessian, K, damp, dead, "gptq");
  std::vector<float> out(static_cast<size_t>(N * K));
  constexpr int64_t kTile = 16;  // rows sharing each streamed row of U
  detail::parallel_rows(N, kTile, [&](int64_t b, int64_t e) {
    const int64_t rows = e - b;
    std::vector<float> Wt(static_cast<size_t>(rows * K));
    std::vector<AsymGrid> grid(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < K; ++k) Wt[r * K + k] = dead[k] ? 0.0f : w[(b + r) * K + k];
    for (int64_t i = 0; i < K; ++i) {
      if (i % group == 0) {
        const int len = static_cast<int>(std::min<int64_t>(group, K - i));
        for (int64_t r = 0; r < rows; ++r) grid[r] = gptq_grid(Wt.data() + r * K + i, len, bits);
      }
      const float* ui = U.data() + i * K;
      const float d = ui[i];
      for (int64_t r = 0; r < rows; ++r) {
        float* wr = Wt.data() + r * K;
        const float x = wr[i];
        const float q = grid[r](x);
        out[(b + r) * K + i] = q;
        const float err = (x - q) / d;
        for (int64_t k = i + 1; k < K; ++k) wr[k] -= err * ui[k];
      }
    }
  });
  return out;
}

namespace {

/// rows-rotate in double: every zero-padded group of each row r of X [rows][K] becomes (R_g x_j)ᵀ; out [rows][Kp].
std::vector<double> rotate_rows(const std::vector<double>& X, int64_t rows, int64_t K, int64_t Kp, int g,
                                const saguaro::kernels::cq::Rotation& rot) {
  std::vector<double> out(static_cast<size_t>(rows * Kp), 0.0);
  const double scale = 1.0 / std::sqrt(double(g));
  detail::parallel_rows(rows, 64, [&](int64_t b, int64_t e) {
    std::vector<double> v(g), t(g);
    for (int64_t r = b; r < e; ++r)
      for (int64_t k0 = 0; k0 < Kp; k0 += g) {
        for (int i = 0; i < g; ++i) v[i] = k0 + i < K ? X[r * K + k0 + i] : 0.0;
        for (int i = 0; i < g; ++i) t[i] = rot.sign[i] * v[rot.perm[i]];
        for (int h = 1; h < g; h *= 2)
          for (int i = 0; i < g; i += 2 * h)
            for (int j = i; j < i + h; ++j) {
              const double a = t[j], c = t[j + h];
              t[j] = a + c;
              t[j + h] = a - c;
            }
        for (int i = 0; i < g; ++i) out[r * Kp + k0 + i] = t[i] * scale;
      }
  });
  return out;
}

}  // namespace

CqTensor cq_with_error_feedback(const float* w, int64_t N, int64_t K, int bits, const std::vector<float>& hessian,
                                std::optional<float> damp) {
  namespace cq = saguaro::kernels::cq;
  if (bits < 1 || bits > 4) throw std::invalid_argument("CQ supports 1, 2, 3 or 4 bits, not " + std::to_string(bits));
  check_common(w, N, K, bits, 1, "cq_with_error_feedback");
  if (K > (int64_t(1) << 30)) throw std::invalid_argument("cq_with_error_feedback: K too large");
  {
    const std::string err = hessian_error(hessian, K);
    if (!err.empty()) throw std::invalid_argument("cq_with_error_feedback: " + err);
  }
  const int k = static_cast<int>(K);
  const int g = cq::group_size(k), G = cq::groups(k), Kp = cq::padded_k(k);
  const int group_bytes = cq::group_code_bytes(k, bits);
  const int64_t row_bytes = cq::row_code_bytes(k, bits);
  const cq::Rotation rot = cq::make_rotation(g);

  // Rotated Hessian H~ = B H Bᵀ (B = blockdiag(R_g), zero padding) from two row rotations and a transpose.
  std::vector<double> H(hessian.begin(), hessian.end());
  for (int64_t i = 0; i < K; ++i)  // dead inputs carry no signal: zero their weights before rotating
    if (hessian[i * K + i] == 0.0f)
      for (int64_t j = 0; j < K; ++j) H[i * K + j] = H[j * K + i] = 0.0;
  std::vector<double> A = rotate_rows(H, K, K, Kp, g, rot);  // [K][Kp] = H Bᵀ
  std::vector<double> At(static_cast<size_t>(int64_t(Kp) * K));
  for (int64_t r = 0; r < K; ++r)
    for (int64_t c = 0; c < Kp; ++c) At[c * K + r] = A[r * Kp + c];
  A.clear();
  A.shrink_to_fit();
  const std::vector<double> Hr = rotate_rows(At, Kp, K, Kp, g, rot);  // [Kp][Kp] = B H Bᵀ
  At.clear();
  At.shrink_to_fit();
  std::vector<float> Hf(Hr.begin(), Hr.end());
  for (int64_t i = 0; i < Kp; ++i)  // exact symmetry for hessian_error's check
    for (int64_t j = i + 1; j < Kp; ++j) Hf[j * Kp + i] = Hf[i * Kp + j];
  std::vector<char> dead;
  const std::vector<float> U = detail::prepare_hessian(Hf, Kp, damp_for(damp, bits), dead, "cq_with_error_feedback");

  std::vector<double> Wd(static_cast<size_t>(N * K));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < K; ++c) Wd[n * K + c] = hessian[c * K + c] == 0.0f ? 0.0 : double(w[n * K + c]);
  const std::vector<double> Wr = rotate_rows(Wd, N, K, Kp, g, rot);  // [N][Kp], rows of rotated groups
  Wd.clear();
  Wd.shrink_to_fit();

  CqTensor t;
  t.bits = bits;
  t.g = g;
  t.groups = G;
  t.codes.assign(static_cast<size_t>(N * row_bytes), 0);
  t.norms.assign(static_cast<size_t>(N * G), 0);
  const std::vector<float>& cb = codebook(g, bits);
  const int levels = 1 << bits;
  double mids[16];
  for (int q = 0; q + 1 < levels; ++q) mids[q] = 0.5 * (double(cb[q]) + double(cb[q + 1]));

  constexpr int64_t kTile = 16;
  detail::parallel_rows(N, kTile, [&](int64_t b, int64_t e) {
    const int64_t rows = e - b;
    std::vector<float> Wt(static_cast<size_t>(rows * Kp));
    std::vector<float> sig(static_cast<size_t>(rows)), norm(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows * Kp; ++i) Wt[i] = static_cast<float>(Wr[b * Kp + i]);
    for (int64_t i = 0; i < Kp; ++i) {
      const int j = static_cast<int>(i / g), ii = static_cast<int>(i % g);
      if (ii == 0)
        for (int64_t r = 0; r < rows; ++r) {
          // Fixed before the group's first column, as plain CQ defines them for the error-updated group
          // (docs/quantization.md, "Stored tensor"): codes are nearest centroids of w/σ, and the stored scale
          // is the least-squares scale of the group's nearest codes.
          const float* wg = Wt.data() + r * Kp + i;
          double ss = 0.0;
          for (int m = 0; m < g; ++m) ss += double(wg[m]) * wg[m];
          const double sigma = std::sqrt(ss);
          double scale = sigma;
          if (sigma > 0.0) {
            double dot = 0.0, cc = 0.0;
            for (int m = 0; m < g; ++m) {
              uint32_t c = 0;
              for (int step = levels >> 1; step > 0; step >>= 1)
                if (wg[m] / sigma > mids[c + step - 1]) c += step;
              dot += double(wg[m]) * cb[c];
              cc += double(cb[c]) * cb[c];
            }
            if (cc > 0.0) scale = dot / cc;
          }
          const uint16_t h = cq::float_to_half(static_cast<float>(scale));
          if ((h & 0x7C00u) == 0x7C00u) throw std::invalid_argument("cq_with_error_feedback: norm beyond fp16");
          t.norms[(b + r) * G + j] = h;
          sig[r] = cq::half_to_float(h);
          norm[r] = static_cast<float>(sigma);
        }
      const float* ui = U.data() + i * Kp;
      const float d = ui[i];
      for (int64_t r = 0; r < rows; ++r) {
        float* wr = Wt.data() + r * Kp;
        const float x = wr[i];
        uint32_t code = 0;
        float qv = 0.0f;
        if (sig[r] > 0.0f && norm[r] > 0.0f) {
          const double y = double(x) / double(norm[r]);
          for (int step = levels >> 1; step > 0; step >>= 1)
            if (y > mids[code + step - 1]) code += step;
          qv = sig[r] * cb[code];
        }
        cq::write_code(t.codes.data() + (b + r) * row_bytes + int64_t(j) * group_bytes, ii, bits, code);
        const float err = (x - qv) / d;
        for (int64_t c = i + 1; c < Kp; ++c) wr[c] -= err * ui[c];
      }
    }
  });
  return t;
}

}  // namespace saguaro::quant
