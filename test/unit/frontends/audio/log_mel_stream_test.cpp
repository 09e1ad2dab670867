// Streamed Gemma 4 log-mel frames: in pieces of any size they are the whole clip's valid frames, bit for bit,
// and each comes out with the sample that makes it valid.
#include <gtest/gtest.h>

#include <cstring>

#include "audio_test_support.h"
#include "saguaro/audio/log_mel_stream.h"
#include "saguaro/audio/wav.h"

namespace saguaro::audio {
namespace {

using namespace testing;

/// The valid frames compute() gives the whole clip, time-major.
std::vector<float> wholeClipFrames(const std::vector<float>& x) {
  const Features f = logMel(x, LogMelConfig::gemma4());
  std::vector<float> t = f.transposed();
  t.resize(f.nValid * f.nMels);
  return t;
}

class StreamPieces : public ::testing::TestWithParam<size_t> {};

TEST_P(StreamPieces, JfkFramesAreTheWholeClipsBits) {
  if (!exists(sharedAudio("jfk.wav"))) GTEST_SKIP() << sharedAudio("jfk.wav") << " is absent";
  const std::vector<float> x = readWav(sharedAudio("jfk.wav")).samples;
  const std::vector<float> want = wholeClipFrames(x);
  LogMelStream stream(LogMelConfig::gemma4());
  std::vector<float> got;
  const size_t piece = GetParam();
  for (size_t at = 0; at < x.size(); at += piece) {
    const size_t n = std::min(piece, x.size() - at);
    stream.push(x.data() + at, n, &got);
    // Frame t is out exactly when sample 160t + 160 has arrived.
    const size_t arrived = at + n;
    EXPECT_EQ(stream.frames(), arrived >= 161 ? (arrived - 1) / 160 : 0) << "after " << arrived << " samples";
  }
  stream.finish();
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Samples, StreamPieces, ::testing::Values(1, 160, 1600, 16000));

TEST(LogMelStream, ShortClipsAreRefusedAtTheEnd) {
  LogMelStream empty(LogMelConfig::gemma4());
  EXPECT_THROW(empty.finish(), AudioError);
  LogMelStream short160(LogMelConfig::gemma4());
  std::vector<float> frames, x(160, 0.25f);
  short160.push(x.data(), x.size(), &frames);
  EXPECT_TRUE(frames.empty());
  EXPECT_THROW(short160.finish(), AudioError);
}

TEST(LogMelStream, RefusesAudioPastTheLimit) {
  LogMelStream stream(LogMelConfig::gemma4());
  std::vector<float> frames, x(480000, 0.0f);
  stream.push(x.data(), x.size(), &frames);
  EXPECT_EQ(frames.size() / 128, 2999u);  // the extractor's 30 s: 2999 valid frames
  const float one = 0.0f;
  EXPECT_THROW(stream.push(&one, 1, &frames), AudioError);
}

TEST(LogMelStream, RefusesWhispersConvention) {
  EXPECT_THROW(LogMelStream(LogMelConfig::whisper(80)), AudioError);
}

}  // namespace
}  // namespace saguaro::audio
