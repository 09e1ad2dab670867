//===- KernelCatalogue.h - every kernel kern.call can name -------------------------------===//
//
// The one declaration of each kernel the generated code calls: its name, its compile-time
// parameters and its C++ arguments with the role each plays (a buffer, a runtime parameter,
// a weight, a KV-cache offset or a literal). `kern.call`'s verifier checks calls against it,
// and the passes that create or match calls name kernels and their arguments through it
// (KernelCall), never by string or position. The rows are in Kernels.def; the kernels
// themselves are C++ in codegen/kernels (generic/ always, ISA overrides through kernels.h);
// adding one is a row there plus its generic body.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_DIALECTS_KERN_IR_KERNELCATALOGUE_H
#define SAGUARO_DIALECTS_KERN_IR_KERNELCATALOGUE_H

#include "dialects/kern/IR/KernDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace saguaro::kern {

/// What a kernel's signature says, as written in the catalogue. `params` lists the template
/// parameters and `args` the C++ arguments, space-separated; an argument is `name:roles` with
/// roles from buffer, param, weight, kv, literal joined by `|`. A trailing `?` marks an
/// optional parameter or argument (only at the end: a call may leave out a suffix of them).
/// A template parameter named `Layout` takes a `#kern.layout`; the others integers or bools.
struct KernelSignature {
  llvm::StringLiteral name;
  llvm::StringLiteral params;
  llvm::StringLiteral args;
};

#define KERNEL(Id, name, params, args) inline constexpr KernelSignature k##Id{name, params, args};
#include "dialects/kern/IR/Kernels.def"

/// Every kernel of the catalogue.
llvm::ArrayRef<const KernelSignature *> allKernels();
/// The kernel called `name`, or null.
const KernelSignature *findKernel(llvm::StringRef name);
/// The fused int8 CQ product over `products` (1–3) weights: cq_matmul_i8, cq_matmul2_i8, cq_matmul3_i8; null
/// beyond.
const KernelSignature *cqMatmulI8Over(size_t products);

/// Checks a call's template arguments and arguments against `kernel`'s signature; the message
/// names the first mismatch. Arguments that name buffers must be in range of `numBuffers`.
mlir::LogicalResult verifyKernelCall(const KernelSignature &kernel, mlir::ArrayAttr templateArgs,
                                     mlir::ArrayAttr args, int64_t numBuffers, std::string &message);

/// A kern.call read through its kernel's signature: arguments and template parameters by name.
class KernelCall {
public:
  /// The call seen as `kernel`, or nothing when it calls another kernel.
  static std::optional<KernelCall> of(CallOp call, const KernelSignature &kernel);
  /// The call seen as its own kernel, or nothing when the callee is not in the catalogue.
  static std::optional<KernelCall> of(CallOp call);

  CallOp op() const { return call; }
  const KernelSignature &kernel() const { return *signature; }
  /// The argument `name`; null when it is an optional one the call leaves out.
  mlir::Attribute arg(llvm::StringRef name) const;
  /// The buffer operand argument `name` refers to; null when the argument is absent or no buffer.
  mlir::Value buffer(llvm::StringRef name) const;
  /// The template argument `name`; null when it is an optional one the call leaves out.
  mlir::Attribute param(llvm::StringRef name) const;
  /// The integer template argument `name`.
  int64_t intParam(llvm::StringRef name) const;
  /// Sets template argument `name`; an optional one the call leaves out is appended, which needs every parameter
  /// before it present.
  void setParam(llvm::StringRef name, mlir::Attribute value) const;

private:
  KernelCall(CallOp call, const KernelSignature *signature) : call(call), signature(signature) {}
  mutable CallOp call; // an op handle: const access still reads and updates the op
  const KernelSignature *signature;
};

} // namespace saguaro::kern

#endif // SAGUARO_DIALECTS_KERN_IR_KERNELCATALOGUE_H
