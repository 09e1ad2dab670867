//===- Features.h - `saguaro features` and `saguaro bench audio` -----------------------===//
//
// The front-end commands of the driver. Each takes the whole command line (argv[0] is the
// program, argv[1] "features" or "bench", argv[2] "audio" or "image") and returns the exit code.
//
//   saguaro features audio FILE --mel whisper-80|whisper-128|gemma [--pad-30s] [--config preprocessor_config.json] [--pcm-only] -o OUT.npy
//   saguaro features image FILE [--decode-only] [--config preprocessor_config.json] -o OUT.npy
//   saguaro bench audio [FILE] [--runs N] [--json]
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_FEATURES_H
#define SAGUARO_COMPILER_DRIVER_FEATURES_H

namespace saguaro {
int runFeaturesAudio(int argc, char **argv);
int runFeaturesImage(int argc, char **argv);
int runBenchAudio(int argc, char **argv);
} // namespace saguaro

#endif
