// RUN: saguaro-opt %s --split-input-file --llm-fuse-residual-norm | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --llm-fuse-residual-norm | saguaro-opt --split-input-file | FileCheck %s

// The residual add feeding the next layer's norm becomes one add_rms_norm.
// CHECK-LABEL: func.func @fuses
// CHECK: %[[H:.*]] = llm.embed
// CHECK: %[[D:.*]] = llm.embed
// CHECK: %[[S:.*]], %[[N:.*]] = llm.add_rms_norm %[[H]], %[[D]] {add_one = true, eps = 9.99999997E-7 : f32, weight = #llm.weight<"n">} : tensor<2x8xf32>
// CHECK-NOT: llm.add %
// CHECK-NOT: llm.rms_norm
// CHECK: return %[[S]], %[[N]]
func.func @fuses(%t: tensor<2xi32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %h = llm.embed %t {table = #llm.weight<"e">} : tensor<2xi32> -> tensor<2x8xf32>
  %d = llm.embed %t {table = #llm.weight<"f">} : tensor<2xi32> -> tensor<2x8xf32>
  %s = llm.add %h, %d : tensor<2x8xf32>
  %n = llm.rms_norm %s {weight = #llm.weight<"n">, eps = 1.0e-06 : f32, add_one = true} : tensor<2x8xf32>
  return %s, %n : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Entry arguments belong to the caller and are never overwritten: no fusion.
// CHECK-LABEL: func.func @argument_residual
// CHECK: llm.add
// CHECK-NOT: llm.add_rms_norm
func.func @argument_residual(%h: tensor<1x8xf32>, %d: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %s = llm.add %h, %d : tensor<1x8xf32>
  %n = llm.rms_norm %s {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
  return %n : tensor<1x8xf32>
}

// -----

// The residual is read after the add, so it cannot be overwritten in place: no fusion.
// CHECK-LABEL: func.func @residual_still_read
// CHECK: llm.add
// CHECK: llm.rms_norm
// CHECK-NOT: llm.add_rms_norm
func.func @residual_still_read(%t: tensor<1xi32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %h = llm.embed %t {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
  %d = llm.embed %t {table = #llm.weight<"f">} : tensor<1xi32> -> tensor<1x8xf32>
  %s = llm.add %h, %d : tensor<1x8xf32>
  %n = llm.rms_norm %s {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
  %later = llm.add %h, %d : tensor<1x8xf32>
  return %n, %later : tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// A norm whose input is not an add is left alone.
// CHECK-LABEL: func.func @no_add
// CHECK: llm.rms_norm
// CHECK-NOT: llm.add_rms_norm
func.func @no_add(%h: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %n = llm.rms_norm %h {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
  return %n : tensor<1x8xf32>
}
