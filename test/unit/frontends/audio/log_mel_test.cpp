// Log-mel features against the shared Whisper references (../shared/data/audio: features computed by
// openai/whisper itself, its mel_filters.npz, stats.json), and the conventions' structural rules.
// The Gemma features are compared with the numpy oracle by the end-to-end test (e2e_features_audio).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "audio_test_support.h"
#include "saguaro/audio/features.h"
#include "saguaro/audio/log_mel.h"
#include "saguaro/audio/wav.h"

namespace saguaro::audio {
namespace {

using namespace testing;

std::vector<float> jfkSamples() { return readWav(sharedAudio("jfk.wav")).samples; }

#define REQUIRE_SHARED(file)                                            \
  if (!exists(sharedAudio(file))) GTEST_SKIP() << sharedAudio(file) << " is absent"

class SlaneyFilters : public ::testing::TestWithParam<size_t> {};

TEST_P(SlaneyFilters, MatchWhisperNpz) {
  REQUIRE_SHARED("mel_filters.npz");
  const size_t nMels = GetParam();
  Array want = readNpzMember(sharedAudio("mel_filters.npz"), "mel_" + std::to_string(nMels));
  ASSERT_EQ(want.shape, (std::vector<size_t>{nMels, 201}));
  std::vector<float> got = makeMelFilterBank(nMels, 400, 16000, 0, 8000, MelScale::Slaney, MelNorm::Slaney).dense();
  double maxErr = 0, maxVal = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    maxErr = std::max(maxErr, std::abs(double(got[i]) - want.data[i]));
    maxVal = std::max(maxVal, double(want.data[i]));
  }
  std::printf("mel_%zu: max |C++ - librosa| = %.3g (largest weight %.4f)\n", nMels, maxErr, maxVal);
  EXPECT_LT(maxErr, 1e-6 * maxVal);
}

INSTANTIATE_TEST_SUITE_P(Whisper, SlaneyFilters, ::testing::Values(80, 128));

TEST(LogMel, JfkWhisper80MatchesOpenAiWhisper) {
  REQUIRE_SHARED("jfk_logmel80_unpadded.npy");
  Array want = readNpy(sharedAudio("jfk_logmel80_unpadded.npy"));
  Features got = logMel(jfkSamples(), LogMelConfig::whisper(80));
  ASSERT_EQ(want.shape, (std::vector<size_t>{80, 1100}));
  ASSERT_EQ(got.nMels, 80u);
  ASSERT_EQ(got.nFrames, 1100u);
  double maxErr = 0, sumErr = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    const double e = std::abs(double(got.data[i]) - want.data[i]);
    maxErr = std::max(maxErr, e);
    sumErr += e;
  }
  std::printf("jfk whisper-80 vs openai/whisper: max abs error %.3g, mean %.3g\n", maxErr,
              sumErr / got.data.size());
  EXPECT_LT(maxErr, 1e-3);
}

/// Checks features against one entry of stats.json (computed by openai/whisper from the same audio).
void expectStats(const Features& f, const std::string& key) {
  std::ifstream in(sharedAudio("stats.json"));
  const nlohmann::json s = nlohmann::json::parse(in)[key];
  ASSERT_EQ(f.nMels, s["shape"][0].get<size_t>());
  ASSERT_EQ(f.nFrames, s["shape"][1].get<size_t>());
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (float v : f.data) {
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
    sum += v;
  }
  const double n = static_cast<double>(f.data.size());
  std::printf("%s: min %.6f (ref %.6f) max %.6f (ref %.6f) mean %.7f (ref %.7f) sum %.2f (ref %.2f)\n", key.c_str(), lo,
              s["min"].get<double>(), hi, s["max"].get<double>(), sum / n, s["mean"].get<double>(), sum,
              s["sum"].get<double>());
  EXPECT_NEAR(lo, s["min"].get<double>(), 1e-4);
  EXPECT_NEAR(hi, s["max"].get<double>(), 1e-4);
  // Element errors are ~1e-5 at most and of both signs; the mean agrees to ~1e-8.
  EXPECT_NEAR(sum / n, s["mean"].get<double>(), 1e-6);
  EXPECT_NEAR(sum, s["sum"].get<double>(), 1e-6 * n);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_NEAR(f.at(i, 0), s["first_frame_first8"][i].get<double>(), 1e-3) << "mel " << i;
    EXPECT_NEAR(f.at(i, 100), s["frame100_first8"][i].get<double>(), 1e-3) << "mel " << i;
  }
}

