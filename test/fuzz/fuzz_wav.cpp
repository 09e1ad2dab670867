// libFuzzer target: the WAV reader (every header field, chunk walking, sample decoding), the streaming
// reader on the same bytes in pieces, and for small decoded inputs at common rates the rest of the audio
// front-end (resampler, log-mel, streamed Gemma 4 frames against the whole clip's).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>

#include "saguaro/audio/log_mel.h"
#include "saguaro/audio/log_mel_stream.h"
#include "saguaro/audio/resample.h"
#include "saguaro/audio/wav.h"
#include "saguaro/audio/wav_stream.h"

using namespace saguaro::audio;

namespace {

/// The bytes through WavStream in pieces of 1 to 7 bytes (by the first byte); false when it refuses them. Never more
/// samples than bytes.
bool streamed(const uint8_t* data, size_t size, std::vector<float>* samples) {
  const size_t piece = size ? data[0] % 7 + 1 : 1;
  try {
    WavStream stream("fuzz.wav");
    for (size_t at = 0; at < size; at += piece) stream.push(data + at, std::min(piece, size - at), samples);
    stream.finish();
  } catch (const AudioError&) {
    return false;
  }
  if (samples->size() > size) __builtin_trap();
  return true;
}

/// Gemma 4's valid frames of x streamed in pieces of `piece` samples must be the whole clip's, bit for bit.
void checkStreamedFrames(LogMelExtractor& gemma, const std::vector<float>& x, size_t piece) {
  Features whole;
  try {
    whole = gemma.compute(x);
  } catch (const AudioError&) {
    return;  // too short to frame
  }
  std::vector<float> want = whole.transposed(), got;
  want.resize(whole.nValid * whole.nMels);
  LogMelStream stream(LogMelConfig::gemma4());
  for (size_t at = 0; at < x.size(); at += piece) stream.push(x.data() + at, std::min(piece, x.size() - at), &got);
  if (got.size() != want.size() ||
      (!got.empty() && std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) != 0))
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<float> fromStream;
  const bool streamOk = streamed(data, size, &fromStream);
  Pcm pcm;
  try {
    pcm = decodeWav(data, size, "fuzz.wav");
  } catch (const AudioError&) {
    return 0;  // a clean refusal is the expected outcome for most inputs
  }
  // Decoding never yields more samples than the data chunk could hold (>= 1 byte per sample).
  if (pcm.samples.size() > size) __builtin_trap();
  // Where both readers take the file and find as many samples, they are the same samples.
  if (streamOk && !fromStream.empty() && fromStream.size() == pcm.samples.size() &&
      std::memcmp(fromStream.data(), pcm.samples.data(), fromStream.size() * sizeof(float)) != 0)
    __builtin_trap();
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
  } catch (const AudioError&) {
    // too short to frame
  }
  checkStreamedFrames(gemma, x, size % 321 + 1);
  return 0;
}
