// WAV bytes read as they arrive: in pieces of any size the samples are readWav's, and bad headers get readWav's
// errors.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "audio_test_support.h"
#include "saguaro/audio/wav.h"
#include "saguaro/audio/wav_stream.h"

namespace saguaro::audio {
namespace {

using namespace testing;

std::vector<float> streamed(const std::vector<uint8_t>& bytes, size_t piece) {
  WavStream stream("pipe");
  std::vector<float> samples;
  for (size_t at = 0; at < bytes.size(); at += piece)
    stream.push(bytes.data() + at, std::min(piece, bytes.size() - at), &samples);
  stream.finish();
  return samples;
}

class WavPieces : public ::testing::TestWithParam<size_t> {};

TEST_P(WavPieces, JfkSamplesAreReadWavs) {
  const std::string path = sharedAudio("jfk.wav");
  if (!exists(path)) GTEST_SKIP() << path << " is absent";
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<float> want = readWav(path).samples, got = streamed(bytes, GetParam());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Bytes, WavPieces, ::testing::Values(1, 3, 4096, 1 << 20));

/// A 16-bit mono WAV at 16 kHz (`rate`) with `dataSize` in its data chunk's header, then `samples`; an odd-sized
/// chunk (with its pad byte) before the fmt chunk.
std::vector<uint8_t> wav16(uint32_t dataSize, const std::vector<int16_t>& samples, uint32_t rate = 16000) {
  std::vector<uint8_t> b = riff({chunk("LIST", {1, 2, 3}), chunk("fmt ", fmtBody(1, 1, rate, 16))});
  b.insert(b.end(), {'d', 'a', 't', 'a'});
  put32(b, dataSize);
  for (int16_t s : samples) put16(b, static_cast<uint16_t>(s));
  return b;
}

TEST(WavStream, DataOfUnknownSizeRunsToTheEnd) {
  const std::vector<float> got = streamed(wav16(0xFFFFFFFFu, {16384, -32768, 1}), 1);
  EXPECT_EQ(got, (std::vector<float>{0.5f, -1.0f, 1.0f / 32768}));
}

TEST(WavStream, BytesAfterTheDataChunkAreNotAudio) {
  std::vector<uint8_t> b = wav16(4, {16384, 16384});
  b.insert(b.end(), {'j', 'u', 'n', 'k', 0, 0, 0, 0});
  EXPECT_EQ(streamed(b, 5).size(), 2u);
}

TEST(WavStream, RefusesWhatReadWavRefuses) {
  EXPECT_THROW(streamed({}, 1), AudioError);
  const std::string text = "hello, this is not a WAV file";
  EXPECT_THROW(streamed(std::vector<uint8_t>(text.begin(), text.end()), 4), AudioError);
  std::vector<uint8_t> noData = wav16(0, {});
  noData.resize(noData.size() - 8);  // cut before the data chunk's header
  EXPECT_THROW(streamed(noData, 16), AudioError);
  EXPECT_THROW(streamed(wav16(0, {1, 2}, 1), 16), AudioError);  // 1 Hz
}

}  // namespace
}  // namespace saguaro::audio
