// A clip of a request, from its WAV file or bytes to the audio tower's soft tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "saguaro/engine.h"

namespace saguaro {

/// A WAV clip on this device (`path`) or held in memory (`bytes`, e.g. an input_audio part's payload), or one
/// already encoded (`streamed`); `name` says where it came from in errors (the path, or e.g. "messages[0].content[1]").
struct AudioSource {
  std::string name;
  std::string path;
  std::vector<uint8_t> bytes;
  std::shared_ptr<const std::vector<float>> streamed;  // a C API audio stream's soft tokens: nothing to encode
};

/// `clip`'s soft tokens (ceil(n / 4) × dim floats for its n valid mel frames) from the engine's audio tower: read
/// (any rate, any channel count), mixed to mono, resampled to 16 kHz and made into Gemma 4's log-mel frames as
/// Gemma4AudioFeatureExtractor does (the audio front-end, runtime-min/frontends/audio), then encoded. A clip longer
/// than the tower takes (30 s) is refused, not cut (docs/gemma4-audio.md, "Interfaces"). False + one line naming
/// the clip.
bool encode_audio_source(Engine& engine, const AudioSource& clip, std::vector<float>* soft, std::string* err);

}  // namespace saguaro
