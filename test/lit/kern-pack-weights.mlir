// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx2 | FileCheck %s --check-prefix=AVX2
// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx512vnni | FileCheck %s --check-prefix=AVX2
// RUN: saguaro-opt %s --kern-pack-weights=target=aarch64-i8mm | FileCheck %s --check-prefix=AVX2
// RUN: saguaro-opt %s --kern-pack-weights=target=generic | FileCheck %s --check-prefix=GENERIC
// RUN: saguaro-opt %s --kern-pack-weights=target=x86-avx2 | saguaro-opt | FileCheck %s --check-prefix=AVX2

// On a SIMD target: 4-bit codes in groups of 128 and the tied embedding table (read by the logits and the
// gather, which also learns the table's row count) get planar panels; 2-bit codes in groups of 64 cannot
// fill a 128-code planar chunk and a weight read with float activations stays in the format's order.
// AVX2: module attributes {kern.packed = [{bits = 4 : i64, k = 256 : i64, layout = "cq-planar-panel8", rows = 24 : i64, weight = "w"}, {bits = 4 : i64, k = 128 : i64, layout = "cq-planar-panel8", rows = 40 : i64, weight = "emb"}], kern.target = "{{.*}}"}
// AVX2: callee = "cq_matmul_i8", template_args = [256, 24, 4, #kern.layout<"cq-planar-panel8">]
// AVX2: callee = "cq_matmul_i8", template_args = [64, 24, 2, #kern.layout<"cq-lsb">]
// AVX2: callee = "cq_matmul_f32", template_args = [256, 24, 4]
// AVX2: callee = "cq_embed_f32", template_args = [128, 4, #kern.layout<"cq-planar-panel8">, 40]
// AVX2: callee = "cq_logits_i8", template_args = [128, 40, 4, #kern.layout<"cq-planar-panel8">]

// The generic target keeps the format's own bit stream everywhere.
// GENERIC: module attributes {kern.packed = [], kern.target = "generic"}
// GENERIC: callee = "cq_matmul_i8", template_args = [256, 24, 4, #kern.layout<"cq-lsb">]
// GENERIC: callee = "cq_embed_f32", template_args = [128, 4]
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %x = kern.alloc : memref<4x80xf32>
    %y = kern.alloc : memref<4x24xf32>
    %e = kern.alloc : memref<4x128xf32>
    kern.call %x, %y : memref<4x80xf32>, memref<4x24xf32> {callee = "cq_matmul_i8", template_args = [256, 24, 4, #kern.layout<"cq-lsb">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w.codes">, #kern.weight<"w.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index]}
    kern.call %x, %y : memref<4x80xf32>, memref<4x24xf32> {callee = "cq_matmul_i8", template_args = [64, 24, 2, #kern.layout<"cq-lsb">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"v.codes">, #kern.weight<"v.norms">, #kern.weight<"cq.codebook.b2.g64">, 1 : index]}
    kern.call %x, %y : memref<4x80xf32>, memref<4x24xf32> {callee = "cq_matmul_f32", template_args = [256, 24, 4], args = [#kern.param<"rows">, 0 : index, #kern.weight<"u.codes">, #kern.weight<"u.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index]}
    kern.call %e : memref<4x128xf32> {callee = "cq_embed_f32", template_args = [128, 4], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"emb.codes">, #kern.weight<"emb.norms">, #kern.weight<"cq.codebook.b4.g128">, 1.0 : f32, 0 : index]}
    kern.call %e : memref<4x128xf32> {callee = "cq_logits_i8", template_args = [128, 40, 4, #kern.layout<"cq-lsb">], args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"emb.codes">, #kern.weight<"emb.norms">, #kern.weight<"cq.codebook.b4.g128">, #kern.param<"logits">]}
    return
  }
}
