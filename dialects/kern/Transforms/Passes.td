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

def InsertCalibrationTaps : Pass<"kern-insert-calibration-taps", "mlir::ModuleOp"> {
  let summary = "Tap the input of every float weight matrix in the prefill entry";
  let description = [{
    For calibration builds: before each `matmul_f32` or `logits_f32` call of the function
    marked `llm.entry = "prefill"`, a `kern.tap` hands the activation the matrix reads (the
    buffer argument just before its `#kern.weight`) to the runtime, which accumulates XᵀX
    per tap for GPTQ-style error feedback. Matrices that read the same, unmodified buffer
    share one tap. The module attribute `kern.taps` lists, per tap id, the activation
    width and the weights that read it.

    ```mlir
    // before: two products read %x
    kern.call %x, %q {callee = "matmul_f32", args = [... 0 : index, #kern.weight<"wq">, 1 : index], ...}
    kern.call %x, %k {callee = "matmul_f32", args = [... 0 : index, #kern.weight<"wk">, 1 : index], ...}
    // after: one tap, id 0, and kern.taps = [{cols = 64, weights = ["wq", "wk"]} ]
    kern.tap %x {id = 0 : i64} : memref<16x64xf32>
    kern.call %x, %q ...
    kern.call %x, %k ...
    ```
  }];
}

#endif // SAGUARO_KERN_PASSES