TEST(LogMel, JfkWhisperVariantsMatchStats) {
  REQUIRE_SHARED("stats.json");
  const std::vector<float> x = jfkSamples();
  expectStats(logMel(x, LogMelConfig::whisper(80)), "80_unpadded");
  expectStats(logMel(x, LogMelConfig::whisper(128)), "128_unpadded");
  LogMelConfig padded80 = LogMelConfig::whisper(80), padded128 = LogMelConfig::whisper(128);
  padded80.padOrTrimTo = padded128.padOrTrimTo = 480000;
  expectStats(logMel(x, padded80), "80_pad30s");
  expectStats(logMel(x, padded128), "128_pad30s");
}

TEST(LogMel, WhisperFrameCountAndTooShortInput) {
  // 1 + n / hop STFT frames, the last dropped; reflect padding needs more than n_fft / 2 samples.
  EXPECT_EQ(logMel(std::vector<float>(16000, 0.1f), LogMelConfig::whisper(80)).nFrames, 100u);
  EXPECT_EQ(logMel(std::vector<float>(201, 0.1f), LogMelConfig::whisper(80)).nFrames, 1u);
  EXPECT_THROW(logMel(std::vector<float>(200, 0.1f), LogMelConfig::whisper(80)), AudioError);
  // Silence padded to 30 s: log10(1e-10) = -10 everywhere, clamped at max - 8, then (x + 4) / 4.
  LogMelConfig padded = LogMelConfig::whisper(80);
  padded.padOrTrimTo = 480000;
  Features silent = logMel({0.0f}, padded);
  EXPECT_EQ(silent.nFrames, 3000u);
  for (float v : silent.data) ASSERT_FLOAT_EQ(v, -1.5f);
}

TEST(LogMel, Gemma4FramingAndMask) {
  const LogMelConfig g = LogMelConfig::gemma4();
  EXPECT_EQ(g.nFft, 512u);
  EXPECT_EQ(g.frameLength, 320u);
  // 900 samples are padded to 1024, then 160 zeros go in front: (1184 - 321) / 160 + 1 = 6 frames.
  // Frame t ends at padded sample t * 160 + 320; it is zeroed when that is padding (>= 160 + 900): t = 5.
  std::vector<float> x(900);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.05 * i));
  Features f = logMel(x, g);
  ASSERT_EQ(f.nMels, 128u);
  ASSERT_EQ(f.nFrames, 6u);
  EXPECT_EQ(f.nValid, 5u);  // (900 - 1) / 160
  for (size_t m = 0; m < 128; ++m) {
    EXPECT_EQ(f.at(m, 5), 0.0f) << m;
    EXPECT_NE(f.at(m, 4), 0.0f) << m;
  }
  // Silence: ln(0 + 1e-3) in every real frame.
  Features quiet = logMel(std::vector<float>(16000, 0.0f), g);
  EXPECT_EQ(quiet.nFrames, 99u);  // (16000 + 160 - 321) / 160 + 1
  EXPECT_FLOAT_EQ(quiet.at(7, 3), std::log(1e-3f));
  // 30 s are accepted and one sample more is refused (not cut); padding to 30 s (--pad-30s) is padding
  // for the mask too: frame 98 ends on padded sample 98 * 160 + 320 < 160 + 16000, frame 99 does not.
  Features full = logMel(std::vector<float>(480000, 0.0f), g);
  EXPECT_EQ(full.nFrames, 2999u);
  EXPECT_EQ(full.nValid, 2999u);
  try {
    logMel(std::vector<float>(480001, 0.0f), g);
    ADD_FAILURE() << "480001 samples were accepted";
  } catch (const AudioError& e) {
    EXPECT_STREQ(e.what(), "is 30.00 s long; at most 30.00 s is accepted (longer audio is refused, not cut)");
  }
  LogMelConfig padded = g;
  padded.padOrTrimTo = 480000;
  Features p = logMel(std::vector<float>(16000, 0.5f), padded);
  ASSERT_EQ(p.nFrames, 2999u);
  EXPECT_NE(p.at(0, 98), 0.0f);
  EXPECT_EQ(p.at(0, 99), 0.0f);
  EXPECT_THROW(logMel(std::vector<float>(100, 0.0f), g), AudioError);
  // 129 .. 160 samples give one frame, entirely padding, as the extractor's mask says.
  Features padding = logMel(std::vector<float>(150, 0.5f), g);
  EXPECT_EQ(padding.nFrames, 1u);
  EXPECT_EQ(padding.nValid, 0u);
  EXPECT_EQ(padding.at(0, 0), 0.0f);
}

