// RUN: saguaro-opt %s --kern-mark-gathered-weights | FileCheck %s
// RUN: saguaro-opt %s --kern-mark-gathered-weights | saguaro-opt | FileCheck %s

// "ple" (a CQ table: codes and norms) and "emb_untied" are only gathered; "emb" is also the output projection, the
// codebook is read whole by every row and by a product, and "w" is a matrix.
// CHECK: module attributes {kern.gathered = ["ple.codes", "ple.norms", "emb_untied"]}
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %e = kern.alloc : memref<4x128xf32>
    %y = kern.alloc : memref<4x40xf32>
    kern.call %e : memref<4x128xf32> {callee = "cq_embed_f32", template_args = [128, 2], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"ple.codes">, #kern.weight<"ple.norms">, #kern.weight<"cq.codebook.b2.g128">, 1.0 : f32, 0 : index]}
    kern.call %e : memref<4x128xf32> {callee = "embed_f32", template_args = [128], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"emb">, 1.0 : f32, 0 : index]}
    kern.call %e : memref<4x128xf32> {callee = "embed_f16", template_args = [128], args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"emb_untied">, 1.0 : f32, 0 : index]}
    kern.call %e, %y : memref<4x128xf32>, memref<4x40xf32> {callee = "matmul_f32", template_args = [128, 40], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w">, 1 : index]}
    kern.call %e, %y : memref<4x128xf32>, memref<4x40xf32> {callee = "cq_matmul_f32", template_args = [128, 40, 2], args = [#kern.param<"rows">, 0 : index, #kern.weight<"m.codes">, #kern.weight<"m.norms">, #kern.weight<"cq.codebook.b2.g128">, 1 : index]}
    kern.call %e : memref<4x128xf32> {callee = "logits_f32", template_args = [128, 40], args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"emb">, #kern.param<"logits">]}
    return
  }
}
