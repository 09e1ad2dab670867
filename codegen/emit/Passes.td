//===- Passes.td - lowering to EmitC ------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_EMIT_PASSES
#define SAGUARO_EMIT_PASSES

include "mlir/Pass/PassBase.td"

def KernLowerToEmitC : Pass<"kern-lower-to-emitc", "mlir::ModuleOp"> {
  let summary = "Lower planned kern entry points to EmitC functions of the model ABI";
  let description = [{
    Each function with `llm.entry = "prefill"` or `"decode"` becomes the EmitC function
    of `runtime-min/include/saguaro/model_abi.h` (`saguaro_model_prefill` /
    `saguaro_model_decode`). Arena buffers become `arena + offset` pointers, weights
    `weight_of(state, slot)`, KV-cache references `kv + offset`, and every `kern.call` an
    `emitc.call_opaque` of `saguaro::kernels::<callee>` with its template arguments. Weight
    slots are numbered in order of first use and listed in the module attribute
    `saguaro.weight_slots`. Every buffer must be planned (`kern-plan-memory`).

    For people reading model.cpp, each value is located at a C++ name, fresh in its
    function (the bundle writer declares it under that name): a buffer by the name its
    `kern.alloc` is located at (dialects/common/ValueNames.h), a weight pointer by its tensor
    (`w_layers_3_wq`), a KV-cache pointer by the call that first reads it (`kv_l3_k`), the
    entry's arguments by their role (`state`, `rows`, `pos0`, ...). Where the block the kern
    ops are located in changes, an `emitc.verbatim` comment names it:

    ```mlir
    %q = kern.alloc {offset = 64 : i64} : memref<1x8xf32> loc("x_l3_q"("layer 3: attention"))
    // becomes (after a kern op of another block)
    emitc.verbatim "// layer 3: attention"
    %c16 = emitc.literal "16" : i64
    %q = emitc.add %arena, %c16 : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32> loc("x_l3_q")
    ```
  }];
  let dependentDialects = ["mlir::emitc::EmitCDialect"];
}

#endif // SAGUARO_EMIT_PASSES