TEST(LogMel, NoSamplesIsAnError) {
  for (const LogMelConfig& c : {LogMelConfig::whisper(80), LogMelConfig::gemma4()}) {
    try {
      logMel({}, c);
      ADD_FAILURE() << "0 samples were accepted";
    } catch (const AudioError& e) {
      EXPECT_STREQ(e.what(), "has no audio samples");
    }
  }
}

TEST(LogMel, TransposedIsTimeMajor) {
  Features f{2, 3, 3, {1, 2, 3, 4, 5, 6}};  // [mels, frames]
  EXPECT_EQ(f.transposed(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(LogMel, HtkFiltersArePeakOneTriangles) {
  // Unnormalized triangles between consecutive edges overlap into a partition of unity: every FFT bin
  // between the first and the last centre frequency gets total weight 1.
  const size_t nMels = 128;
  MelFilterBank b = makeMelFilterBank(nMels, 512, 16000, 0, 8000, MelScale::Htk, MelNorm::None);
  std::vector<float> d = b.dense();
  const double melStep = hzToMel(8000.0, MelScale::Htk) / (nMels + 1);
  const double firstCentre = melToHz(melStep, MelScale::Htk), lastCentre = melToHz(melStep * nMels, MelScale::Htk);
  for (size_t k = 0; k < 257; ++k) {
    const double hz = 8000.0 * k / 256;
    if (hz < firstCentre || hz > lastCentre) continue;
    double sum = 0;
    for (size_t m = 0; m < nMels; ++m) sum += d[m * 257 + k];
    EXPECT_NEAR(sum, 1.0, 1e-6) << "bin " << k;
  }
  EXPECT_NEAR(hzToMel(1000.0, MelScale::Htk), 999.9855, 1e-3);  // 2595 log10(1 + 1000 / 700)
  EXPECT_NEAR(hzToMel(1000.0, MelScale::Slaney), 15.0, 1e-12);
  EXPECT_NEAR(melToHz(hzToMel(5000.0, MelScale::Slaney), MelScale::Slaney), 5000.0, 1e-9);
}

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(LogMelConfig, PresetsAndPreprocessorConfigs) {
  EXPECT_EQ(LogMelConfig::preset("whisper-128").nMels, 128u);
  EXPECT_THROW(LogMelConfig::preset("whisper-81"), AudioError);
  // openai/whisper-large-v3's preprocessor_config.json (abridged).
  const std::string v3 = writeTemp("v3.json", R"({"feature_extractor_type": "WhisperFeatureExtractor",
      "feature_size": 128, "hop_length": 160, "n_fft": 400, "n_samples": 480000, "sampling_rate": 16000})");
  LogMelConfig w = LogMelConfig::fromPreprocessorConfig(v3, LogMelConfig::whisper(80));
  EXPECT_EQ(w.nMels, 128u);
  EXPECT_EQ(w.chunkSamples, 480000u);
  EXPECT_EQ(w.melScale, MelScale::Slaney);
  const std::string g4 = writeTemp("g4.json", R"({"feature_extractor_type": "Gemma4AudioFeatureExtractor",
      "feature_size": 128, "frame_length": 320, "hop_length": 160, "fft_length": 512, "mel_floor": 0.001,
      "min_frequency": 0.0, "max_frequency": 8000.0, "preemphasis": 0.0, "dither": 0.0, "per_bin_mean": null})");
  LogMelConfig g = LogMelConfig::fromPreprocessorConfig(g4, LogMelConfig::whisper(80));
  EXPECT_EQ(g.framing, Framing::Semicausal);
  EXPECT_EQ(g.nFft, 512u);
  EXPECT_EQ(g.melScale, MelScale::Htk);
  // A Gemma config given in milliseconds, with FFT overdrive.
  const std::string ms = writeTemp("ms.json", R"({"feature_extractor_type": "Gemma4AudioFeatureExtractor",
      "frame_length_ms": 32.0, "hop_length_ms": 10.0, "fft_overdrive": true})");
  LogMelConfig o = LogMelConfig::fromPreprocessorConfig(ms, LogMelConfig::gemma4());
  EXPECT_EQ(o.frameLength, 512u);
  EXPECT_EQ(o.nFft, 1024u);
}

