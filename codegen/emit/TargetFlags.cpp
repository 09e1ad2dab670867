//===- TargetFlags.cpp - the compiler flags of a target --------------------------------===//
//
// The flags the bundle's CMakeLists.txt compiles model.cpp with, by --target name.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/EmitBundle.h"

llvm::Expected<std::string> saguaro::targetFlags(llvm::StringRef target) {
  if (target == "generic")
    return std::string();
  if (target == "x86-avx2")
    return std::string("-mavx2 -mfma -mf16c");
  if (target == "x86-avx512vnni") // AVX-512 VNNI and BW on ymm: -mavx512vl brings AVX512F with it
    return std::string("-mavx2 -mfma -mf16c -mavx512vnni -mavx512vl -mavx512bw");
  if (target == "aarch64-neon")
    return std::string("-march=armv8-a");
  if (target == "aarch64-dotprod")
    return std::string("-march=armv8.2-a+dotprod");
  if (target == "aarch64-i8mm")
    return std::string("-march=armv8.2-a+dotprod+i8mm");
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '" + target.str() +
                                     "' (generic, x86-avx2, x86-avx512vnni, aarch64-neon, aarch64-dotprod, aarch64-i8mm)");
}
