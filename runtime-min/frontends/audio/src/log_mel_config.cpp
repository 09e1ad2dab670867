// The feature conventions: the Whisper and Gemma presets, and reading a model's
// preprocessor_config.json. Each constant names the source it was taken from.
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "saguaro/audio/log_mel.h"
#include "saguaro/audio/error.h"
#include "saguaro/audio/wav.h"

namespace saguaro::audio {

LogMelConfig LogMelConfig::whisper(size_t nMels) {
  // The field defaults are Whisper's (log_mel.h names the source of each); only the mel count varies.
  LogMelConfig c;
  c.nMels = nMels;
  return c;
}

LogMelConfig LogMelConfig::gemma4() {
  // transformers models/gemma4/feature_extraction_gemma4.py, Gemma4AudioFeatureExtractor defaults.
  // Equal to Whisper's: sampling_rate 16000, hop_length_ms 10 -> 160, min/max_frequency 0 / 8000.
  // Everything else differs:
  LogMelConfig c;
  c.nMels = 128;                          // feature_size
  c.frameLength = 320;                    // frame_length_ms 20; window_function(320) = periodic Hann
  c.nFft = 512;                           // 2^ceil(log2(320)), fft_overdrive False
  c.melScale = MelScale::Htk;             // mel_filter_bank(norm=None, mel_scale="htk")
  c.melNorm = MelNorm::None;
  c.framing = Framing::Semicausal;        // pad_left = frame_length // 2, _unfold(frame_length + 1)
  c.dropLastFrame = false;
  c.magnitude = Magnitude::Abs;           // np.abs(np.fft.rfft(...))
  c.fftInDouble = true;                   // np.fft.rfft computes in float64
  c.compression = LogCompression::LnAddFloor;
  c.melFloor = 1e-3;                      // np.log(mel_spec + mel_floor)
  c.padToMultiple = 128;                  // __call__(pad_to_multiple_of=128)
  c.maxSamples = 480000;                  // __call__(max_length=480000): refused beyond, not truncated
  c.zeroPaddedFrames = true;              // input_features * input_features_mask
  c.timeMajor = true;                     // input_features [frames, feature_size]
  return c;
}

LogMelConfig LogMelConfig::preset(const std::string& name) {
  if (name == "whisper-80") return whisper(80);
  if (name == "whisper-128") return whisper(128);
  if (name == "gemma4") return gemma4();
  throw AudioError("unknown mel preset '" + name + "' (whisper-80, whisper-128 or gemma4)");
}

void LogMelConfig::validate() const {
  auto bad = [](const std::string& what) { throw AudioError("invalid log-mel configuration: " + what); };
  if (sampleRate < kMinSampleRate || sampleRate > kMaxSampleRate) bad("sampling rate " + std::to_string(sampleRate));
  if (nMels == 0 || nMels > 1024) bad("feature_size " + std::to_string(nMels) + " (1..1024)");
  if (nFft < 2 || nFft > 65536) bad("FFT length " + std::to_string(nFft) + " (2..65536)");
  if (frameLength == 0 || frameLength > nFft) bad("frame length " + std::to_string(frameLength) + " (1..FFT length)");
  if (hop == 0 || hop > 65536) bad("hop length " + std::to_string(hop));
  if (padToMultiple == 0 || padToMultiple > (1u << 20)) bad("pad multiple " + std::to_string(padToMultiple));
  if (!(fMin >= 0.0 && fMin < fMax && fMax <= sampleRate / 2.0)) bad("mel range must satisfy 0 <= fmin < fmax <= rate / 2");
  if (!(melFloor > 0.0) || !std::isfinite(melFloor)) bad("mel floor must be positive");
  if (!(preemphasis >= 0.0 && preemphasis < 1.0)) bad("preemphasis must be in [0, 1)");
  if (preemphasis != 0.0 && framing != Framing::Semicausal) bad("preemphasis needs semicausal framing");
  if (!perBinMean.empty() && perBinMean.size() != nMels) bad("per_bin_mean needs feature_size values");
  if (!perBinStddev.empty() && perBinStddev.size() != nMels) bad("per_bin_stddev needs feature_size values");
  if (padOrTrimTo > (1u << 30) || maxSamples > (1u << 30)) bad("sample limits above 2^30");
}

namespace {

/// Reads `key` as a number when present and not null.
bool number(const nlohmann::json& j, const char* key, double* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_number()) throw AudioError(std::string("'") + key + "' is not a number");
  *out = it->get<double>();
  return true;
}

/// A positive integer field; fractional or out-of-range values are refused.
bool count(const nlohmann::json& j, const char* key, size_t* out) {
  double v;
  if (!number(j, key, &v)) return false;
  if (!(v >= 1.0 && v <= 1e7) || v != std::floor(v))
    throw AudioError(std::string("'") + key + "' must be a positive integer");
  *out = static_cast<size_t>(v);
  return true;
}

std::vector<float> floats(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_array()) throw AudioError(std::string("'") + key + "' is not an array");
  std::vector<float> v;
  for (const auto& x : *it) {
    if (!x.is_number()) throw AudioError(std::string("'") + key + "' holds a non-number");
    v.push_back(x.get<float>());
  }
  return v;
}

