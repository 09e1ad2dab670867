// Mel scales and filter banks. Constants are librosa's (core/convert.py hz_to_mel / mel_to_hz,
// filters.py mel) and HTK's; transformers' audio_utils.mel_filter_bank uses the same formulas.
#include "saguaro/audio/mel.h"

#include <algorithm>
#include <cmath>

namespace saguaro::audio {
namespace {

// Slaney's Auditory Toolbox scale as librosa implements it: linear up to 1 kHz, log above.
constexpr double kSlaneyHzPerMel = 200.0 / 3.0;
constexpr double kSlaneyLogStartHz = 1000.0;
constexpr double kSlaneyLogStartMel = kSlaneyLogStartHz / kSlaneyHzPerMel;  // 15
const double kSlaneyLogStep = std::log(6.4) / 27.0;                         // 27 mels per factor 6.4

}  // namespace

double hzToMel(double hz, MelScale scale) {
  if (scale == MelScale::Htk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz < kSlaneyLogStartHz) return hz / kSlaneyHzPerMel;
  return kSlaneyLogStartMel + std::log(hz / kSlaneyLogStartHz) / kSlaneyLogStep;
}

double melToHz(double mel, MelScale scale) {
  if (scale == MelScale::Htk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel < kSlaneyLogStartMel) return mel * kSlaneyHzPerMel;
  return kSlaneyLogStartHz * std::exp(kSlaneyLogStep * (mel - kSlaneyLogStartMel));
}

std::vector<float> MelFilterBank::dense() const {
  std::vector<float> out(nMels * nBins, 0.0f);
  for (size_t m = 0; m < nMels; ++m)
    for (size_t w = offset[m]; w < offset[m + 1]; ++w) out[m * nBins + first[m] + (w - offset[m])] = weights[w];
  return out;
}

MelFilterBank makeMelFilterBank(size_t nMels, size_t nFft, double sampleRate, double fMin, double fMax,
                                MelScale scale, MelNorm norm) {
  MelFilterBank bank;
  bank.nMels = nMels;
  bank.nBins = nFft / 2 + 1;
  // nMels + 2 edges, evenly spaced in mels (numpy.linspace).
  const double lo = hzToMel(fMin, scale), hi = hzToMel(fMax, scale);
  std::vector<double> edges(nMels + 2);
  for (size_t i = 0; i < edges.size(); ++i)
    edges[i] = melToHz(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(nMels + 1), scale);
  // Bin centres: numpy.linspace(0, sampleRate / 2, nBins) in librosa (fft_frequencies) and transformers.
  std::vector<double> bins(bank.nBins);
  for (size_t k = 0; k < bank.nBins; ++k)
    bins[k] = bank.nBins == 1 ? 0.0 : sampleRate / 2 * static_cast<double>(k) / static_cast<double>(bank.nBins - 1);

  bank.offset.push_back(0);
  for (size_t m = 0; m < nMels; ++m) {
    const double left = edges[m], centre = edges[m + 1], right = edges[m + 2];
    const double gain = norm == MelNorm::Slaney ? 2.0 / (right - left) : 1.0;
    size_t begin = bank.nBins, end = 0;
    std::vector<float> row(bank.nBins, 0.0f);
    for (size_t k = 0; k < bank.nBins; ++k) {
      const double rising = (bins[k] - left) / (centre - left), falling = (right - bins[k]) / (right - centre);
      const double w = std::max(0.0, std::min(rising, falling));
      if (w > 0.0) {
        // librosa stores the triangle in float32 before scaling it (weights *= enorm).
        row[k] = static_cast<float>(static_cast<float>(w) * gain);
        begin = std::min(begin, k);
        end = k + 1;
      }
    }
    if (begin >= end) begin = end = 0;  // an empty filter (too many mels for the FFT size)
    bank.first.push_back(begin);
    bank.weights.insert(bank.weights.end(), row.begin() + begin, row.begin() + end);
    bank.offset.push_back(bank.weights.size());
  }
  return bank;
}

}  // namespace saguaro::audio
