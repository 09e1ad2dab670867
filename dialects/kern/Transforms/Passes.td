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
    share one arena) to the module's, except for an encoder tower's entry (`llm.entry =
    "vision"` or `"audio"`): it runs on an arena of its own, `kern.vision_arena_bytes` or
    `kern.audio_arena_bytes`, which the runtime holds only while it encodes an image or a clip. The module attribute `kern.memory_plan` records,
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

def PackWeights : Pass<"kern-pack-weights", "mlir::ModuleOp"> {
  let summary = "Choose each weight's packed layout for the target";
  let description = [{
    The int8 codebook kernels (`cq_matmul_i8`, `cq_logits_i8`) read their codes fastest in a layout
    made for the target's vectors. For each CQ weight, this pass picks one layout
    (docs/quantization.md, "Packed layouts"), writes it into the `Layout` template argument of
    every call that reads the weight (a gather of a tied embedding table also gets the table's
    row count), and lists it in the module attribute `kern.packed`, from which the bundle writer
    rearranges the codes and norms and manifest.json names each tensor's layout:

    - `generic`: `cq-lsb`, the format's own bit stream (the reference kernels read any layout);
    - every x86 and aarch64 target (saguaro/kernels/targets.h): `cq-planar-panel8` — bit planes
      that one vector load, a shift and a mask decode, and rows in panels of 8 so that a kernel
      computing eight outputs reads one sequential stream — when the group size allows full
      planar chunks (64 codes at 4 bits, 128 at 2 and 3 bits, 32 at 1 bit), else `cq-lsb`.

    A weight that a float-activation kernel (`cq_matmul_f32`, `cq_logits_f32`) reads keeps `cq-lsb`.

    Dense (float32 / binary16) weights on x86 targets: `dense-panel3` (three rows side by side in
    chunks of 8, docs/internals.md) for a weight that only `matmul_*`, `logits_*` and `embed_*` calls
    read, with K a multiple of 8 and one [N][K] in every product; the products get the layout as a
    third template argument, the gathers of a tied table the layout and its row count. Other
    targets keep dense weights row-major.

    ```mlir
    // before (target x86-avx2)
    kern.call %xq, %y {callee = "cq_matmul_i8", template_args = [1024, 3072, 4, #kern.layout<"cq-lsb">], ...}
    // after; kern.packed lists {bits = 4, k = 1024, layout = "cq-planar-panel8", rows = 3072, weight = "w"}
    kern.call %xq, %y {callee = "cq_matmul_i8", template_args = [1024, 3072, 4, #kern.layout<"cq-planar-panel8">], ...}
    ```
  }];
  let options = [Option<"target", "target", "std::string", "\"generic\"",
                        "a target of saguaro/kernels/targets.h (kTargets)">];
}

def MarkGatheredWeights : Pass<"kern-mark-gathered-weights", "mlir::ModuleOp"> {
  let summary = "List the weights that only gathers read, row by row";
  let description = [{
    A weight every reading call of which is a gather (`embed_f32`, `embed_f16`: the `table`;
    `cq_embed_f32`: the `codes` and `norms`) is read one row per token: a per-layer-embedding
    table, or a token embedding that is not also the output projection. The module attribute
    `kern.gathered` lists these weights, in the order the calls first name them; the bundle
    writer stores them in the blob's mapped section, which the runtime maps from the file so
    that only the rows a run reads become resident (docs/internals.md, "Blob"). A codebook,
    which every row needs whole, and a tied table, which the output projection also reads, are
    not listed. Runs after `llm-lower-to-kern`: an `llm` or `cq` op left in the module is an
    error (a weight it read would be missed).

    ```mlir
    kern.call %e {callee = "cq_embed_f32", args = [..., #kern.weight<"ple.codes">, #kern.weight<"ple.norms">,
                                                   #kern.weight<"cq.codebook.b2.g128">, ...]}
    kern.call %e {callee = "embed_f32", args = [..., #kern.weight<"emb">, ...]}
    kern.call %x, %y {callee = "logits_f32", args = [..., #kern.weight<"emb">, ...]}
    // kern.gathered = ["ple.codes", "ple.norms"]: "emb" is also the output projection
    ```
  }];
}

def FuseCqProducts : Pass<"kern-fuse-cq-products", "mlir::ModuleOp"> {
  let summary = "Merge consecutive int8 CQ products of one activation into one kernel call";
  let description = [{
    Two or three `cq_matmul_i8` calls in a row (only `kern.alloc`s between them) that read the
    same activation buffer with the same rows, codebook, K, bits, layout and thread pool, and
    write different buffers, become one `cq_matmul2_i8` / `cq_matmul3_i8` call at the place of
    the last: in a decode step the threads then split the rows of q, k and v (or of gate and
    up) in one parallel region instead of one region per matrix (docs/internals.md, "Fused
    products"). Runs after `kern-pack-weights` (the layouts are final) and for the x86 and
    aarch64 targets, whose kernels fuse the regions; for `generic` the module is left as it is.

    ```mlir
    // before
    kern.call %xq, %q {callee = "cq_matmul_i8", template_args = [1024, 2048, 4, #kern.layout<"cq-planar-panel8">],
        args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq.codes">, #kern.weight<"wq.norms">,
                #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %k {callee = "cq_matmul_i8", template_args = [1024, 1024, 4, #kern.layout<"cq-planar-panel8">], args = [...]}
    // after
    kern.call %xq, %q, %k {callee = "cq_matmul2_i8", template_args = [1024, 2048, 1024, 4, #kern.layout<"cq-planar-panel8">],
        args = [#kern.param<"rows">, 0 : index, #kern.weight<"cq.codebook.b4.g128">,
                #kern.weight<"wq.codes">, #kern.weight<"wq.norms">, 1 : index,
                #kern.weight<"wk.codes">, #kern.weight<"wk.norms">, 2 : index, #kern.param<"parallel">]}
    ```
  }];
  let options = [Option<"target", "target", "std::string", "\"generic\"",
                        "a target of saguaro/kernels/targets.h (kTargets)">];
}

#endif // SAGUARO_KERN_PASSES
