//===- FeaturesImage.cpp - `saguaro features image` (not built yet) --------------------===//
#include "compiler/driver/Features.h"

#include "llvm/Support/raw_ostream.h"

namespace saguaro {
int runFeaturesImage(int, char **) {
  llvm::errs() << "saguaro: features image is not built yet\n";
  return 1;
}
} // namespace saguaro