/// WhisperFeatureExtractor(feature_size, sampling_rate, hop_length, chunk_length, n_fft).
void applyWhisper(const nlohmann::json& j, LogMelConfig* c) {
  count(j, "feature_size", &c->nMels);
  size_t rate = c->sampleRate;
  count(j, "sampling_rate", &rate);
  c->sampleRate = static_cast<uint32_t>(rate);
  c->fMax = c->sampleRate / 2.0;  // librosa's default fmax
  count(j, "hop_length", &c->hop);
  if (count(j, "n_fft", &c->nFft)) c->frameLength = c->nFft;
  size_t chunkSeconds = 0;
  if (!count(j, "n_samples", &c->chunkSamples) && count(j, "chunk_length", &chunkSeconds))
    c->chunkSamples = chunkSeconds * c->sampleRate;
}

/// Gemma4AudioFeatureExtractor. Lengths come from *_ms when present (as its __init__ computes them),
/// else from the sample counts a saved config carries.
void applyGemma(const nlohmann::json& j, LogMelConfig* c) {
  count(j, "feature_size", &c->nMels);
  size_t rate = c->sampleRate;
  count(j, "sampling_rate", &rate);
  c->sampleRate = static_cast<uint32_t>(rate);
  double ms;
  if (number(j, "frame_length_ms", &ms)) c->frameLength = static_cast<size_t>(std::lround(rate * ms / 1000.0));
  else count(j, "frame_length", &c->frameLength);
  if (number(j, "hop_length_ms", &ms)) c->hop = static_cast<size_t>(std::lround(rate * ms / 1000.0));
  else count(j, "hop_length", &c->hop);
  if (!count(j, "fft_length", &c->nFft)) {
    c->nFft = 1;
    while (c->nFft < c->frameLength) c->nFft *= 2;
    if (j.value("fft_overdrive", false)) c->nFft *= 2;
  }
  number(j, "min_frequency", &c->fMin);
  number(j, "max_frequency", &c->fMax);
  number(j, "mel_floor", &c->melFloor);
  number(j, "preemphasis", &c->preemphasis);
  if (c->preemphasis != 0.0 && !j.value("preemphasis_htk_flavor", true))
    throw AudioError("preemphasis_htk_flavor false is not supported");
  number(j, "input_scale_factor", &c->inputScale);
  double dither = 0.0;
  if (number(j, "dither", &dither) && dither != 0.0)
    throw AudioError("dither " + std::to_string(dither) + " is random noise; only 0 is supported");
  c->perBinMean = floats(j, "per_bin_mean");
  c->perBinStddev = floats(j, "per_bin_stddev");
}

}  // namespace

LogMelConfig LogMelConfig::fromPreprocessorConfig(const std::string& path, const LogMelConfig& base) {
  std::ifstream in(path);
  if (!in) throw AudioError(path + ": cannot open");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw AudioError(path + ": is not a JSON object");
  // A processor_config.json nests the audio part.
  if (j.contains("feature_extractor") && j["feature_extractor"].is_object()) j = j["feature_extractor"];
  LogMelConfig c = base;
  try {
    const std::string type = j.value("feature_extractor_type", std::string());
    if (type == "WhisperFeatureExtractor") {
      c = whisper(80);
      applyWhisper(j, &c);
    } else if (type == "Gemma4AudioFeatureExtractor") {
      c = gemma4();
      applyGemma(j, &c);
    } else if (type.empty()) {
      // No type: the fields refine the --mel preset.
      if (c.framing == Framing::CenterReflect) applyWhisper(j, &c);
      else applyGemma(j, &c);
    } else {
      throw AudioError("feature_extractor_type '" + type +
                       "' is not supported (WhisperFeatureExtractor, Gemma4AudioFeatureExtractor)");
    }
    c.validate();
  } catch (const std::exception& e) {  // AudioError, or nlohmann's type errors ("fft_overdrive": "yes")
    throw AudioError(path + ": " + e.what());
  }
  return c;
}

}  // namespace saguaro::audio
