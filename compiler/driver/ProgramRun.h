//===- ProgramRun.h - run a built bundle program and read what it writes ---------------===//
#ifndef SAGUARO_COMPILER_DRIVER_PROGRAMRUN_H
#define SAGUARO_COMPILER_DRIVER_PROGRAMRUN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace saguaro {

/// Runs `program` with `args` (args[0] included), stdout to `out` (or to `log` when none) and stderr to
/// `log`; both files start empty (LLVM's redirection does not truncate). Returns the exit code
/// (-1 when it could not run; `error` then says why).
int runRedirected(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args, std::optional<llvm::StringRef> out,
                  llvm::StringRef log, std::string *error = nullptr);

/// The trimmed text of a log file, or "" when it cannot be read.
std::string readLog(llvm::StringRef path);

/// A float32 [rows, cols] .npy (as runtime-min's npy_writer writes them); false when it is not one.
bool readNpyF32(const std::string &path, std::vector<float> &data, int64_t &rows, int64_t &cols);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_PROGRAMRUN_H
