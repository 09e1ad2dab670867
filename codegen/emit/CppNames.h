//===- CppNames.h - C++ names of the values of generated functions ---------------------===//
#ifndef SAGUARO_CODEGEN_EMIT_CPPNAMES_H
#define SAGUARO_CODEGEN_EMIT_CPPNAMES_H

#include "llvm/ADT/StringSet.h"

#include <string>

namespace saguaro {

/// The names given in one generated function. A wanted name becomes an identifier: other characters become '_',
/// and one that does not start with a letter, or is a C++ keyword, a name model.cpp uses otherwise (`tap`,
/// `int32_t`) or of the emitter's own form (`v12`), gets the prefix `x_`. A name the function already has gets
/// `_2`, `_3`, ...
class CppNames {
public:
  std::string fresh(llvm::StringRef wanted);

private:
  llvm::StringSet<> used;
};

/// The variable of a weight pointer: `w_` and the tensor name without `model.` and `.weight`
/// (`model.layers.3.self_attn.q_proj.weight` -> `w_layers.3.self_attn.q_proj`, an identifier once fresh).
std::string weightVariable(llvm::StringRef weight);

/// The variable of a KV-cache pointer that a call making `value` reads as its `nth` KV argument: `<value>_k` (0),
/// `<value>_v` (1), `<value>_kv<nth>` beyond; `kv_` instead of `<value>_` when the call names no value.
std::string kvVariable(llvm::StringRef value, size_t nth);

/// `text` as a `//` comment can hold it: on one line, without a backslash (which would continue the comment).
std::string commentText(llvm::StringRef text);

} // namespace saguaro

#endif // SAGUARO_CODEGEN_EMIT_CPPNAMES_H
