// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx2 | FileCheck %s --check-prefix=X86
// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx512vnni | FileCheck %s --check-prefix=X86
// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx2 | saguaro-opt | FileCheck %s --check-prefix=X86
// RUN: saguaro-opt %s --kern-pack-weights=target=aarch64-i8mm | FileCheck %s --check-prefix=ROWMAJOR
// RUN: saguaro-opt %s --kern-pack-weights=target=generic | FileCheck %s --check-prefix=ROWMAJOR

// Dense weights on x86: three-row panels (`dense-panel3`) for a weight that only dense products and gathers read, with
// K a multiple of 8 — the tied binary16 table (its gather also learns the row count) and a float32 matrix. A K of
// 60, a weight another kernel also reads, and a table only gathered stay row-major, their calls unchanged.
// X86: module attributes {kern.packed = [{bits = 16 : i64, k = 64 : i64, layout = "dense-panel3", rows = 40 : i64, weight = "emb"}, {bits = 32 : i64, k = 64 : i64, layout = "dense-panel3", rows = 24 : i64, weight = "wq"}], kern.target = "{{.*}}"}
// X86: callee = "embed_f16", template_args = [64, #kern.layout<"dense-panel3">, 40]
// X86: callee = "matmul_f32", template_args = [64, 24, #kern.layout<"dense-panel3">]
// X86: callee = "matmul_f16", template_args = [60, 24]
// X86: callee = "matmul_f32", template_args = [64, 8]
// X86: callee = "rmsnorm_f32"
// X86: callee = "embed_f32", template_args = [64]
// X86: callee = "logits_f16", template_args = [64, 40, #kern.layout<"dense-panel3">]

// ARM and generic targets keep every dense weight row-major.
// ROWMAJOR: module attributes {kern.packed = [], kern.target = "{{.*}}"}
// ROWMAJOR: callee = "embed_f16", template_args = [64]
// ROWMAJOR: callee = "matmul_f32", template_args = [64, 24]
// ROWMAJOR: callee = "logits_f16", template_args = [64, 40]
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %x = kern.alloc : memref<4x64xf32>
    %x60 = kern.alloc : memref<4x60xf32>
    %y = kern.alloc : memref<4x24xf32>
    %s = kern.alloc : memref<4x8xf32>
    %l = kern.alloc : memref<4x40xf32>
    kern.call %x : memref<4x64xf32> {callee = "embed_f16", template_args = [64], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"emb">, 1.0 : f32, 0 : index]}
    kern.call %x, %y : memref<4x64xf32>, memref<4x24xf32> {callee = "matmul_f32", template_args = [64, 24], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq">, 1 : index]}
    kern.call %x60, %y : memref<4x60xf32>, memref<4x24xf32> {callee = "matmul_f16", template_args = [60, 24], args = [#kern.param<"rows">, 0 : index, #kern.weight<"odd">, 1 : index]}
    kern.call %x, %s : memref<4x64xf32>, memref<4x8xf32> {callee = "matmul_f32", template_args = [64, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"shared">, 1 : index]}
    kern.call %x, %x : memref<4x64xf32>, memref<4x64xf32> {callee = "rmsnorm_f32", template_args = [64, false], args = [#kern.param<"rows">, 0 : index, #kern.weight<"shared">, 1.0e-05 : f32, 1 : index]}
    kern.call %x : memref<4x64xf32> {callee = "embed_f32", template_args = [64], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 1.0 : f32, 0 : index]}
    kern.call %x, %l : memref<4x64xf32>, memref<4x40xf32> {callee = "logits_f16", template_args = [64, 40], args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"emb">, #kern.param<"logits">]}
    return
  }
}
