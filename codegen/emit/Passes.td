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
  }];
  let dependentDialects = ["mlir::emitc::EmitCDialect"];
}

#endif // SAGUARO_EMIT_PASSES
