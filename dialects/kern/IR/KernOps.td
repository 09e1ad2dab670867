//===- KernOps.td - kern operations -------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_KERN_OPS
#define SAGUARO_KERN_OPS

include "KernDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kern_AllocOp : Kern_Op<"alloc"> {
  let summary = "An activation buffer in the arena";
  let description = [{
    Before planning the buffer has no `offset`; `kern-plan-memory` sets it (in bytes,
    64-byte aligned). The shape must be static.

    ```mlir
    %b = kern.alloc {offset = 256 : i64} : memref<4x64xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs AnyMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Kern_CallOp : Kern_Op<"call"> {
  let summary = "A call into a named kernel";
  let description = [{
    `callee` is a kernel of the catalogue (dialects/kern/IR/KernelCatalogue.h), which
    fixes its template parameters and its arguments with their roles; the verifier checks
    the call against it. `args` lists the C++ arguments in order. An `index`-typed integer
    `i` stands for buffer operand `i`; `#kern.param`, `#kern.weight` and `#kern.kv` stand
    for runtime values; any other integer, float or bool attribute is passed as a literal.
    `template_args` become the kernel's compile-time parameters: integers, bools, and a
    `#kern.layout` for a `Layout` parameter.

    ```mlir
    kern.call %x, %y {callee = "rmsnorm_f32", template_args = [64 : i64, false],
        args = [#kern.param<"rows">, 0 : index, #kern.weight<"norm">, 1.0e-05 : f32, 1 : index]}
        : memref<4x64xf32>, memref<4x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyMemRef>:$buffers, StrAttr:$callee, ArrayAttr:$template_args,
                       ArrayAttr:$args);
  let assemblyFormat = "($buffers^ `:` type($buffers))? attr-dict";
  let hasVerifier = 1;
}

def Kern_TapOp : Kern_Op<"tap"> {
  let summary = "Hands an activation buffer to the runtime's tap hook";
  let description = [{
    The first `rows` rows (the entry point's runtime row count) of a `[rows, cols]` buffer
    are passed to the hook the runtime installed in `ModelState::tap` under the number `id`;
    without a hook the tap does nothing. Calibration builds tap the inputs of weight matrices
    (`kern-insert-calibration-taps`); the module attribute `kern.taps` says what each `id`
    is. A tap only reads its buffer.

    ```mlir
    kern.tap %x {id = 0 : i64} : memref<16x64xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, I64Attr:$id);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

#endif // SAGUARO_KERN_OPS
