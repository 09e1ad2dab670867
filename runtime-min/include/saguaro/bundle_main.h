// Entry point of the bundle program (the emitted main.cpp calls it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro {

/// Runs `saguaro_bundle BUNDLE -p PROMPT ...` or `--logits IDS -o OUT.npy` (docs/runtime.md); returns the exit code.
int bundle_main(int argc, char** argv);

}  // namespace saguaro
