// Helpers of the audio front-end tests: reading the shared .npy/.npz references, building WAV files
// byte by byte, and measuring tones.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::audio::testing {

/// ../shared/data/audio/<name>; tests that need it GTEST_SKIP when absent.
std::string sharedAudio(const std::string& name);
bool exists(const std::string& path);

/// A float32 array read from a .npy file or from a member of a (deflated) .npz file.
struct Array {
  std::vector<size_t> shape;
  std::vector<float> data;
};
Array parseNpy(const std::vector<uint8_t>& bytes);
Array readNpy(const std::string& path);
Array readNpzMember(const std::string& path, const std::string& member);

/// Little-endian byte writers for hand-made WAV files.
void put16(std::vector<uint8_t>& b, uint16_t v);
void put32(std::vector<uint8_t>& b, uint32_t v);

/// A RIFF chunk: id, size, body and the pad byte after an odd-sized body.
std::vector<uint8_t> chunk(const std::string& id, const std::vector<uint8_t>& body);
/// A plain fmt chunk body (16 bytes); blockAlign 0 means channels * bits / 8.
std::vector<uint8_t> fmtBody(uint16_t tag, uint16_t channels, uint32_t rate, uint16_t bits, uint16_t blockAlign = 0);
/// A WAVE_FORMAT_EXTENSIBLE fmt body (40 bytes) whose subformat GUID carries `subTag`.
std::vector<uint8_t> extensibleFmtBody(uint16_t subTag, uint16_t channels, uint32_t rate, uint16_t bits);
/// "RIFF" size "WAVE" followed by the chunks.
std::vector<uint8_t> riff(const std::vector<std::vector<uint8_t>>& chunks);

/// Amplitude of the sinusoid of frequency f (Hz) in y[begin, end), by a least-squares fit of
/// a cos + b sin (exact for a pure tone, whatever the number of cycles).
double toneAmplitude(const std::vector<float>& y, double rate, double f, size_t begin, size_t end);
/// Root-mean-square of y[begin, end).
double rms(const std::vector<float>& y, size_t begin, size_t end);
inline double db(double ratio) { return 20.0 * std::log10(ratio); }

}  // namespace saguaro::audio::testing
