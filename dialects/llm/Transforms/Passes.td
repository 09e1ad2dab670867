//===- Passes.td - llm passes -------------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_LLM_PASSES
#define SAGUARO_LLM_PASSES

include "mlir/Pass/PassBase.td"

def FuseResidualNorm : Pass<"llm-fuse-residual-norm", "mlir::func::FuncOp"> {
  let summary = "Fuse a residual add into the RMSNorm that reads its sum";
  let description = [{
    `%s = llm.add %h, %d` followed by `%n = llm.rms_norm %s` becomes one
    `llm.add_rms_norm %h, %d`, which updates the residual in place and normalises it in
    the same pass over the row. Applies only when no later op reads the residual `%h`
    (it is overwritten) and the sum has exactly one RMSNorm user.

    ```mlir
    %s = llm.add %h, %d : tensor<1x64xf32>
    %n = llm.rms_norm %s {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x64xf32>
    // becomes
    %s, %n = llm.add_rms_norm %h, %d {weight = #llm.weight<"n">, eps = 1.0e-05 : f32}
        : tensor<1x64xf32>
    ```
  }];
  let dependentDialects = ["saguaro::llm::LlmDialect"];
}

def LowerToKern : Pass<"llm-lower-to-kern", "mlir::ModuleOp"> {
  let summary = "Lower llm entry points to kern calls over arena buffers";
  let description = [{
    Every function marked `llm.entry` becomes an argument-less function of `kern.alloc`
    buffers and `kern.call`s into the generic kernel names. Ops that update in place
    (q/k norm, RoPE, residual adds) reuse their input's buffer, which therefore must not
    be read by any later op. Each layer whose attention computes K/V gets a cache (`#kern.kv<...>`
    offsets, in cache elements) of `llm.max_seq` positions, or a ring of its window when that is
    shorter (saguaro/kernels/kv_layout.h); the caches go to the module attribute `kern.kv_caches`,
    their size to `kern.kv_bytes`, their element type (`kv-cache`: f32, or f16 = IEEE binary16) to
    `kern.kv_type`. `attention_f32` reads the entry's own positions from the K/V buffers of the layer
    that computes them, and that layer's `kv_store_f32` follows the last attention reading its cache
    (a KV-shared layer's included):

    ```mlir
    kern.call %q, %k, %v, %scratch, %out {callee = "attention_f32", ...}   // cache: positions < pos0
    kern.call %q2, %k, %v, %scratch2, %out2 {callee = "attention_f32", ...} // a layer sharing the KV
    kern.call %k, %v {callee = "kv_store_f32", ...}                         // then the chunk is stored
    ```
  }];
  let dependentDialects = ["saguaro::kern::KernDialect", "mlir::memref::MemRefDialect"];
  // cq ops lower here too: cq.matmul / cq.logits rotate their activation once (cq_rotate_f32) and
  // then call cq_matmul_f32 / cq_logits_f32 with the weight's `.codes`, `.norms` and codebook tensors;
  // with cq-activations=i8 the rotated activation is also quantized once (cq_quantize_act_i8) and the
  // products are cq_matmul_i8 / cq_logits_i8. Their `Layout` template argument starts as 0 (the format's
  // own order) until kern-pack-weights picks one.
  let options = [Option<"cqActivations", "cq-activations", "std::string", "\"f32\"",
                        "activations of codebook matmuls: f32 (exact format) or i8 (integer kernels)">,
                 Option<"kvCache", "kv-cache", "std::string", "\"f32\"",
                        "KV-cache elements: f32 or f16 (IEEE binary16; attention still computes in f32)">];
}

#endif // SAGUARO_LLM_PASSES
