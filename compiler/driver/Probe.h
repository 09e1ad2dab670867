//===- Probe.h - `saguaro probe train|eval|calibrate` -----------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_PROBE_H
#define SAGUARO_COMPILER_DRIVER_PROBE_H

#include "compiler/driver/CommandLine.h"

#include <vector>

namespace saguaro {

/// The table entries of `saguaro probe train`, `eval` and `calibrate` (their options and handlers; see
/// docs/probe.md). `probe collect` compiles and runs a model, so it is the driver's (main.cpp).
const std::vector<cli::Command> &probeCommands();

/// Runs `saguaro probe ...` with the commands above; argv starts after the word `probe` (argv[0] is the
/// subcommand). Returns the process exit code; errors are one line on stderr.
int probe_main(int argc, char **argv);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_PROBE_H
