// Resampling quality, measured: tones across the passband keep their level within 0.1 dB, tones that
// would alias (above the output Nyquist frequency) come out below -60 dB, and a sine sweep at
// 44.1 kHz becomes the same sweep sampled at 16 kHz. Levels are least-squares tone fits and RMS over
// the interior of the output (away from the zero-padded edges).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "audio_test_support.h"
#include "saguaro/audio/resample.h"

namespace saguaro::audio {
namespace {

using namespace testing;

std::vector<float> tone(double rate, double f, size_t n) {
  std::vector<float> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<float>(std::sin(2.0 * M_PI * f * i / rate));
  return s;
}

/// Exponential sweep from f0 to f1 over `seconds`, sampled at `rate` (phase from the closed form).
std::vector<float> sweep(double rate, double f0, double f1, double seconds) {
  const size_t n = static_cast<size_t>(seconds * rate);
  const double k = std::log(f1 / f0) / seconds;
  std::vector<float> s(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = i / rate;
    s[i] = static_cast<float>(std::sin(2.0 * M_PI * f0 * (std::exp(k * t) - 1.0) / k));
  }
  return s;
}

/// Largest |level| in dB of unit tones from fromHz to toHz (step stepHz) after inRate -> 16 kHz.
double worstPassbandDeviationDb(uint32_t inRate, double fromHz, double toHz, double stepHz) {
  const Resampler r(inRate, 16000);
  double worst = 0.0;
  for (double f = fromHz; f <= toHz + 1e-9; f += stepHz) {
    std::vector<float> y = r.process(tone(inRate, f, inRate));  // 1 s
    const double level = db(toneAmplitude(y, 16000, f, 1000, y.size() - 1000));
    if (std::abs(level) > std::abs(worst)) worst = level;
  }
  return worst;
}

TEST(Resample, OutputLengthAndRatio) {
  EXPECT_EQ(Resampler(44100, 16000).outputLength(485100), 176000u);  // jfk.flac's 11 s
  EXPECT_EQ(Resampler(48000, 16000).outputLength(3), 1u);
  EXPECT_EQ(Resampler(8000, 16000).outputLength(5), 10u);
  EXPECT_EQ(resample({1.0f, 2.0f}, 16000, 16000), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_TRUE(resample({}, 44100, 16000).empty());
}

TEST(Resample, ConstantStaysConstant) {
  std::vector<float> y = Resampler(44100, 16000).process(std::vector<float>(44100, 0.5f));
  for (size_t i = 500; i + 500 < y.size(); ++i) ASSERT_NEAR(y[i], 0.5f, 1e-6) << i;
}

TEST(Resample, PassbandWithinATenthOfADecibel) {
  // 20 Hz .. 7.2 kHz (90 % of the 8 kHz output Nyquist frequency) in 100 Hz steps.
  const double worst = worstPassbandDeviationDb(44100, 20, 7200, 100);
  std::printf("44.1 kHz -> 16 kHz passband 20 Hz..7.2 kHz: worst deviation %.5f dB\n", worst);
  EXPECT_LT(std::abs(worst), 0.1);
}

TEST(Resample, AliasesBelowSixtyDecibels) {
  // Every tone above 8 kHz would fold back into 0..8 kHz; what comes out is all alias.
  const Resampler r(44100, 16000);
  double worst = -400.0, worstAt = 0.0;
  for (double f = 8005; f < 22050; f += (f < 9000 ? 50 : 250)) {
    std::vector<float> y = r.process(tone(44100, f, 44100));
    const double level = db(std::sqrt(2.0) * rms(y, 1000, y.size() - 1000));  // re a unit sine
    if (level > worst) {
      worst = level;
      worstAt = f;
    }
  }
  std::printf("44.1 kHz -> 16 kHz aliasing of 8.005..22 kHz tones: worst %.1f dB (at %.0f Hz)\n", worst, worstAt);
  EXPECT_LT(worst, -60.0);
}

TEST(Resample, SweepBecomesTheSameSweepAt16kHz) {
  const Resampler r(44100, 16000);
  // In band: the output must equal the sweep sampled directly at 16 kHz.
  std::vector<float> y = r.process(sweep(44100, 20, 7200, 4.0));
  std::vector<float> want = sweep(16000, 20, 7200, 4.0);
  ASSERT_EQ(y.size(), want.size());
  double err = 0, ref = 0;
  for (size_t i = 1000; i + 1000 < y.size(); ++i) {
    err += (y[i] - want[i]) * double(y[i] - want[i]);
    ref += want[i] * double(want[i]);
  }
  const double errorDb = db(std::sqrt(err / ref));
  // An error 40 dB down bounds the gain deviation at |20 log10(1 +- 0.01)| < 0.09 dB.
  std::printf("sweep 20 Hz..7.2 kHz: error vs the ideal 16 kHz sweep %.1f dB\n", errorDb);
  EXPECT_LT(errorDb, -40.0);
  // Out of band: a sweep 8.1..22 kHz leaves nothing above -60 dB.
  std::vector<float> high = r.process(sweep(44100, 8100, 22000, 4.0));
  const double highDb = db(std::sqrt(2.0) * rms(high, 1000, high.size() - 1000));
  std::printf("sweep 8.1..22 kHz: residue %.1f dB\n", highDb);
  EXPECT_LT(highDb, -60.0);
}

TEST(Resample, OtherCommonRates) {
  // 48 kHz (1/3), 22.05 kHz (320/441), 8 kHz (upsampling 2/1), and 44.056 kHz, whose reduced ratio
  // (2000/5507) takes the interpolated-table path.
  EXPECT_LT(std::abs(worstPassbandDeviationDb(48000, 50, 7200, 350)), 0.1);
  EXPECT_LT(std::abs(worstPassbandDeviationDb(22050, 50, 7200, 350)), 0.1);
  EXPECT_LT(std::abs(worstPassbandDeviationDb(8000, 50, 3600, 250)), 0.1);
  EXPECT_LT(std::abs(worstPassbandDeviationDb(44056, 50, 7200, 350)), 0.1);
  // Upsampling must not create images: an 8 kHz file's 3 kHz tone stays alone.
  std::vector<float> y = Resampler(8000, 16000).process(tone(8000, 3000, 8000));
  std::vector<float> residual(y.size());
  const double a = toneAmplitude(y, 16000, 3000, 1000, y.size() - 1000);
  for (size_t i = 0; i < y.size(); ++i) residual[i] = y[i] - static_cast<float>(a * std::sin(2 * M_PI * 3000 * i / 16000.0));
  EXPECT_LT(db(std::sqrt(2.0) * rms(residual, 1000, y.size() - 1000)), -60.0);
}

}  // namespace
}  // namespace saguaro::audio
