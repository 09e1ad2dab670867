//===- FeaturesAudio.cpp - `saguaro features audio` (not built yet) --------------------===//
#include "compiler/driver/Features.h"

#include "llvm/Support/raw_ostream.h"

namespace saguaro {
int runFeaturesAudio(int, char **) {
  llvm::errs() << "saguaro: features audio is not built yet\n";
  return 1;
}
int runBenchAudio(int, char **) {
  llvm::errs() << "saguaro: bench audio is not built yet\n";
  return 1;
}
} // namespace saguaro
