//===- Inspect.h - `saguaro inspect` ---------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_INSPECT_H
#define SAGUARO_COMPILER_DRIVER_INSPECT_H

#include <string>

namespace saguaro {

/// Lists the tensors of a bundle's verified blob, or writes one tensor's raw bytes to `out`;
/// returns the process exit code.
int runInspect(const std::string &bundle, const std::string &tensor, const std::string &out);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_INSPECT_H
