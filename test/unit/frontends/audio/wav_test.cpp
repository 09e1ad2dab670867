// WAV reading: every sample format, the mix-down, chunk walking, and one test per malformed header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "audio_test_support.h"
#include "saguaro/audio/wav.h"

namespace saguaro::audio {
namespace {

using namespace testing;

std::vector<uint8_t> le16Samples(std::initializer_list<int16_t> v) {
  std::vector<uint8_t> b;
  for (int16_t s : v) put16(b, static_cast<uint16_t>(s));
  return b;
}

Pcm decode(const std::vector<uint8_t>& bytes) { return decodeWav(bytes.data(), bytes.size(), "test.wav"); }

/// The error decodeWav gives for `bytes`; fails the test when it decodes.
std::string errorOf(const std::vector<uint8_t>& bytes) {
  try {
    decode(bytes);
  } catch (const AudioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "decoded without error";
  return "";
}

/// Every error is one line that starts with the file name and names the problem.
void expectError(const std::vector<uint8_t>& bytes, const std::string& problem) {
  const std::string e = errorOf(bytes);
  EXPECT_EQ(e.rfind("test.wav: ", 0), 0u) << e;
  EXPECT_NE(e.find(problem), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(Wav, Int16MonoIsScaledLikeWhisper) {
  Pcm p = decode(riff({chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", le16Samples({0, 16384, -32768, 32767}))}));
  EXPECT_EQ(p.sampleRate, 16000u);
  EXPECT_EQ(p.sourceChannels, 1);
  ASSERT_EQ(p.samples.size(), 4u);
  EXPECT_EQ(p.samples[0], 0.0f);
  EXPECT_EQ(p.samples[1], 0.5f);
  EXPECT_EQ(p.samples[2], -1.0f);
  EXPECT_EQ(p.samples[3], 32767.0f / 32768.0f);
}

TEST(Wav, StereoIsAveraged) {
  Pcm p = decode(riff({chunk("fmt ", fmtBody(1, 2, 44100, 16)), chunk("data", le16Samples({16384, 0, -16384, -16384}))}));
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.sourceChannels, 2);
  EXPECT_EQ(p.samples[0], 0.25f);
  EXPECT_EQ(p.samples[1], -0.5f);
}

TEST(Wav, Int24SignExtends) {
  // 0x400000 = 2^22 -> 0.5; 0xC00000 = -2^22 -> -0.5; 0x800000 -> -1.
  std::vector<uint8_t> data = {0x00, 0x00, 0x40, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x80};
  Pcm p = decode(riff({chunk("fmt ", fmtBody(1, 1, 16000, 24)), chunk("data", data)}));
  ASSERT_EQ(p.samples.size(), 3u);
  EXPECT_EQ(p.samples[0], 0.5f);
  EXPECT_EQ(p.samples[1], -0.5f);
  EXPECT_EQ(p.samples[2], -1.0f);
}

TEST(Wav, Int32AndUnsigned8) {
  std::vector<uint8_t> d32;
  put32(d32, 0x40000000u);
  put32(d32, 0x80000000u);
  Pcm p32 = decode(riff({chunk("fmt ", fmtBody(1, 1, 16000, 32)), chunk("data", d32)}));
  ASSERT_EQ(p32.samples.size(), 2u);
  EXPECT_EQ(p32.samples[0], 0.5f);
  EXPECT_EQ(p32.samples[1], -1.0f);
  Pcm p8 = decode(riff({chunk("fmt ", fmtBody(1, 1, 8000, 8)), chunk("data", {128, 192, 0})}));
  ASSERT_EQ(p8.samples.size(), 3u);
  EXPECT_EQ(p8.samples[0], 0.0f);
  EXPECT_EQ(p8.samples[1], 0.5f);
  EXPECT_EQ(p8.samples[2], -1.0f);
}

TEST(Wav, Float32And64) {
  const float f[2] = {0.25f, -0.75f};
  std::vector<uint8_t> d(reinterpret_cast<const uint8_t*>(f), reinterpret_cast<const uint8_t*>(f) + 8);
  Pcm p = decode(riff({chunk("fmt ", fmtBody(3, 1, 22050, 32)), chunk("data", d)}));
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[0], 0.25f);
  EXPECT_EQ(p.samples[1], -0.75f);
  const double g[1] = {0.125};
  std::vector<uint8_t> d64(reinterpret_cast<const uint8_t*>(g), reinterpret_cast<const uint8_t*>(g) + 8);
  Pcm p64 = decode(riff({chunk("fmt ", fmtBody(3, 1, 22050, 64)), chunk("data", d64)}));
  ASSERT_EQ(p64.samples.size(), 1u);
  EXPECT_EQ(p64.samples[0], 0.125f);
}

TEST(Wav, ExtensibleFloatThreeChannels) {
  const float f[3] = {0.3f, 0.6f, 0.9f};
  std::vector<uint8_t> d(reinterpret_cast<const uint8_t*>(f), reinterpret_cast<const uint8_t*>(f) + 12);
  Pcm p = decode(riff({chunk("fmt ", extensibleFmtBody(3, 3, 48000, 32)), chunk("data", d)}));
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_NEAR(p.samples[0], 0.6f, 1e-7);
  Pcm q = decode(riff({chunk("fmt ", extensibleFmtBody(1, 1, 48000, 16)), chunk("data", le16Samples({8192}))}));
  EXPECT_EQ(q.samples.at(0), 0.25f);
}

TEST(Wav, SkipsUnknownAndOddSizedChunks) {
  // An odd LIST chunk (with its pad byte) before fmt, a 'fact' chunk between fmt and data.
  Pcm p = decode(riff({chunk("LIST", {'I', 'N', 'F', 'O', 'x'}), chunk("fmt ", fmtBody(1, 1, 16000, 16)),
                       chunk("fact", {1, 0, 0, 0}), chunk("data", le16Samples({1024, 2048}))}));
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[1], 2048.0f / 32768.0f);
}

TEST(Wav, DropsATrailingPartialFrame) {
  std::vector<uint8_t> d = le16Samples({100, 200, 300});  // stereo: one full frame and half of one
  Pcm p = decode(riff({chunk("fmt ", fmtBody(1, 2, 16000, 16)), chunk("data", d)}));
  EXPECT_EQ(p.samples.size(), 1u);
}

TEST(Wav, ReadsJfk) {
  const std::string path = sharedAudio("jfk.wav");
  if (!exists(path)) GTEST_SKIP() << path << " is absent";
  Pcm p = readWav(path);
  EXPECT_EQ(p.sampleRate, 16000u);
  EXPECT_EQ(p.samples.size(), 176000u);  // SOURCE.txt: 11.000 s
  // The samples start at byte 78: RIFF header 12, fmt 8 + 16, LIST 8 + 26, data header 8.
  std::ifstream in(path, std::ios::binary);
  in.seekg(78 + 2 * 1000);
  int16_t raw;
  in.read(reinterpret_cast<char*>(&raw), 2);
  EXPECT_EQ(p.samples[1000], raw / 32768.0f);
}

// --- malformed input: one test per lie -------------------------------------------------------------

TEST(WavErrors, EmptyFile) { expectError({}, "is empty"); }
TEST(WavErrors, ShorterThanAHeader) { expectError({'R', 'I', 'F', 'F', 0}, "too short"); }
TEST(WavErrors, NotRiff) { expectError(std::vector<uint8_t>(64, 'x'), "not a WAV file"); }

TEST(WavErrors, RiffButNotWave) {
  std::vector<uint8_t> b = riff({});
  std::memcpy(&b[8], "AVI ", 4);
  expectError(b, "not WAVE");
}

TEST(WavErrors, DataChunkClaimsMoreThanTheFile) {
  std::vector<uint8_t> b = riff({chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", le16Samples({1, 2}))});
  b[b.size() - 8 + 3] = 0x01;  // the size field was 4: now 16 MiB + 4
  expectError(b, "'data' chunk claims 16777220 bytes but only 4 remain");
}

TEST(WavErrors, HugeUnknownChunk) {
  std::vector<uint8_t> b = riff({chunk("fmt ", fmtBody(1, 1, 16000, 16))});
  b.insert(b.end(), {'L', 'I', 'S', 'T', 0xF0, 0xFF, 0xFF, 0xFF, 0, 0});
  expectError(b, "'LIST' chunk claims 4294967280 bytes");
}

TEST(WavErrors, FmtChunkTooShort) {
  std::vector<uint8_t> fmt = fmtBody(1, 1, 16000, 16);
  fmt.resize(14);
  expectError(riff({chunk("fmt ", fmt), chunk("data", le16Samples({1}))}), "fmt chunk is too short (14 bytes");
}

TEST(WavErrors, ZeroChannels) {
  expectError(riff({chunk("fmt ", fmtBody(1, 0, 16000, 16, 2)), chunk("data", le16Samples({1}))}), "0 channels");
}

TEST(WavErrors, TwelveBitSamples) {
  expectError(riff({chunk("fmt ", fmtBody(1, 1, 16000, 12, 2)), chunk("data", le16Samples({1}))}),
              "unsupported 12-bit PCM");
}

TEST(WavErrors, ZeroSampleRate) {
  expectError(riff({chunk("fmt ", fmtBody(1, 1, 0, 16)), chunk("data", le16Samples({1}))}), "sample rate of 0 Hz");
}

TEST(WavErrors, AbsurdSampleRate) {
  expectError(riff({chunk("fmt ", fmtBody(1, 1, 1, 16)), chunk("data", le16Samples({1}))}), "outside the supported");
  expectError(riff({chunk("fmt ", fmtBody(1, 1, 4000000000u, 16)), chunk("data", le16Samples({1}))}),
              "outside the supported");
}

TEST(WavErrors, BlockAlignLies) {
  expectError(riff({chunk("fmt ", fmtBody(1, 2, 16000, 16, 3)), chunk("data", le16Samples({1, 2}))}), "block align 3");
}

TEST(WavErrors, CompressedFormat) {
  expectError(riff({chunk("fmt ", fmtBody(2, 1, 16000, 4, 1)), chunk("data", {0})}), "format tag 2");
}

TEST(WavErrors, ExtensibleWithUnknownGuid) {
  std::vector<uint8_t> fmt = extensibleFmtBody(1, 1, 16000, 16);
  fmt.back() ^= 0xFF;
  expectError(riff({chunk("fmt ", fmt), chunk("data", le16Samples({1}))}), "unknown subformat GUID");
}

TEST(WavErrors, ExtensibleTooShort) {
  std::vector<uint8_t> fmt = extensibleFmtBody(1, 1, 16000, 16);
  fmt.resize(18);
  expectError(riff({chunk("fmt ", fmt), chunk("data", le16Samples({1}))}), "EXTENSIBLE fmt chunk is too short");
}

TEST(WavErrors, MissingChunks) {
  expectError(riff({chunk("data", le16Samples({1}))}), "has no fmt chunk");
  expectError(riff({chunk("fmt ", fmtBody(1, 1, 16000, 16))}), "has no data chunk");
}

TEST(WavErrors, NonFiniteFloat) {
  const float f[2] = {0.5f, NAN};
  std::vector<uint8_t> d(reinterpret_cast<const uint8_t*>(f), reinterpret_cast<const uint8_t*>(f) + 8);
  expectError(riff({chunk("fmt ", fmtBody(3, 1, 16000, 32)), chunk("data", d)}), "non-finite float sample at frame 1");
}

TEST(WavErrors, MissingFileNamesThePath) {
  try {
    readWav("/nonexistent/dir/x.wav");
    FAIL() << "read a missing file";
  } catch (const AudioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/dir/x.wav: cannot open", 0), 0u) << e.what();
  }
}

// --- the length limit (Gemma 4: 30 s): refused from the header, before samples are decoded --------

std::vector<uint8_t> silence16k(size_t samples, size_t listBytes = 0) {
  std::vector<std::vector<uint8_t>> chunks;
  if (listBytes) chunks.push_back(chunk("LIST", std::vector<uint8_t>(listBytes, 'x')));
  chunks.push_back(chunk("fmt ", fmtBody(1, 1, 16000, 16)));
  chunks.push_back(chunk("data", std::vector<uint8_t>(2 * samples, 0)));
  return riff(chunks);
}

std::string writeFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

TEST(WavLimit, OneSampleOverIsRefused) {
  const std::vector<uint8_t> ok = silence16k(16000), over = silence16k(16001);
  EXPECT_EQ(decodeWav(ok.data(), ok.size(), "test.wav", 1.0).samples.size(), 16000u);
  try {
    decodeWav(over.data(), over.size(), "test.wav", 1.0);
    FAIL() << "16001 samples at 16 kHz passed a 1 s limit";
  } catch (const AudioError& e) {
    EXPECT_STREQ(e.what(), "test.wav: is 1.00 s long; at most 1.00 s is accepted (longer audio is refused, not cut)");
  }
  EXPECT_EQ(decodeWav(over.data(), over.size(), "test.wav").samples.size(), 16001u);  // no limit
}

TEST(WavLimit, ReadWavChecksTheHeaderFirstAndFallsBackWhenItIsNotInTheFirst64KiB) {
  // 3 s of audio (96 KiB, more than the header probe) against a 2 s limit: refused from the header,
  // and also when a 70 KiB LIST chunk pushes the fmt chunk past the probe (the whole file is read).
  for (size_t listBytes : {size_t{0}, size_t{70000}}) {
    const std::string path = writeFile("limit" + std::to_string(listBytes) + ".wav", silence16k(48000, listBytes));
    try {
      readWav(path, 2.0);
      ADD_FAILURE() << "3 s passed a 2 s limit";
    } catch (const AudioError& e) {
      EXPECT_EQ(std::string(e.what()), path + ": is 3.00 s long; at most 2.00 s is accepted (longer audio is refused, not cut)");
    }
    EXPECT_EQ(readWav(path, 3.0).samples.size(), 48000u) << listBytes;
  }
}

}  // namespace
}  // namespace saguaro::audio
