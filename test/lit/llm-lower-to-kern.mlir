// RUN: saguaro-opt %s --split-input-file --llm-lower-to-kern | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --llm-lower-to-kern | saguaro-opt --split-input-file | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --llm-lower-to-kern=kv-cache=f16 | FileCheck %s --check-prefix=F16

// A two-layer decode entry lowering every op kind; max_seq = 16, so layer 0 (kv width 4, full attention) keeps
// 16 positions, K at 0 and V at 64 floats, and layer 1 (kv width 8, window 4) a ring of 4 positions, K at 128 and
// V at 160, 192 floats. Attention reads the call's own K/V from their buffers, and the store follows it.
// With kv-cache=f16 the offsets (in cache elements) stay and the cache takes half the bytes.
// F16-LABEL: module attributes {kern.kv_bytes = 384 : i64, kern.kv_caches = [{head_dim = 4 : i64, kv_heads = 1 : i64, layer = 0 : i64, positions = 16 : i64, window = 0 : i64}, {head_dim = 4 : i64, kv_heads = 2 : i64, layer = 1 : i64, positions = 4 : i64, window = 4 : i64}], kern.kv_type = "f16", llm.max_seq = 16 : i64}
// F16:       #kern.kv<0>, #kern.kv<64>, 0.000000e+00 : f32, {{.*}} callee = "attention_f32"
// F16:       #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [1, 4, 16]}
// F16:       #kern.kv<128>, #kern.kv<160>], callee = "kv_store_f32", template_args = [2, 4, 4]}
// CHECK-LABEL: module attributes {kern.kv_bytes = 768 : i64, kern.kv_caches = [{head_dim = 4 : i64, kv_heads = 1 : i64, layer = 0 : i64, positions = 16 : i64, window = 0 : i64}, {head_dim = 4 : i64, kv_heads = 2 : i64, layer = 1 : i64, positions = 4 : i64, window = 4 : i64}], kern.kv_type = "f32", llm.max_seq = 16 : i64}
// CHECK-LABEL: func.func @decode() attributes {llm.entry = "decode"} {
// CHECK:      %[[H:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[H]] : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 2.000000e+00 : f32, 0 : index], callee = "embed_f32", template_args = [8]}
// CHECK-NEXT: %[[N:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[H]], %[[N]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.attn_norm">, 9.99999974E-6 : f32, 1 : index], callee = "rmsnorm_f32", template_args = [8, false]}
// CHECK-NEXT: %[[Q:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[N]], %[[Q]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.wq">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 8]}
// CHECK-NEXT: %[[K:.*]] = kern.alloc : memref<1x4xf32>
// CHECK-NEXT: kern.call %[[N]], %[[K]] : memref<1x8xf32>, memref<1x4xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.wk">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 4]}
// CHECK-NEXT: %[[V:.*]] = kern.alloc : memref<1x4xf32>
// CHECK-NEXT: kern.call %[[N]], %[[V]] : memref<1x8xf32>, memref<1x4xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.wv">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 4]}
// q-norm, then RoPE of q and k: all in place, on the buffers of the linears.
// CHECK-NEXT: kern.call %[[Q]] : memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.q_norm">, 9.99999997E-7 : f32], callee = "head_rmsnorm_f32", template_args = [2, 4, true]}
// CHECK-NEXT: kern.call %[[Q]] : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1.000000e+04 : f32, 1.000000e+00 : f32], callee = "rope_f32", template_args = [2, 4, 0]}
// Llama 3 frequency scaling adds its four parameters after pos_scale.
// CHECK-NEXT: kern.call %[[K]] : memref<1x4xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 5.000000e+05 : f32, 8.000000e+00 : f32, 3.200000e+01 : f32, 1.000000e+00 : f32, 4.000000e+00 : f32, 8.192000e+03 : f32], callee = "rope_f32", template_args = [1, 4, 1]}
// Layer 0: scale 0 divides by sqrt(head_dim), so the last template argument is true. The scratch holds 16 scores
// and the row's K and V (2 × 4 floats).
// CHECK-NEXT: %[[SCRATCH0:.*]] = kern.alloc : memref<24xf32>
// CHECK-NEXT: %[[A:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[Q]], %[[K]], %[[V]], %[[SCRATCH0]], %[[A]] : memref<1x8xf32>, memref<1x4xf32>, memref<1x4xf32>, memref<24xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, 2 : index, #kern.kv<0>, #kern.kv<64>, 0.000000e+00 : f32, 0.000000e+00 : f32, 3 : index, 4 : index, #kern.param<"parallel">], callee = "attention_f32", template_args = [2, 1, 4, 16, 0, true]}
// CHECK-NEXT: kern.call %[[K]], %[[V]] : memref<1x4xf32>, memref<1x4xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [1, 4, 16]}
// CHECK-NEXT: %[[O:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[A]], %[[O]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.wo">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 8]}
// The fused residual add updates the residual buffer in place; only the normed row is new.
// CHECK-NEXT: %[[N2:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[H]], %[[O]], %[[N2]] : memref<1x8xf32>, memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, #kern.weight<"l0.ffn_norm">, 9.99999974E-6 : f32, 2 : index], callee = "add_rmsnorm_f32", template_args = [8, false]}
// gated_mlp: gate and up matmuls, the activation in place on gate, then down.
// CHECK-NEXT: %[[GATE:.*]] = kern.alloc : memref<1x12xf32>
// CHECK-NEXT: %[[UP:.*]] = kern.alloc : memref<1x12xf32>
// CHECK-NEXT: kern.call %[[N2]], %[[GATE]] : memref<1x8xf32>, memref<1x12xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.w1">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 12]}
// CHECK-NEXT: kern.call %[[N2]], %[[UP]] : memref<1x8xf32>, memref<1x12xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.w3">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 12]}
// CHECK-NEXT: kern.call %[[GATE]], %[[UP]] : memref<1x12xf32>, memref<1x12xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, 0 : index], callee = "gated_act_f32", template_args = [12, 0]}
// CHECK-NEXT: %[[M:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[GATE]], %[[M]] : memref<1x12xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"l0.w2">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [12, 8]}
// The residual add accumulates into the residual (H) in place.
// CHECK-NEXT: kern.call %[[H]], %[[M]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index], callee = "add_f32", template_args = [8]}
// Layer 1: a non-zero scale is passed as is and the last template argument is false.
// CHECK-NEXT: %[[N3:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[H]], %[[N3]] : {{.*}} callee = "rmsnorm_f32"
// CHECK:      kern.call %[[N3]], %[[Q1:[^ ]*]] : {{.*}} #kern.weight<"l1.wq">
// CHECK:      kern.call %[[N3]], %[[K1:[^ ]*]] : {{.*}} #kern.weight<"l1.wk">
// CHECK:      kern.call %[[N3]], %[[V1:[^ ]*]] : {{.*}} #kern.weight<"l1.wv">
// Its cache is a ring of its window (S = 4); the scratch holds 4 scores and the row's K and V (2 × 8 floats).
// CHECK-NEXT: %[[SCRATCH1:.*]] = kern.alloc : memref<20xf32>
// CHECK-NEXT: %[[A1:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[Q1]], %[[K1]], %[[V1]], %[[SCRATCH1]], %[[A1]] : memref<1x8xf32>, memref<1x8xf32>, memref<1x8xf32>, memref<20xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, 2 : index, #kern.kv<128>, #kern.kv<160>, 2.500000e-01 : f32, 5.000000e+01 : f32, 3 : index, 4 : index, #kern.param<"parallel">], callee = "attention_f32", template_args = [2, 2, 4, 4, 4, false]}
// CHECK-NEXT: kern.call %[[K1]], %[[V1]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<128>, #kern.kv<160>], callee = "kv_store_f32", template_args = [2, 4, 4]}
// CHECK-NEXT: kern.call %[[A1]], %[[H]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index], callee = "add_f32", template_args = [8]}
// CHECK-NEXT: %[[F:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[A1]], %[[F]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"final_norm">, 9.99999974E-6 : f32, 1 : index], callee = "rmsnorm_f32", template_args = [8, true]}
// Logits without softcap: one logits_f32 into the runtime logits buffer, no softcap_f32.
// CHECK-NEXT: kern.call %[[F]] : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"tok">, #kern.param<"logits">, #kern.param<"parallel">], callee = "logits_f32", template_args = [8, 32]}
// CHECK-NOT:  softcap_f32
// CHECK-NEXT: return{{$}}
// CHECK-NEXT: }
// CHECK-NOT:  llm.
module attributes {llm.max_seq = 16 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x32xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">, scale = 2.0 : f32} : tensor<1xi32> -> tensor<1x8xf32>
    // Layer 0: two query heads sharing one kv head, q-norm, RoPE, default scale.
    %n = llm.rms_norm %h {weight = #llm.weight<"l0.attn_norm">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %q = llm.linear %n {weight = #llm.weight<"l0.wq">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %k = llm.linear %n {weight = #llm.weight<"l0.wk">} : tensor<1x8xf32> -> tensor<1x4xf32>
    %v = llm.linear %n {weight = #llm.weight<"l0.wv">} : tensor<1x8xf32> -> tensor<1x4xf32>
    %qn = llm.head_rms_norm %q {weight = #llm.weight<"l0.q_norm">, eps = 1.0e-06 : f32, heads = 2 : i64, head_dim = 4 : i64, add_one = true} : tensor<1x8xf32>
    %qr = llm.rope %qn {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 0 : i64} : tensor<1x8xf32>
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 4 : i64, theta = 5.0e+05 : f32, pos_scale = 8.0 : f32, style = 1 : i64, llama3 = array<f32: 32.0, 1.0, 4.0, 8192.0>} : tensor<1x4xf32>
    %a = llm.attention %qr, %kr, %v {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %o = llm.linear %a {weight = #llm.weight<"l0.wo">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %s, %n2 = llm.add_rms_norm %h, %o {weight = #llm.weight<"l0.ffn_norm">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %m = llm.gated_mlp %n2 {gate = #llm.weight<"l0.w1">, up = #llm.weight<"l0.w3">, down = #llm.weight<"l0.w2">, hidden = 12 : i64, act = "silu"} : tensor<1x8xf32>
    %h1 = llm.add %s, %m : tensor<1x8xf32>
    // Layer 1: two kv heads, explicit scale, sliding window, attention softcap.
    %n3 = llm.rms_norm %h1 {weight = #llm.weight<"l1.attn_norm">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %q1 = llm.linear %n3 {weight = #llm.weight<"l1.wq">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %k1 = llm.linear %n3 {weight = #llm.weight<"l1.wk">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %v1 = llm.linear %n3 {weight = #llm.weight<"l1.wv">} : tensor<1x8xf32> -> tensor<1x8xf32>
    %a1 = llm.attention %q1, %k1, %v1 {layer = 1 : i64, heads = 2 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, window = 4 : i64, scale = 0.25 : f32, softcap = 50.0 : f32} : tensor<1x8xf32>, tensor<1x8xf32>
    %h2 = llm.add %a1, %h1 : tensor<1x8xf32>
    %f = llm.rms_norm %h2 {weight = #llm.weight<"final_norm">, eps = 1.0e-05 : f32, add_one = true} : tensor<1x8xf32>
    %l = llm.logits %f {weight = #llm.weight<"tok">} : tensor<1x8xf32> -> tensor<1x32xf32>
    return %l : tensor<1x32xf32>
  }
}

// -----

// Weights cq-quantize stored in IEEE binary16 (cq.quantized = 16) are read by the f16 kernels, the others by the
// f32 ones, per weight: here the embedding table, the gate projection and the output head are half, the up and
// down projections float32 (bits 32 are not recorded).
// CHECK-LABEL: module attributes {cq.quantized = {out = 16 : i64, tok = 16 : i64, w1 = 16 : i64}, kern.kv_bytes = 0 : i64
// CHECK-LABEL: func.func @decode() attributes {llm.entry = "decode"} {
// CHECK:      {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 1.000000e+00 : f32, 0 : index], callee = "embed_f16", template_args = [8]}
// CHECK:      {args = [#kern.param<"rows">, 0 : index, #kern.weight<"w1">, 1 : index, #kern.param<"parallel">], callee = "matmul_f16", template_args = [8, 16]}
// CHECK-NEXT: {args = [#kern.param<"rows">, 0 : index, #kern.weight<"w3">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 16]}
// CHECK:      {args = [#kern.param<"rows">, 0 : index, #kern.weight<"w2">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [16, 8]}
// CHECK:      {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"out">, #kern.param<"logits">, #kern.param<"parallel">], callee = "logits_f16", template_args = [8, 64]}
module attributes {llm.max_seq = 32 : i64, cq.quantized = {tok = 16 : i64, w1 = 16 : i64, out = 16 : i64}} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x64xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<1xi32> -> tensor<1x8xf32>
    %m = llm.gated_mlp %h {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 16 : i64, act = "silu"} : tensor<1x8xf32>
    %l = llm.logits %m {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x64xf32>
    return %l : tensor<1x64xf32>
  }
}

// -----

// A prefill entry of 4 rows: logits with a softcap add softcap_f32 over the rows of
// logits actually written; a gelu_tanh MLP passes act 1; functions without llm.entry stay.
// CHECK-LABEL: module attributes {kern.kv_bytes = 0 : i64, kern.kv_caches = [], kern.kv_type = "f32", llm.max_seq = 32 : i64}
// CHECK-LABEL: func.func @prefill() attributes {llm.entry = "prefill"} {
// CHECK:      %[[H:.*]] = kern.alloc : memref<4x8xf32>
// CHECK-NEXT: kern.call %[[H]] : memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 1.000000e+00 : f32, 0 : index], callee = "embed_f32", template_args = [8]}
// CHECK:      %[[GATE:.*]] = kern.alloc : memref<4x16xf32>
// CHECK-NEXT: %[[UP:.*]] = kern.alloc : memref<4x16xf32>
// CHECK:      kern.call %[[GATE]], %[[UP]] : memref<4x16xf32>, memref<4x16xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, 0 : index], callee = "gated_act_f32", template_args = [16, 1]}
// CHECK-NEXT: %[[M:.*]] = kern.alloc : memref<4x8xf32>
// CHECK-NEXT: kern.call %[[GATE]], %[[M]] : memref<4x16xf32>, memref<4x8xf32> {{.*}} callee = "matmul_f32", template_args = [16, 8]}
// CHECK-NEXT: kern.call %[[H]], %[[M]] : {{.*}} callee = "add_f32"
// CHECK-NEXT: kern.call %[[H]] : memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"out">, #kern.param<"logits">, #kern.param<"parallel">], callee = "logits_f32", template_args = [8, 64]}
// CHECK-NEXT: kern.call {args = [#kern.param<"logit_rows">, #kern.param<"logits">, 3.000000e+01 : f32], callee = "softcap_f32", template_args = [64]}
// CHECK-NEXT: return{{$}}
// CHECK-LABEL: func.func @helper(%{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: llm.rms_norm
module attributes {llm.max_seq = 32 : i64} {
  func.func @prefill(%tokens: tensor<4xi32>) -> tensor<4x64xf32> attributes {llm.entry = "prefill"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<4xi32> -> tensor<4x8xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"norm">, eps = 1.0e-06 : f32} : tensor<4x8xf32>
    %m = llm.gated_mlp %n {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 16 : i64, act = "gelu_tanh"} : tensor<4x8xf32>
    %s = llm.add %h, %m : tensor<4x8xf32>
    %l = llm.logits %s {weight = #llm.weight<"out">, softcap = 30.0 : f32} : tensor<4x8xf32> -> tensor<4x64xf32>
    return %l : tensor<4x64xf32>
  }
  func.func @helper(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %n = llm.rms_norm %x {weight = #llm.weight<"norm">, eps = 1.0e-06 : f32} : tensor<4x8xf32>
    return %n : tensor<4x8xf32>
  }
}

// -----

// A residual add whose left operand is still read later accumulates into the right one.
// CHECK-LABEL: func.func @add_into_rhs()
// CHECK:      %[[A:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[A]] : {{.*}} #kern.weight<"a">
// CHECK-NEXT: %[[B:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[B]] : {{.*}} #kern.weight<"b">
// CHECK-NEXT: kern.call %[[B]], %[[A]] : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index], callee = "add_f32", template_args = [8]}
// CHECK-NEXT: %[[N:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %[[A]], %[[N]] : {{.*}} callee = "rmsnorm_f32"
// CHECK-NEXT: kern.call %[[B]], %[[N]] : {{.*}} callee = "add_f32"
// CHECK-NEXT: kern.call %[[B]] : {{.*}} callee = "logits_f32"
module attributes {llm.max_seq = 8 : i64} {
  func.func @add_into_rhs(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %a = llm.embed %tokens {table = #llm.weight<"a">} : tensor<1xi32> -> tensor<1x8xf32>
    %b = llm.embed %tokens {table = #llm.weight<"b">} : tensor<1xi32> -> tensor<1x8xf32>
    %s = llm.add %a, %b : tensor<1x8xf32>
    %n = llm.rms_norm %a {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %t = llm.add %s, %n : tensor<1x8xf32>
    %l = llm.logits %t {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// KV offsets follow the layer number, not the order in which the layers appear:
// layer 0 (width 4) gets 0 and 8*4 = 32, layer 1 (width 2) gets 64 and 64 + 8*2 = 80.
// CHECK-LABEL: module attributes {kern.kv_bytes = 384 : i64, kern.kv_caches = [{{.*}}], kern.kv_type = "f32", llm.max_seq = 8 : i64}
// CHECK:      args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, 2 : index, #kern.kv<64>, #kern.kv<80>, {{.*}}], callee = "attention_f32", template_args = [2, 1, 2, 8, 0, true]
// CHECK:      callee = "kv_store_f32", template_args = [1, 2, 8]
// CHECK:      args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, 2 : index, #kern.kv<0>, #kern.kv<32>, {{.*}}], callee = "attention_f32", template_args = [1, 1, 4, 8, 0, true]
// CHECK:      {{.*}} #kern.kv<0>, #kern.kv<32>], callee = "kv_store_f32", template_args = [1, 4, 8]
module attributes {llm.max_seq = 8 : i64} {
  func.func @layers_out_of_order(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e4">} : tensor<1xi32> -> tensor<1x4xf32>
    %k1 = llm.embed %tokens {table = #llm.weight<"k1">} : tensor<1xi32> -> tensor<1x2xf32>
    %v1 = llm.embed %tokens {table = #llm.weight<"v1">} : tensor<1xi32> -> tensor<1x2xf32>
    %a1 = llm.attention %h, %k1, %v1 {layer = 1 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 2 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x4xf32>, tensor<1x2xf32>
    %k0 = llm.embed %tokens {table = #llm.weight<"k0">} : tensor<1xi32> -> tensor<1x4xf32>
    %v0 = llm.embed %tokens {table = #llm.weight<"v0">} : tensor<1xi32> -> tensor<1x4xf32>
    %a0 = llm.attention %a1, %k0, %v0 {layer = 0 : i64, heads = 1 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x4xf32>, tensor<1x4xf32>
    %l = llm.logits %a0 {weight = #llm.weight<"out">} : tensor<1x4xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A hidden tap becomes a kern.tap of the residual buffer; prefill and decode share its id, recorded once in
// kern.taps with its layer and width.
// CHECK-LABEL: module attributes {kern.kv_bytes = 0 : i64, kern.kv_caches = [], kern.kv_type = "f32", kern.taps = [{cols = 8 : i64, kind = "hidden", layer = 1 : i64}], llm.max_seq = 8 : i64}
// CHECK-LABEL: func.func @prefill()
// CHECK:      %[[S:.*]] = kern.alloc : memref<2x8xf32>
// CHECK:      kern.call %[[S]], %{{.*}} : {{.*}} callee = "add_f32"
// CHECK-NEXT: kern.tap %[[S]] {id = 0 : i64} : memref<2x8xf32>
// CHECK-NEXT: kern.call %[[S]] : {{.*}} callee = "logits_f32"
// CHECK-LABEL: func.func @decode()
// CHECK:      kern.tap %{{.*}} {id = 0 : i64} : memref<1x8xf32>
module attributes {llm.max_seq = 8 : i64} {
  func.func @prefill(%tokens: tensor<2xi32>) -> tensor<2x16xf32> attributes {llm.entry = "prefill"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<2xi32> -> tensor<2x8xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"norm">, eps = 1.0e-06 : f32} : tensor<2x8xf32>
    %m = llm.gated_mlp %n {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 16 : i64, act = "silu"} : tensor<2x8xf32>
    %s = llm.add %h, %m : tensor<2x8xf32>
    llm.hidden_tap %s {layer = 1 : i64} : tensor<2x8xf32>
    %l = llm.logits %s {weight = #llm.weight<"tok">} : tensor<2x8xf32> -> tensor<2x16xf32>
    return %l : tensor<2x16xf32>
  }
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<1xi32> -> tensor<1x8xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"norm">, eps = 1.0e-06 : f32} : tensor<1x8xf32>
    %m = llm.gated_mlp %n {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 16 : i64, act = "silu"} : tensor<1x8xf32>
    %s = llm.add %h, %m : tensor<1x8xf32>
    llm.hidden_tap %s {layer = 1 : i64} : tensor<1x8xf32>
    %l = llm.logits %s {weight = #llm.weight<"tok">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A probe entry: its argument (the hidden rows) is the runtime parameter "hidden"; the head gets its z and score
// scratch from the arena (max_seq rows) and writes p(wrong) to "p_wrong".
// CHECK-LABEL: func.func @probe() attributes {llm.entry = "probe"} {
// CHECK-NEXT: %[[Z:.*]] = kern.alloc : memref<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = kern.alloc : memref<8xf32>
// CHECK-NEXT: kern.call %[[Z]], %[[S]] : memref<8x4xf32>, memref<8xf32> {args = [#kern.param<"rows">, #kern.param<"hidden">, #kern.weight<"probe.gamma">, #kern.weight<"probe.beta">, #kern.weight<"probe.w0">, #kern.weight<"probe.b0">, #kern.weight<"probe.query">, #kern.weight<"probe.w1">, #kern.weight<"probe.b1">, #kern.weight<"probe.w2">, #kern.weight<"probe.b2">, #kern.weight<"probe.w3">, #kern.weight<"probe.b3">, 0 : index, 1 : index, #kern.param<"p_wrong">], callee = "probe_head_f32", template_args = [16, 4, 8, 6]}
// CHECK-NEXT: return
module attributes {llm.max_seq = 8 : i64} {
  func.func @probe(%h: tensor<8x16xf32>) -> tensor<1x1xf32> attributes {llm.entry = "probe"} {
    %p = llm.probe_head %h {prefix = "probe.", h = 4 : i64, m1 = 8 : i64, m2 = 6 : i64} : tensor<8x16xf32> -> tensor<1x1xf32>
    return %p : tensor<1x1xf32>
  }
}

// -----

// Gemma 4's structure: layer 1 computes no K/V and attends over layer 0's cache, so only layer 0 has one
// (kv width 4, max_seq 8: K at 0, V at 32, 256 bytes); layer 1 reads the call's own positions from layer 0's K and
// V buffers, and layer 0's store follows layer 1's attention, the last that reads the cache. Partial rotary RoPE
// passes its pair count (1 of 2), a RoPE of every pair leaves it out; the scales are in place, by a constant or a
// one-element weight; a column slice copies its columns.
// CHECK-LABEL: module attributes {kern.kv_bytes = 256 : i64, kern.kv_caches = [{head_dim = 4 : i64, kv_heads = 1 : i64, layer = 0 : i64, positions = 8 : i64, window = 0 : i64}], kern.kv_type = "f32", llm.max_seq = 8 : i64}
// CHECK-LABEL: func.func @decode()
// CHECK:      %[[Q:.*]] = kern.alloc : memref<1x8xf32>
// CHECK:      kern.call %[[Q]] : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1.000000e+06 : f32, 1.000000e+00 : f32], callee = "rope_f32", template_args = [2, 4, 1, 1]}
// CHECK:      kern.call %[[K:.*]] : memref<1x4xf32> {{.*}} callee = "rope_f32", template_args = [1, 4, 1]}
// CHECK:      %[[V:.*]] = kern.alloc : memref<1x4xf32>
// CHECK-NOT:  kv_store_f32
// CHECK:      kern.call %[[Q]], %[[K]], %[[V]], {{.*}} #kern.kv<0>, #kern.kv<32>, 1.000000e+00 : f32, {{.*}} callee = "attention_f32"
// CHECK-NOT:  kv_store_f32
// CHECK:      %[[A1:.*]] = kern.alloc : memref<1x8xf32>
// CHECK-NEXT: kern.call %{{.*}}, %[[K]], %[[V]], %{{.*}}, %[[A1]] : {{.*}} #kern.kv<0>, #kern.kv<32>, 1.000000e+00 : f32, {{.*}} callee = "attention_f32", template_args = [2, 1, 4, 8, 0, false]}
// CHECK-NEXT: kern.call %[[K]], %[[V]] : {{.*}} #kern.kv<0>, #kern.kv<32>], callee = "kv_store_f32", template_args = [1, 4, 8]}
// CHECK-NOT:  kv_store_f32
// CHECK:      kern.call %[[A1]] : memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 5.000000e-01 : f32], callee = "scale_f32", template_args = [8]}
// CHECK-NEXT: kern.call %[[A1]] : memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 1.000000e+00 : f32, #kern.weight<"l1.layer_scalar">], callee = "scale_f32", template_args = [8]}
// CHECK-NEXT: %[[S:.*]] = kern.alloc : memref<1x4xf32>
// CHECK-NEXT: kern.call %[[A1]], %[[S]] : memref<1x8xf32>, memref<1x4xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index], callee = "column_slice_f32", template_args = [8, 4, 4]}
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %qr = llm.rope %q {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+06 : f32, style = 1 : i64, rotary_pairs = 1 : i64} : tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 4 : i64, theta = 1.0e+06 : f32, style = 1 : i64, rotary_pairs = 2 : i64} : tensor<1x4xf32>
    %v = llm.embed %tokens {table = #llm.weight<"v">} : tensor<1xi32> -> tensor<1x4xf32>
    %a0 = llm.attention %qr, %kr, %v {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %a1 = llm.attention %a0 {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
    %s = llm.scale %a1 {factor = 0.5 : f32} : tensor<1x8xf32>
    %t = llm.scale %s {factor = 1.0 : f32, weight = #llm.weight<"l1.layer_scalar">} : tensor<1x8xf32>
    %c = llm.column_slice %t {offset = 4 : i64} : tensor<1x8xf32> -> tensor<1x4xf32>
    %l = llm.logits %c {weight = #llm.weight<"out">} : tensor<1x4xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A vision tower's entry: its patches are copied into the arena and updated there; a clamp of an activation a
// later op still reads clamps a copy; 2-D RoPE, position embedding and pooling read the patch positions; the ops
// after the pooling run over the soft-token rows, and the result is copied out to the caller's soft tokens.
// CHECK-LABEL: func.func @encode_image() attributes {llm.entry = "vision", llm.pooling = 3 : i64} {
// CHECK:       %[[PX:.*]] = kern.alloc : memref<36x48xf32>
// CHECK-NEXT:  kern.call %[[PX]] : memref<36x48xf32> {args = [#kern.param<"rows">, #kern.param<"patches">, 0 : index], callee = "copy_rows_f32", template_args = [48]}
// CHECK-NEXT:  kern.call %[[PX]] : memref<36x48xf32> {args = [#kern.param<"rows">, 0 : index, 5.000000e-01 : f32, 2.000000e+00 : f32], callee = "shift_scale_f32"
// CHECK:       callee = "position_embed_2d_f32", template_args = [8, 64]
// CHECK:       %[[QIN:.*]] = kern.alloc : memref<36x8xf32>
// CHECK-NEXT:  kern.call %[[H:.*]], %[[QIN]] : {{.*}} callee = "copy_rows_f32"
// CHECK-NEXT:  kern.call %[[QIN]] : memref<36x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"q.input_min">, #kern.weight<"q.input_max">], callee = "clamp_f32", template_args = [8]}
// CHECK:       {args = [#kern.param<"rows">, #kern.param<"positions">, 0 : index, 1.000000e+02 : f32], callee = "rope_2d_f32", template_args = [2, 4]}
// CHECK:       {args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index, 1.000000e+00 : f32, 3 : index, #kern.param<"parallel">], callee = "attention_full_f32", template_args = [2, 2, 4]}
// CHECK:       {args = [#kern.param<"rows">, #kern.param<"positions">, 0 : index, 2.000000e+00 : f32, 1 : index], callee = "pool_patches_f32", template_args = [8, 3]}
// CHECK-NEXT:  kern.call {{.*}} {args = [#kern.param<"soft_rows">, 0 : index, #kern.weight<"std_bias">, #kern.weight<"std_scale">], callee = "standardize_f32"
// CHECK:       {args = [#kern.param<"soft_rows">, 0 : index, #kern.weight<"embed">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [8, 24]}
// CHECK-NEXT:  {args = [#kern.param<"soft_rows">, 0 : index, #kern.param<"soft_tokens">], callee = "copy_rows_f32", template_args = [24]}
// CHECK-NEXT:  return
module attributes {llm.max_seq = 16 : i64} {
  func.func @encode_image(%px: tensor<36x48xf32>, %pos: tensor<36x2xi32>) -> tensor<4x24xf32> attributes {llm.entry = "vision", llm.pooling = 3 : i64} {
    %x = llm.shift_scale %px {shift = 0.5 : f32, scale = 2.0 : f32} : tensor<36x48xf32>
    %h0 = llm.linear %x {weight = #llm.weight<"patch">} : tensor<36x48xf32> -> tensor<36x8xf32>
    %h = llm.position_embed_2d %h0, %pos {table = #llm.weight<"pos">, table_rows = 64 : i64} : tensor<36x8xf32>, tensor<36x2xi32>
    %qi = llm.clamp %h {lo = #llm.weight<"q.input_min">, hi = #llm.weight<"q.input_max">} : tensor<36x8xf32>
    %q = llm.linear %qi {weight = #llm.weight<"q">} : tensor<36x8xf32> -> tensor<36x8xf32>
    %qr = llm.rope_2d %q, %pos {heads = 2 : i64, head_dim = 4 : i64, theta = 100.0 : f32} : tensor<36x8xf32>, tensor<36x2xi32>
    %a = llm.bidirectional_attention %qr, %h, %h {heads = 2 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, scale = 1.0 : f32} : tensor<36x8xf32>, tensor<36x8xf32>
    %p = llm.pool_patches %a, %pos {kernel = 3 : i64, scale = 2.0 : f32} : tensor<36x8xf32>, tensor<36x2xi32> -> tensor<4x8xf32>
    %s = llm.standardize %p {bias = #llm.weight<"std_bias">, scale = #llm.weight<"std_scale">} : tensor<4x8xf32>
    %o = llm.linear %s {weight = #llm.weight<"embed">} : tensor<4x8xf32> -> tensor<4x24xf32>
    return %o : tensor<4x24xf32>
  }
}

// -----

// An audio tower's entry: its mel frames are copied into the arena; the first subsampling runs over `rows`, the
// second over its `rows_2` output rows and everything after it over `rows_4`; local attention reads its relative
// position table as a weight (no scratch), the gated causal convolution gets a scratch buffer for its GLU; SiLU and
// the bias work in place, and the result is copied out to the caller's soft tokens.
// CHECK-LABEL: func.func @encode_audio() attributes {llm.entry = "audio"} {
// CHECK:       %[[F:.*]] = kern.alloc : memref<12x128xf32>
// CHECK-NEXT:  kern.call %[[F]] : memref<12x128xf32> {args = [#kern.param<"rows">, #kern.param<"features">, 0 : index], callee = "copy_rows_f32", template_args = [128]}
// CHECK:       {args = [#kern.param<"rows">, 0 : index, #kern.weight<"c0">, #kern.weight<"n0">, 9.99999997E-7 : f32, 1 : index, #kern.param<"parallel">], callee = "subsample_conv_f32", template_args = [128, 1, 4]}
// CHECK:       {args = [#kern.param<"rows_2">, 0 : index, #kern.weight<"c1">, #kern.weight<"n1">, 9.99999997E-7 : f32, 1 : index, #kern.param<"parallel">], callee = "subsample_conv_f32", template_args = [64, 4, 2]}
// CHECK:       {args = [#kern.param<"rows_4">, 0 : index, #kern.weight<"proj">, 1 : index, #kern.param<"parallel">], callee = "matmul_f32", template_args = [64, 8]}
// CHECK-NOT:   memref<6x8xf32>
// CHECK:       {args = [#kern.param<"rows_4">, 0 : index, 1 : index, 2 : index, #kern.weight<"pds">, #kern.weight<"rel">, 3.000000e+00 : f32, 3 : index, #kern.param<"parallel">], callee = "local_attention_f32", template_args = [2, 4, 4, 0, 4]}
// CHECK:       %[[G:.*]] = kern.alloc : memref<3x8xf32>
// CHECK-NEXT:  %[[C:.*]] = kern.alloc : memref<3x8xf32>
// CHECK-NEXT:  kern.call %{{.*}}, %[[G]], %[[C]] : {{.*}} {args = [#kern.param<"rows_4">, 0 : index, #kern.weight<"dw">, 1 : index, 2 : index], callee = "gated_causal_conv_f32", template_args = [8, 5]}
// CHECK-NEXT:  kern.call %[[C]] : memref<3x8xf32> {args = [#kern.param<"rows_4">, 0 : index], callee = "silu_rows_f32", template_args = [8]}
// CHECK:       {args = [#kern.param<"rows_4">, 0 : index, #kern.weight<"bias">], callee = "add_bias_f32", template_args = [24]}
// CHECK-NEXT:  {args = [#kern.param<"rows_4">, 0 : index, #kern.param<"soft_tokens">], callee = "copy_rows_f32", template_args = [24]}
// CHECK-NEXT:  return
module attributes {llm.max_seq = 16 : i64} {
  func.func @encode_audio(%f: tensor<12x128xf32>) -> tensor<3x24xf32> attributes {llm.entry = "audio"} {
    %c0 = llm.subsample_conv %f {weight = #llm.weight<"c0">, norm = #llm.weight<"n0">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<12x128xf32> -> tensor<6x256xf32>
    %c1 = llm.subsample_conv %c0 {weight = #llm.weight<"c1">, norm = #llm.weight<"n1">, in_channels = 4 : i64, eps = 1.0e-6 : f32} : tensor<6x256xf32> -> tensor<3x64xf32>
    %h = llm.linear %c1 {weight = #llm.weight<"proj">} : tensor<3x64xf32> -> tensor<3x8xf32>
    %a = llm.local_attention %h, %h, %h {heads = 2 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 3.0 : f32} : tensor<3x8xf32>
    %g = llm.linear %a {weight = #llm.weight<"start">} : tensor<3x8xf32> -> tensor<3x16xf32>
    %v = llm.gated_causal_conv %g {weight = #llm.weight<"dw">, kernel = 5 : i64} : tensor<3x16xf32> -> tensor<3x8xf32>
    %s = llm.silu %v : tensor<3x8xf32>
    %o = llm.linear %s {weight = #llm.weight<"out">} : tensor<3x8xf32> -> tensor<3x24xf32>
    %b = llm.add_bias %o {bias = #llm.weight<"bias">} : tensor<3x24xf32>
    return %b : tensor<3x24xf32>
  }
}

// -----

// A streamed clip's step: the same graph, its stateful ops calling their step forms with the rows of earlier steps
// (`start`, `start_2`, `start_4` where they run over `rows`, `rows_2`, `rows_4`) and rings placed one after another
// in the stream's state (kern.kv offsets): the subsamplings' last input row (128, 256 floats), attention's keys and
// values of past − 1 frames (3 × 8 each), the convolution's kernel − 1 GLU rows (4 × 8); 464 floats in all.
// CHECK: module attributes {kern.audio_state_bytes = 1856 : i64
// CHECK-LABEL: func.func @encode_audio_step() attributes {llm.entry = "audio_step"} {
// CHECK:       {args = [#kern.param<"rows">, #kern.param<"start">, #kern.kv<0>, 0 : index, #kern.weight<"c0">, #kern.weight<"n0">, 9.99999997E-7 : f32, 1 : index, #kern.param<"parallel">], callee = "subsample_conv_step_f32", template_args = [128, 1, 4]}
// CHECK:       {args = [#kern.param<"rows_2">, #kern.param<"start_2">, #kern.kv<128>, 0 : index, #kern.weight<"c1">, #kern.weight<"n1">, 9.99999997E-7 : f32, 1 : index, #kern.param<"parallel">], callee = "subsample_conv_step_f32", template_args = [64, 4, 2]}
// CHECK:       {args = [#kern.param<"rows_4">, #kern.param<"start_4">, #kern.kv<384>, #kern.kv<408>, 0 : index, 1 : index, 2 : index, #kern.weight<"pds">, #kern.weight<"rel">, 3.000000e+00 : f32, 3 : index, #kern.param<"parallel">], callee = "local_attention_step_f32", template_args = [2, 4, 4, 0, 4]}
// CHECK:       {args = [#kern.param<"rows_4">, #kern.param<"start_4">, #kern.kv<432>, 0 : index, #kern.weight<"dw">, 1 : index, 2 : index], callee = "gated_causal_conv_step_f32", template_args = [8, 5]}
// CHECK:       {args = [#kern.param<"rows_4">, 0 : index, #kern.param<"soft_tokens">], callee = "copy_rows_f32", template_args = [24]}
module attributes {llm.max_seq = 16 : i64} {
  func.func @encode_audio_step(%f: tensor<12x128xf32>) -> tensor<3x24xf32> attributes {llm.entry = "audio_step"} {
    %c0 = llm.subsample_conv %f {weight = #llm.weight<"c0">, norm = #llm.weight<"n0">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<12x128xf32> -> tensor<6x256xf32>
    %c1 = llm.subsample_conv %c0 {weight = #llm.weight<"c1">, norm = #llm.weight<"n1">, in_channels = 4 : i64, eps = 1.0e-6 : f32} : tensor<6x256xf32> -> tensor<3x64xf32>
    %h = llm.linear %c1 {weight = #llm.weight<"proj">} : tensor<3x64xf32> -> tensor<3x8xf32>
    %a = llm.local_attention %h, %h, %h {heads = 2 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 3.0 : f32} : tensor<3x8xf32>
    %g = llm.linear %a {weight = #llm.weight<"start">} : tensor<3x8xf32> -> tensor<3x16xf32>
    %v = llm.gated_causal_conv %g {weight = #llm.weight<"dw">, kernel = 5 : i64} : tensor<3x16xf32> -> tensor<3x8xf32>
    %s = llm.silu %v : tensor<3x8xf32>
    %o = llm.linear %s {weight = #llm.weight<"out">} : tensor<3x8xf32> -> tensor<3x24xf32>
    %b = llm.add_bias %o {bias = #llm.weight<"bias">} : tensor<3x24xf32>
    return %b : tensor<3x24xf32>
  }
}

// -----

// A prefill of a model with a vision tower: the injected rows replace the embedding in place.
// CHECK-LABEL: func.func @prefill() attributes {llm.entry = "prefill"} {
// CHECK:       callee = "embed_f32"
// CHECK-NEXT:  kern.call %{{.*}} : memref<4x16xf32> {args = [#kern.param<"rows">, #kern.param<"soft_embeds">, #kern.param<"soft_mask">, 0 : index], callee = "inject_rows_f32", template_args = [16]}
module attributes {llm.max_seq = 16 : i64} {
  func.func @prefill(%tokens: tensor<4xi32>) -> tensor<4x32xf32> attributes {llm.entry = "prefill"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<4xi32> -> tensor<4x16xf32>
    %i = llm.inject_embeddings %h : tensor<4x16xf32>
    %l = llm.logits %i {weight = #llm.weight<"head">} : tensor<4x16xf32> -> tensor<4x32xf32>
    return %l : tensor<4x32xf32>
  }
}
