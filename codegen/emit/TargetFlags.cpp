//===- TargetFlags.cpp - the compiler flags of a target --------------------------------===//
//
// The flags the bundle's CMakeLists.txt compiles model.cpp with, by --target name (the target table,
// saguaro/kernels/targets.h).
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/EmitBundle.h"

#include "saguaro/kernels/targets.h"

llvm::Expected<std::string> saguaro::targetFlags(llvm::StringRef target) {
  if (const kernels::TargetInfo *t = kernels::find_target(target.str().c_str()))
    return std::string(t->flags);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '" + target.str() + "' (" + kernels::target_names() + ")");
}
