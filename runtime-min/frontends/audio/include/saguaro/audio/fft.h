// Mixed-radix FFT (radix 4, 2, 3, 5 and a generic odd radix) for the STFT of the log-mel front-ends,
// in float or double (instantiated for both). Plans are built once: factors and twiddles are
// precomputed, transforms do not allocate.
#pragma once

#include <cstddef>
#include <vector>

namespace saguaro::audio {

/// A complex number laid out as two reals. Hand-written arithmetic keeps the butterflies free of
/// std::complex's NaN-recovery calls.
template <typename T>
struct ComplexOf {
  T re, im;
};
using Complex = ComplexOf<float>;

/// Forward complex DFT of one fixed length n >= 1: X[k] = sum_j x[j] exp(-2 pi i j k / n).
/// A Stockham auto-sort transform: every stage reads one buffer and writes the other in natural order,
/// so there is no bit-reversal pass.
template <typename T>
class ComplexFft {
 public:
  explicit ComplexFft(size_t n);
  size_t size() const { return n_; }
  /// Transforms `data` (n values) in place, using `scratch` (n values) as the second buffer.
  void forward(ComplexOf<T>* data, ComplexOf<T>* scratch) const;

 private:
  struct Stage {
    size_t radix;
    size_t span;     // length of the sub-transforms this stage splits (n at the first stage)
    size_t stride;   // distance between the interleaved sub-transforms (1 at the first stage)
    size_t twiddle;  // offset of this stage's twiddles in twiddles_: (span / radix) x (radix - 1)
  };
  void runStage(const Stage& s, const ComplexOf<T>* in, ComplexOf<T>* out) const;

  size_t n_;
  std::vector<Stage> stages_;
  std::vector<ComplexOf<T>> twiddles_;
};

/// Forward DFT of n real samples (n even) -> the n/2 + 1 non-negative frequency bins, computed as one
/// complex transform of n/2 points (even samples as real parts, odd samples as imaginary parts) and an
/// O(n) split. Not thread-safe: the plan owns its work buffers.
template <typename T>
class RealFft {
 public:
  explicit RealFft(size_t n);
  size_t size() const { return n_; }
  /// in: n samples; out: n/2 + 1 bins.
  void forward(const T* in, ComplexOf<T>* out);

 private:
  size_t n_;
  ComplexFft<T> half_;
  std::vector<ComplexOf<T>> split_;  // exp(-2 pi i k / n), k < n/2
  std::vector<ComplexOf<T>> work_, scratch_;
};

extern template class ComplexFft<float>;
extern template class ComplexFft<double>;
extern template class RealFft<float>;
extern template class RealFft<double>;

}  // namespace saguaro::audio