TEST(LogMelConfig, BadConfigsNameTheFile) {
  const std::string cases[] = {
      R"({"feature_extractor_type": "Gemma3nAudioFeatureExtractor"})",
      R"({"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 0})",
      R"({"feature_extractor_type": "WhisperFeatureExtractor", "n_fft": 2.5})",
      R"({"feature_extractor_type": "Gemma4AudioFeatureExtractor", "dither": 0.1})",
      R"({"feature_extractor_type": "Gemma4AudioFeatureExtractor", "frame_length": 2048, "fft_length": 512})",
      R"({"feature_extractor_type": "Gemma4AudioFeatureExtractor", "fft_overdrive": "yes"})",
      R"({"feature_extractor_type": 7})",
      R"([1, 2])",
      R"({not json)",
  };
  int i = 0;
  for (const std::string& text : cases) {
    const std::string path = writeTemp("bad" + std::to_string(i++) + ".json", text);
    Result<LogMelConfig> r = makeConfig("whisper-80", path, false);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error.rfind(path + ": ", 0), 0u) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
}

TEST(Features, ErrorsComeBackAsValuesNamingTheFile) {
  const std::string path = writeTemp("truncated.wav", "RIFF\x24\x00\x00\x00WAVEfmt ");
  Result<Features> r = extractFeatures(path, LogMelConfig::whisper(80));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind(path + ": ", 0), 0u) << r.error;
  Result<Features> missing = extractFeatures("/nonexistent.wav", LogMelConfig::whisper(80));
  EXPECT_EQ(missing.error.rfind("/nonexistent.wav: cannot open", 0), 0u) << missing.error;
}

TEST(Features, MemoryEqualsFileAndTheValidFramesComeFirst) {
  std::vector<uint8_t> pcm;  // 0.25 s of a 440 Hz tone at 8 kHz, 16-bit stereo (resampled and mixed down)
  for (int i = 0; i < 2000; ++i)
    for (int c = 0; c < 2; ++c)
      testing::put16(pcm, static_cast<uint16_t>(static_cast<int16_t>(8000 * std::sin(i * 0.3456) / (c + 1))));
  const std::vector<uint8_t> wav = testing::riff({testing::chunk("fmt ", testing::fmtBody(1, 2, 8000, 16)),
                                                  testing::chunk("data", pcm)});
  const std::string path = writeTemp("tone.wav", std::string(wav.begin(), wav.end()));
  const LogMelConfig gemma = LogMelConfig::gemma4();
  Result<Features> file = extractFeatures(path, gemma);
  Result<Features> memory = extractFeaturesFromMemory(wav.data(), wav.size(), "clip", gemma);
  ASSERT_TRUE(file.ok() && memory.ok()) << file.error << memory.error;
  EXPECT_EQ(memory.value.data, file.value.data);
  EXPECT_EQ(memory.value.nValid, 24u);  // (4000 - 1) // 160 frames at 16 kHz
  const std::vector<float> valid = validFramesTimeMajor(memory.value), all = memory.value.transposed();
  ASSERT_EQ(valid.size(), memory.value.nValid * memory.value.nMels);
  EXPECT_TRUE(std::equal(valid.begin(), valid.end(), all.begin()));
  Result<Features> bad = extractFeaturesFromMemory(wav.data(), 20, "messages[0].content[1]", gemma);
  EXPECT_EQ(bad.error.rfind("messages[0].content[1]: ", 0), 0u) << bad.error;
}

}  // namespace
}  // namespace saguaro::audio
