// RUN: saguaro-opt %s --split-input-file | FileCheck %s
// RUN: saguaro-opt %s --split-input-file | saguaro-opt --split-input-file | FileCheck %s

// Gemma 4's ops print and parse back: an attention without k and v that reads layer 0's cache, partial rotary
// RoPE, a scale by a constant and by a one-element weight, a column slice.
// CHECK-LABEL: func.func @gemma4_ops
// CHECK:      llm.attention %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}layer = 0 : i64{{.*}}} : tensor<2x8xf32>, tensor<2x4xf32>
// CHECK:      llm.attention %{{.*}} {{{.*}}kv_layer = 0 : i64, layer = 1 : i64{{.*}}} : tensor<2x8xf32>{{$}}
// CHECK:      llm.rope %{{.*}} {{{.*}}rotary_pairs = 1 : i64{{.*}}} : tensor<2x8xf32>
// CHECK:      llm.scale %{{.*}} {factor = 5.000000e-01 : f32} : tensor<2x8xf32>
// CHECK:      llm.scale %{{.*}} {factor = 1.000000e+00 : f32, weight = #llm.weight<"l1.layer_scalar">} : tensor<2x8xf32>
// CHECK:      llm.column_slice %{{.*}} {offset = 4 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
func.func @gemma4_ops(%q: tensor<2x8xf32>, %k: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a0 = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<2x8xf32>, tensor<2x4xf32>
  %a1 = llm.attention %a0 {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<2x8xf32>
  %r = llm.rope %a1 {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+06 : f32, style = 1 : i64, rotary_pairs = 1 : i64} : tensor<2x8xf32>
  %s = llm.scale %r {factor = 0.5 : f32} : tensor<2x8xf32>
  %t = llm.scale %s {factor = 1.0 : f32, weight = #llm.weight<"l1.layer_scalar">} : tensor<2x8xf32>
  %c = llm.column_slice %t {offset = 4 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// The audio tower's ops print and parse back: two subsampling convolutions (time and frequency halve), local
// attention with relative position keys, the gated causal convolution, SiLU and a linear's bias.
// CHECK-LABEL: func.func @audio_ops
// CHECK:      llm.subsample_conv %{{.*}} {eps = 9.99999997E-7 : f32, in_channels = 1 : i64, norm = #llm.weight<"n0">, weight = #llm.weight<"c0">} : tensor<9x128xf32> -> tensor<5x512xf32>
// CHECK:      llm.subsample_conv %{{.*}} {{{.*}}in_channels = 8 : i64{{.*}}} : tensor<5x512xf32> -> tensor<3x64xf32>
// CHECK:      llm.local_attention %{{.*}}, %{{.*}}, %{{.*}} {cap = 3.000000e+00 : f32, chunk = 4 : i64, future = 0 : i64, head_dim = 4 : i64, heads = 2 : i64, past = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">} : tensor<3x8xf32>
// CHECK:      llm.gated_causal_conv %{{.*}} {kernel = 5 : i64, weight = #llm.weight<"dw">} : tensor<3x16xf32> -> tensor<3x8xf32>
// CHECK:      llm.silu %{{.*}} : tensor<3x8xf32>
// CHECK:      llm.add_bias %{{.*}} {bias = #llm.weight<"b">} : tensor<3x8xf32>
func.func @audio_ops(%x: tensor<9x128xf32>, %q: tensor<3x8xf32>, %g: tensor<3x16xf32>) -> tensor<3x8xf32> {
  %c0 = llm.subsample_conv %x {weight = #llm.weight<"c0">, norm = #llm.weight<"n0">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<9x128xf32> -> tensor<5x512xf32>
  %c1 = llm.subsample_conv %c0 {weight = #llm.weight<"c1">, norm = #llm.weight<"n1">, in_channels = 8 : i64, eps = 1.0e-6 : f32} : tensor<5x512xf32> -> tensor<3x64xf32>
  %a = llm.local_attention %q, %q, %q {heads = 2 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 3.0 : f32} : tensor<3x8xf32>
  %v = llm.gated_causal_conv %g {weight = #llm.weight<"dw">, kernel = 5 : i64} : tensor<3x16xf32> -> tensor<3x8xf32>
  %s = llm.silu %v : tensor<3x8xf32>
  %b = llm.add_bias %s {bias = #llm.weight<"b">} : tensor<3x8xf32>
  return %b : tensor<3x8xf32>
}

// -----

// The vision tower's ops print and parse back: pixels to [-1, 1], a clipped linear's clamp, the 2-D position
// embedding and RoPE, attention over every patch, 3x3 pooling, standardize, and a prefill's injected rows.
// CHECK-LABEL: func.func @encoder_ops
// CHECK:      llm.shift_scale %{{.*}} {scale = 2.000000e+00 : f32, shift = 5.000000e-01 : f32} : tensor<36x8xf32>
// CHECK:      llm.clamp %{{.*}} {hi = #llm.weight<"q.input_max">, lo = #llm.weight<"q.input_min">} : tensor<36x8xf32>
// CHECK:      llm.position_embed_2d %{{.*}}, %{{.*}} {table = #llm.weight<"pos">, table_rows = 64 : i64} : tensor<36x8xf32>, tensor<36x2xi32>
// CHECK:      llm.rope_2d %{{.*}}, %{{.*}} {head_dim = 4 : i64, heads = 2 : i64, theta = 1.000000e+02 : f32} : tensor<36x8xf32>, tensor<36x2xi32>
// CHECK:      llm.bidirectional_attention %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}kv_heads = 1 : i64{{.*}}} : tensor<36x8xf32>, tensor<36x4xf32>
// CHECK:      llm.pool_patches %{{.*}}, %{{.*}} {kernel = 3 : i64, scale = 2.82842708 : f32} : tensor<36x8xf32>, tensor<36x2xi32> -> tensor<4x8xf32>
// CHECK:      llm.standardize %{{.*}} {bias = #llm.weight<"std_bias">, scale = #llm.weight<"std_scale">} : tensor<4x8xf32>
// CHECK:      llm.inject_embeddings %{{.*}} : tensor<4x8xf32>
func.func @encoder_ops(%x: tensor<36x8xf32>, %pos: tensor<36x2xi32>, %k: tensor<36x4xf32>) -> tensor<4x8xf32> {
  %p = llm.shift_scale %x {shift = 0.5 : f32, scale = 2.0 : f32} : tensor<36x8xf32>
  %c = llm.clamp %p {lo = #llm.weight<"q.input_min">, hi = #llm.weight<"q.input_max">} : tensor<36x8xf32>
  %e = llm.position_embed_2d %c, %pos {table = #llm.weight<"pos">, table_rows = 64 : i64} : tensor<36x8xf32>, tensor<36x2xi32>
  %r = llm.rope_2d %e, %pos {heads = 2 : i64, head_dim = 4 : i64, theta = 100.0 : f32} : tensor<36x8xf32>, tensor<36x2xi32>
  %a = llm.bidirectional_attention %r, %k, %k {heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, scale = 1.0 : f32} : tensor<36x8xf32>, tensor<36x4xf32>
  %o = llm.pool_patches %a, %pos {kernel = 3 : i64, scale = 2.828427 : f32} : tensor<36x8xf32>, tensor<36x2xi32> -> tensor<4x8xf32>
  %s = llm.standardize %o {bias = #llm.weight<"std_bias">, scale = #llm.weight<"std_scale">} : tensor<4x8xf32>
  %i = llm.inject_embeddings %s : tensor<4x8xf32>
  return %i : tensor<4x8xf32>
}
