// RUN: saguaro-opt %s --split-input-file --kern-insert-calibration-taps | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --kern-insert-calibration-taps | saguaro-opt --split-input-file | FileCheck %s

// Three products reading the same buffer share one tap placed before the first (binary16 weights, matmul_f16,
// count as float products); a kernel that writes the buffer in place (gated_act) ends the tap, so the next reader
// gets its own.
// CHECK-LABEL: module attributes {kern.taps = [{cols = 8 : i64, kind = "weights", weights = ["wq", "wk", "wv"]}, {cols = 8 : i64, kind = "weights", weights = ["w_down"]}]}
// CHECK: func.func @prefill
// CHECK-NEXT: %[[X:.*]] = kern.alloc
// CHECK-NEXT: %[[Y:.*]] = kern.alloc
// CHECK-NEXT: kern.tap %[[X]] {id = 0 : i64} : memref<4x8xf32>
// CHECK-NEXT: kern.call %[[X]], %[[Y]] : {{.*}}callee = "matmul_f32"
// CHECK-NEXT: kern.call %[[X]], %[[Y]] : {{.*}}callee = "matmul_f32"
// CHECK-NEXT: kern.call %[[X]], %[[Y]] : {{.*}}callee = "matmul_f16"
// CHECK-NEXT: kern.call %[[X]] : {{.*}}callee = "gated_act_f32"
// CHECK-NEXT: kern.tap %[[X]] {id = 1 : i64} : memref<4x8xf32>
// CHECK-NEXT: kern.call %[[X]], %[[Y]] : {{.*}}callee = "matmul_f32"
// CHECK-NEXT: return
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %x = kern.alloc : memref<4x8xf32>
    %y = kern.alloc : memref<4x8xf32>
    kern.call %x, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "matmul_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq">, 1 : index]}
    kern.call %x, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "matmul_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wk">, 1 : index]}
    kern.call %x, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "matmul_f16", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wv">, 1 : index]}
    kern.call %x : memref<4x8xf32> {callee = "gated_act_f32", template_args = [8, 0], args = [#kern.param<"rows">, 0 : index, 0 : index, 0 : index]}
    kern.call %x, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "matmul_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w_down">, 1 : index]}
    return
  }
}

// -----

// The output head is tapped; the decode entry and codebook products are not (calibration
// reads float32 prefill activations only).
// CHECK-LABEL: module attributes {kern.taps = [{cols = 8 : i64, kind = "weights", weights = ["head"]}]}
// CHECK: func.func @prefill
// CHECK: kern.tap %{{.*}} {id = 0 : i64}
// CHECK-NEXT: kern.call {{.*}}callee = "logits_f32"
// CHECK: func.func @decode
// CHECK-NOT: kern.tap
// CHECK: return
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %x = kern.alloc : memref<4x8xf32>
    %r = kern.alloc : memref<4x8xf32>
    %y = kern.alloc : memref<4x8xf32>
    kern.call %x, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "logits_f32", template_args = [8, 8], args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"head">, #kern.param<"logits">]}
    kern.call %r, %y : memref<4x8xf32>, memref<4x8xf32> {callee = "cq_matmul_f32", template_args = [8, 8, 4], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w.codes">, #kern.weight<"w.norms">, #kern.weight<"cq.codebook.b4.g8">, 1 : index]}
    return
  }
  func.func @decode() attributes {llm.entry = "decode"} {
    %x = kern.alloc : memref<1x8xf32>
    %y = kern.alloc : memref<1x8xf32>
    kern.call %x, %y : memref<1x8xf32>, memref<1x8xf32> {callee = "matmul_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"head">, 1 : index]}
    return
  }
}
