// Triangular mel filter banks, built in C++ exactly as the Python feature extractors build them.
#pragma once

#include <cstddef>
#include <vector>

namespace saguaro::audio {

/// How hertz map to mels.
enum class MelScale {
  Slaney,  // librosa htk=False: linear below 1 kHz (3 bins per 200 Hz), logarithmic above (Whisper)
  Htk,     // 2595 log10(1 + f / 700) (HTK; transformers mel_scale="htk", Gemma USM)
};

/// How each triangle is scaled.
enum class MelNorm {
  None,    // peak 1
  Slaney,  // area-normalized: 2 / (right edge - left edge) in Hz (librosa norm='slaney')
};

double hzToMel(double hz, MelScale scale);
double melToHz(double mel, MelScale scale);

/// A mel filter bank over the bins of an n_fft-point real FFT, stored sparsely: the non-zero weights
/// of filter m are weights[offset[m] .. offset[m + 1]) and apply to bins first[m], first[m] + 1, ...
struct MelFilterBank {
  size_t nMels = 0, nBins = 0;
  std::vector<size_t> first, offset;
  std::vector<float> weights;

  /// The dense [nMels, nBins] matrix (row-major), as librosa.filters.mel or transformers return it.
  std::vector<float> dense() const;
};

/// Builds the bank the way librosa.filters.mel (and transformers' mel_filter_bank) do: nMels + 2
/// points evenly spaced in mels between fMin and fMax, mapped back to hertz; FFT bin k sits at
/// k * sampleRate / nFft hertz; weight = max(0, min(rising slope, falling slope)). Computed in double,
/// stored as float (librosa returns float32 to Whisper).
MelFilterBank makeMelFilterBank(size_t nMels, size_t nFft, double sampleRate, double fMin, double fMax,
                                MelScale scale, MelNorm norm);

}  // namespace saguaro::audio
