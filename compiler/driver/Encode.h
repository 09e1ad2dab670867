//===- Encode.h - `saguaro encode` -----------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_ENCODE_H
#define SAGUARO_COMPILER_DRIVER_ENCODE_H

#include <string>
#include <vector>

namespace saguaro {

struct EncodeOptions {
  std::string source;          // the model or bundle the user named (errors name it)
  std::string bundle, program; // a built bundle and its program (saguaro_bundle)
  std::string image;           // a PNG or JPEG, decoded and resized as the model's image processor does
  std::string pixels;          // or an [H, W, 3] .npy already resized (uint8, or float32 in [0, 1])
  std::string audio;           // or a WAV file, made into Gemma 4's log-mel frames (the audio tower's input)
  std::string features;        // or those frames already made: float32 [n, mel], the valid frames only
  std::string config;          // the model's preprocessor_config.json / processor_config.json; empty: none
  int maxSoftTokens = 0;       // this request's budget; 0: the compiled one
  std::string output;          // the soft tokens, float32 [n, dim]
  std::vector<std::string> programArgs; // passed on to the program (--threads)
};

/// Preprocesses the image into patches and positions (runtime-min/frontends/image) and runs the bundle's vision
/// tower on them, or the audio into log-mel frames (runtime-min/frontends/audio) and runs its audio tower; returns
/// the exit code, having said what failed in one line.
int runEncode(const EncodeOptions &o);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_ENCODE_H
