// RUN: saguaro-opt %s --split-input-file --cq-quantize=bits=3 | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --cq-quantize=bits=3 | saguaro-opt --split-input-file | FileCheck %s

// Linears, the embedding gather and the logits head read quantized weights; the policy keeps w2 in
// float32 and gives the embedding table 4 bits; the gated MLP splits into its products and llm.glu.
// CHECK-LABEL: module attributes {cq.policy = {tok = 4 : i64, w2 = 32 : i64}, cq.quantized = {tok = 4 : i64, w1 = 3 : i64, w3 = 3 : i64, wq = 3 : i64}
// CHECK: %[[H:.*]] = cq.gather %arg0 {codebook = #cq.codebook<4, 8>, table = #llm.weight<"tok">}
// CHECK: %[[N:.*]] = llm.rms_norm %[[H]]
// CHECK: cq.matmul %[[N]] {codebook = #cq.codebook<3, 8>, weight = #llm.weight<"wq">} : tensor<1x8xf32> -> tensor<1x8xf32>
// CHECK: %[[G:.*]] = cq.matmul %[[N]] {codebook = #cq.codebook<3, 8>, weight = #llm.weight<"w1">} : tensor<1x8xf32> -> tensor<1x12xf32>
// CHECK: %[[U:.*]] = cq.matmul %[[N]] {codebook = #cq.codebook<3, 8>, weight = #llm.weight<"w3">}
// CHECK: %[[A:.*]] = llm.glu %[[G]], %[[U]] {act = "silu"} : tensor<1x12xf32>
// CHECK: llm.linear %[[A]] {weight = #llm.weight<"w2">} : tensor<1x12xf32> -> tensor<1x8xf32>
// CHECK: cq.logits %{{.*}} {codebook = #cq.codebook<4, 8>, weight = #llm.weight<"tok">} : tensor<1x8xf32> -> tensor<1x32xf32>
// CHECK-NOT: llm.gated_mlp
module attributes {llm.max_seq = 16 : i64, cq.policy = {w2 = 32 : i64, tok = 4 : i64}} {
  func.func @decode(%tok: tensor<1xi32>) -> tensor<1x32xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tok {table = #llm.weight<"tok">} : tensor<1xi32> -> tensor<1x8xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"n0">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %q = llm.linear %n {weight = #llm.weight<"wq">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %m = llm.gated_mlp %n {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 12 : i64, act = "silu"} : tensor<1x8xf32>
    %h2 = llm.add %q, %m : tensor<1x8xf32>
    %l = llm.logits %h2 {weight = #llm.weight<"tok">} : tensor<1x8xf32> -> tensor<1x32xf32>
    return %l : tensor<1x32xf32>
  }
}

// -----

// 32 bits (float32) leaves the llm ops alone and records nothing.
// CHECK-LABEL: module attributes {cq.policy = {w = 32 : i64}, cq.quantized = {}}
// CHECK: llm.linear
// CHECK-NOT: cq.
module attributes {cq.policy = {w = 32 : i64}} {
  func.func @f(%x: tensor<2x200xf32>) -> tensor<2x8xf32> {
    %y = llm.linear %x {weight = #llm.weight<"w">} : tensor<2x200xf32> -> tensor<2x8xf32>
    return %y : tensor<2x8xf32>
  }
}

// -----

// 16 bits (IEEE binary16 weights) keeps the llm ops too, gated MLP included, but records each weight so that
// the bundle writer stores it in half precision and llm-lower-to-kern calls the f16 kernels; a gated MLP whose
// weights mix binary16 and float32 stays whole.
// CHECK-LABEL: module attributes {cq.policy = {emb = 16 : i64, w1 = 16 : i64, w2 = 32 : i64, w3 = 16 : i64, wq = 16 : i64}, cq.quantized = {emb = 16 : i64, w1 = 16 : i64, w3 = 16 : i64, wq = 16 : i64}
// CHECK: llm.embed %arg0 {table = #llm.weight<"emb">}
// CHECK: llm.linear %{{.*}} {weight = #llm.weight<"wq">}
// CHECK: llm.gated_mlp %{{.*}} {act = "silu", down = #llm.weight<"w2">, gate = #llm.weight<"w1">, hidden = 12 : i64, up = #llm.weight<"w3">}
// CHECK: llm.logits %{{.*}} {weight = #llm.weight<"emb">}
// CHECK-NOT: cq.
module attributes {cq.policy = {emb = 16 : i64, wq = 16 : i64, w1 = 16 : i64, w3 = 16 : i64, w2 = 32 : i64}} {
  func.func @decode(%tok: tensor<1xi32>) -> tensor<1x32xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tok {table = #llm.weight<"emb">} : tensor<1xi32> -> tensor<1x8xf32>
    %q = llm.linear %h {weight = #llm.weight<"wq">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %m = llm.gated_mlp %q {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 12 : i64, act = "silu"} : tensor<1x8xf32>
    %l = llm.logits %m {weight = #llm.weight<"emb">} : tensor<1x8xf32> -> tensor<1x32xf32>
    return %l : tensor<1x32xf32>
  }
}
