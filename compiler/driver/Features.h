//===- Features.h - `saguaro features` and `saguaro bench audio` -----------------------===//
//
// The front-end commands of the driver (their options: the command table in main.cpp). Each
// takes the parsed arguments and returns the exit code.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_FEATURES_H
#define SAGUARO_COMPILER_DRIVER_FEATURES_H

#include "compiler/driver/CommandLine.h"

namespace saguaro {
int runFeaturesAudio(const cli::Args &args);
int runFeaturesImage(const cli::Args &args);
int runBenchAudio(const cli::Args &args);
} // namespace saguaro

#endif
