//===- Passes.td - kern passes ------------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_KERN_PASSES
#define SAGUARO_KERN_PASSES

include "mlir/Pass/PassBase.td"

def PlanMemory : Pass<"kern-plan-memory", "mlir::ModuleOp"> {
  let summary = "Give every arena buffer an offset from its liveness";
  let description = [{
    A buffer is live from the first to the last `kern.call` that names it. Buffers are
    placed in order of first use at the lowest 64-byte-aligned offset that does not
    overlap any buffer live at the same time (first fit). Each function's arena size
    goes to its `kern.arena_bytes` attribute and the maximum over all functions (they
    share one arena) to the module's. The module attribute `kern.memory_plan` records,
    per function, every buffer's offset, size and live range in call indices.

    ```mlir
    %a = kern.alloc : memref<1x64xf32>      // -> {offset = 0 : i64}
    %b = kern.alloc : memref<1x64xf32>      // -> {offset = 256 : i64} while %a is live
    ```
  }];
}

#endif // SAGUARO_KERN_PASSES
