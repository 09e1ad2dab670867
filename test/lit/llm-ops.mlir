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
