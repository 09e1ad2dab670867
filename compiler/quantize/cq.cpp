// CQ quantize / dequantize in the stored format of docs/quantization.md ("Stored tensor").
//
// Choices inside the spec's freedom, documented here:
// - σ is accumulated in double from the float weights; u = w/σ is rounded to float before the float rotation
//   (saguaro/kernels/cq_format.h's rotate, the one the kernels use); the stored norm is float_to_half(float(σ)).
// - argmin_q |r − c_q| is decided in exact arithmetic: r is compared with the midpoints (c_q + c_{q+1})/2 computed in
//   double (exact for float centroids); r equal to a midpoint goes to the lower index.
// - A group whose σ would round to fp16 infinity (σ ≥ 65520) or that contains inf/NaN is an error.
#include <cmath>
#include <stdexcept>
#include <string>

#include "compiler/quantize/parallel.h"
#include "compiler/quantize/quantize.h"
#include "saguaro/kernels/cq_format.h"

namespace saguaro::quant {

namespace cq = saguaro::kernels::cq;

namespace {

int g_thread_cap = 0;

constexpr int64_t kMaxK = int64_t(1) << 30;

std::string shape_error(int64_t N, int64_t K, int bits) {
  if (bits < 1 || bits > 4) return "CQ supports 1, 2, 3 or 4 bits, not " + std::to_string(bits);
  if (N < 0) return "CQ: negative row count " + std::to_string(N);
  if (K < 1 || K > kMaxK) return "CQ: row length K=" + std::to_string(K) + " outside [1, 2^30]";
  return {};
}

/// Squared L2 norm (double) of the zero-padded group j of row `row` (K floats); NaN/inf propagate.
double group_sumsq(const float* row, int64_t K, int g, int j, float* buf) {
  const int64_t k0 = int64_t(j) * g;
  const int len = static_cast<int>(std::min<int64_t>(g, K - k0));
  double ss = 0.0;
  for (int i = 0; i < len; ++i) {
    buf[i] = row[k0 + i];
    ss += double(buf[i]) * double(buf[i]);
  }
  for (int i = len; i < g; ++i) buf[i] = 0.0f;
  return ss;
}

std::string group_error(double ss, int64_t n, int j) {
  if (!std::isfinite(ss))
    return "CQ: row " + std::to_string(n) + " group " + std::to_string(j) + " contains inf or NaN";
  const uint16_t h = cq::float_to_half(static_cast<float>(std::sqrt(ss)));
  if ((h & 0x7C00u) == 0x7C00u)
    return "CQ: row " + std::to_string(n) + " group " + std::to_string(j) + " has L2 norm " +
           std::to_string(std::sqrt(ss)) + ", beyond the fp16 range of stored norms";
  return {};
}

}  // namespace

namespace detail {
int num_threads() {
  if (g_thread_cap > 0) return g_thread_cap;
  const unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}
}  // namespace detail

void set_num_threads(int n) { g_thread_cap = n < 0 ? 0 : n; }

std::string cq_input_error(const float* w, int64_t N, int64_t K, int bits) {
  std::string err = shape_error(N, K, bits);
  if (!err.empty() || N == 0) return err;
  if (w == nullptr) return "CQ: null weight pointer";
  const int g = cq::group_size(static_cast<int>(K));
  const int G = cq::groups(static_cast<int>(K));
  std::mutex mu;
  detail::parallel_rows(N, 256, [&](int64_t b, int64_t e) {
    std::vector<float> buf(g);
    for (int64_t n = b; n < e; ++n)
      for (int j = 0; j < G; ++j) {
        std::string ge = group_error(group_sumsq(w + n * K, K, g, j, buf.data()), n, j);
        if (!ge.empty()) {
          std::lock_guard<std::mutex> lock(mu);
          if (err.empty()) err = ge;
          return;
        }
      }
  });
  return err;
}

CqTensor quantize_cq(const float* w, int64_t N, int64_t K, int bits) {
  const std::string err = shape_error(N, K, bits);
  if (!err.empty()) throw std::invalid_argument(err);
  if (N > 0 && w == nullptr) throw std::invalid_argument("CQ: null weight pointer");
  const int k = static_cast<int>(K);
  CqTensor t;
  t.bits = bits;
  t.g = cq::group_size(k);
  t.groups = cq::groups(k);
  const int g = t.g, G = t.groups, group_bytes = cq::group_code_bytes(k, bits);
  const int64_t row_bytes = cq::row_code_bytes(k, bits);
  t.codes.assign(static_cast<size_t>(N * row_bytes), 0);
  t.norms.assign(static_cast<size_t>(N * G), 0);

  const cq::Rotation rot = cq::make_rotation(g);
  const std::vector<float>& cb = codebook(g, bits);
  const int levels = 1 << bits;
  double mids[16];
  for (int q = 0; q + 1 < levels; ++q) mids[q] = 0.5 * (double(cb[q]) + double(cb[q + 1]));

  detail::parallel_rows(N, 64, [&](int64_t b, int64_t e) {
    std::vector<float> buf(g), u(g), r(g);
    for (int64_t n = b; n < e; ++n) {
      const float* row = w + n * K;
      uint8_t* codes = t.codes.data() + n * row_bytes;
      for (int j = 0; j < G; ++j) {
        const double ss = group_sumsq(row, K, g, j, buf.data());
        const std::string ge = group_error(ss, n, j);
        if (!ge.empty()) throw std::invalid_argument(ge);
        if (ss == 0.0) continue;  // codes 0, norm 0
        const double sigma = std::sqrt(ss);
        for (int i = 0; i < g; ++i) u[i] = static_cast<float>(double(buf[i]) / sigma);
        cq::rotate(u.data(), r.data(), g, rot.perm.data(), rot.sign.data());
        uint8_t* dst = codes + int64_t(j) * group_bytes;
        double dot = 0, cc = 0;  // <r, c[code]> and |c[code]|^2 for the least-squares group scale
        for (int i0 = 0; i0 < g; i0 += 8, dst += bits) {
          uint32_t word = 0;
          for (int kk = 0; kk < 8; ++kk) {
            const double x = r[i0 + kk];
            uint32_t code = 0;
            for (int step = levels >> 1; step > 0; step >>= 1)
              if (x > mids[code + step - 1]) code += step;
            word |= code << (kk * bits);
            dot += x * double(cb[code]);
            cc += double(cb[code]) * double(cb[code]);
          }
          for (int by = 0; by < bits; ++by) dst[by] = static_cast<uint8_t>(word >> (8 * by));
        }
        // The stored scale minimises |w - s * R^T c[code]|: sigma * <r, c> / |c|^2 (docs/quantization.md).
        const double scale = cc > 0 ? sigma * dot / cc : sigma;
        t.norms[n * G + j] = cq::float_to_half(static_cast<float>(scale));
      }
    }
  });
  return t;
}

std::vector<float> dequantize_cq(const CqTensor& t, int64_t N, int64_t K) {
  const std::string err = shape_error(N, K, t.bits);
  if (!err.empty()) throw std::invalid_argument(err);
  const int k = static_cast<int>(K);
  const int g = cq::group_size(k), G = cq::groups(k);
  const int64_t row_bytes = cq::row_code_bytes(k, t.bits);
  const int group_bytes = cq::group_code_bytes(k, t.bits);
  if (t.g != g || t.groups != G || int64_t(t.codes.size()) != N * row_bytes || int64_t(t.norms.size()) != N * G)
    throw std::invalid_argument("dequantize_cq: tensor does not match shape [" + std::to_string(N) + ", " +
                                std::to_string(K) + "] at " + std::to_string(t.bits) + " bits");
  const cq::Rotation rot = cq::make_rotation(g);
  const std::vector<float>& cb = codebook(g, t.bits);
  std::vector<float> out(static_cast<size_t>(N * K));
  detail::parallel_rows(N, 64, [&](int64_t b, int64_t e) {
    std::vector<float> c(g), v(g);
    for (int64_t n = b; n < e; ++n) {
      for (int j = 0; j < G; ++j) {
        const uint8_t* src = t.codes.data() + n * row_bytes + int64_t(j) * group_bytes;
        for (int i = 0; i < g; ++i) c[i] = cb[cq::read_code(src, i, t.bits)];
        cq::unrotate(c.data(), v.data(), g, rot.perm.data(), rot.sign.data());
        const float sigma = cq::half_to_float(t.norms[n * G + j]);
        const int64_t k0 = int64_t(j) * g;
        const int len = static_cast<int>(std::min<int64_t>(g, K - k0));
        for (int i = 0; i < len; ++i) out[n * K + k0 + i] = sigma * v[i];
      }
    }
  });
  return out;
}

double bytes_per_weight(int64_t N, int64_t K, int bits) {
  const std::string err = shape_error(N, K, bits);
  if (!err.empty()) throw std::invalid_argument(err);
  const int k = static_cast<int>(K);
  const double per_row = double(cq::row_code_bytes(k, bits)) + 2.0 * cq::groups(k);
  (void)N;  // every row stores the same bytes
  return per_row / double(K);
}

double bits_per_weight(int64_t N, int64_t K, int bits) { return 8.0 * bytes_per_weight(N, K, bits); }

}  // namespace saguaro::quant
