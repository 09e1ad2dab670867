// libFuzzer target: the WAV reader (every header field, chunk walking, sample decoding), and for
// small decoded inputs at common rates the rest of the audio front-end (resampler, log-mel).
#include <cstdint>
#include <map>
#include <memory>

#include "saguaro/audio/log_mel.h"
#include "saguaro/audio/resample.h"
#include "saguaro/audio/wav.h"

using namespace saguaro::audio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Pcm pcm;
  try {
    pcm = decodeWav(data, size, "fuzz.wav");
  } catch (const AudioError&) {
    return 0;  // a clean refusal is the expected outcome for most inputs
  }
  // Decoding never yields more samples than the data chunk could hold (>= 1 byte per sample).
  if (pcm.samples.size() > size) __builtin_trap();
  // With a length limit, the same file is refused exactly when it is longer.
  const double limit = 0.01;
  bool refused = false;
  try {
    decodeWav(data, size, "fuzz.wav", limit);
  } catch (const AudioError&) {
    refused = true;
  }
  if (refused != (static_cast<double>(pcm.samples.size()) / pcm.sampleRate > limit)) __builtin_trap();
  if (pcm.samples.size() > 8000) return 0;
  // Resampler tables are built once per rate; only a few rates are exercised to keep runs fast.
  static std::map<uint32_t, std::unique_ptr<Resampler>> resamplers;
  static LogMelExtractor whisper(LogMelConfig::whisper(80)), gemma(LogMelConfig::gemma4());
  std::vector<float> x = pcm.samples;
  if (pcm.sampleRate == 8000 || pcm.sampleRate == 44100 || pcm.sampleRate == 48000) {
    auto& r = resamplers[pcm.sampleRate];
    if (!r) r = std::make_unique<Resampler>(pcm.sampleRate, 16000);
    x = r->process(x);
  } else if (pcm.sampleRate != 16000) {
    return 0;
  }
  try {
    whisper.compute(x);
    gemma.compute(x);
  } catch (const AudioError&) {
    // too short to frame
  }
  return 0;
}
