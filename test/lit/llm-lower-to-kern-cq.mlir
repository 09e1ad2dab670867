// RUN: saguaro-opt %s --llm-lower-to-kern | FileCheck %s --check-prefix=F32
// RUN: saguaro-opt %s --llm-lower-to-kern=cq-activations=i8 | FileCheck %s --check-prefix=I8
// RUN: saguaro-opt %s --llm-lower-to-kern=cq-activations=i8 | saguaro-opt | FileCheck %s --check-prefix=I8

// The codebook ops of cq-quantize. K = 200 is one group of 128 and a zero-padded second one, so the rotated
// activation has 256 columns; its int8 form (cq-activations=i8) has 256 code bytes and 8 bytes per group
// (scale and sum), 272 bytes = 68 floats. Both products of %h read one rotation (and one int8 copy of it);
// the rotation gets the thread pool (prefill splits its rows), and the int8 products and logits get it too
// (they split their columns). Every CQ weight is three blob tensors: codes, norms, the (bits, group) codebook.

// F32:      %[[H:.*]] = kern.alloc : memref<1x200xf32>
// F32-NEXT: kern.call %[[H]] : memref<1x200xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok.codes">, #kern.weight<"tok.norms">, #kern.weight<"cq.codebook.b4.g128">, 1.000000e+00 : f32, 0 : index], callee = "cq_embed_f32", template_args = [200, 4]}
// F32-NEXT: %[[R:.*]] = kern.alloc : memref<1x256xf32>
// F32-NEXT: kern.call %[[H]], %[[R]] : memref<1x200xf32>, memref<1x256xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, #kern.param<"parallel">], callee = "cq_rotate_f32", template_args = [200]}
// F32-NEXT: %[[Q:.*]] = kern.alloc : memref<1x200xf32>
// F32-NEXT: kern.call %[[R]], %[[Q]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq.codes">, #kern.weight<"wq.norms">, #kern.weight<"cq.codebook.b3.g128">, 1 : index], callee = "cq_matmul_f32", template_args = [200, 200, 3]}
// F32-NEXT: %[[K:.*]] = kern.alloc : memref<1x200xf32>
// F32-NEXT: kern.call %[[R]], %[[K]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"wk.codes">, #kern.weight<"wk.norms">, #kern.weight<"cq.codebook.b2.g128">, 1 : index], callee = "cq_matmul_f32", template_args = [200, 200, 2]}
// F32-NEXT: kern.call %[[Q]], %[[K]] : {{.*}} callee = "add_f32"
// F32-NEXT: %[[R2:.*]] = kern.alloc : memref<1x256xf32>
// F32-NEXT: kern.call %[[Q]], %[[R2]] : {{.*}} callee = "cq_rotate_f32", template_args = [200]}
// F32-NEXT: kern.call %[[R2]] : memref<1x256xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"tok.codes">, #kern.weight<"tok.norms">, #kern.weight<"cq.codebook.b4.g128">, #kern.param<"logits">], callee = "cq_logits_f32", template_args = [200, 32, 4]}
// F32-NEXT: kern.call {args = [#kern.param<"logit_rows">, #kern.param<"logits">, 3.000000e+01 : f32], callee = "softcap_f32", template_args = [32]}
// F32-NEXT: return

// I8:      callee = "cq_embed_f32"
// I8:      %[[R:.*]] = kern.alloc : memref<1x256xf32>
// I8-NEXT: kern.call %{{.*}}, %[[R]] : {{.*}} callee = "cq_rotate_f32"
// I8-NEXT: %[[A:.*]] = kern.alloc : memref<1x68xf32>
// I8-NEXT: kern.call %[[R]], %[[A]] : memref<1x256xf32>, memref<1x68xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index], callee = "cq_quantize_act_i8", template_args = [200]}
// I8-NEXT: %[[Q:.*]] = kern.alloc : memref<1x200xf32>
// I8-NEXT: kern.call %[[A]], %[[Q]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq.codes">, #kern.weight<"wq.norms">, #kern.weight<"cq.codebook.b3.g128">, 1 : index, #kern.param<"parallel">], callee = "cq_matmul_i8", template_args = [200, 200, 3, #kern.layout<"cq-lsb">]}
// I8-NEXT: %[[K:.*]] = kern.alloc : memref<1x200xf32>
// I8-NEXT: kern.call %[[A]], %[[K]] : {{.*}} callee = "cq_matmul_i8", template_args = [200, 200, 2, #kern.layout<"cq-lsb">]}
// I8-NEXT: kern.call %[[Q]], %[[K]] : {{.*}} callee = "add_f32"
// I8-NEXT: %[[R2:.*]] = kern.alloc : memref<1x256xf32>
// I8-NEXT: kern.call %[[Q]], %[[R2]] : {{.*}} callee = "cq_rotate_f32"
// I8-NEXT: %[[A2:.*]] = kern.alloc : memref<1x68xf32>
// I8-NEXT: kern.call %[[R2]], %[[A2]] : {{.*}} callee = "cq_quantize_act_i8"
// I8-NEXT: kern.call %[[A2]] : memref<1x68xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"tok.codes">, #kern.weight<"tok.norms">, #kern.weight<"cq.codebook.b4.g128">, #kern.param<"logits">, #kern.param<"parallel">], callee = "cq_logits_i8", template_args = [200, 32, 4, #kern.layout<"cq-lsb">]}
// I8-NEXT: callee = "softcap_f32"
module attributes {llm.max_seq = 16 : i64, cq.quantized = {tok = 4 : i64, wq = 3 : i64, wk = 2 : i64}} {
  func.func @decode(%tok: tensor<1xi32>) -> tensor<1x32xf32> attributes {llm.entry = "decode"} {
    %h = cq.gather %tok {codebook = #cq.codebook<4, 128>, table = #llm.weight<"tok">, scale = 1.0 : f32} : tensor<1xi32> -> tensor<1x200xf32>
    %q = cq.matmul %h {codebook = #cq.codebook<3, 128>, weight = #llm.weight<"wq">} : tensor<1x200xf32> -> tensor<1x200xf32>
    %k = cq.matmul %h {codebook = #cq.codebook<2, 128>, weight = #llm.weight<"wk">} : tensor<1x200xf32> -> tensor<1x200xf32>
    %s = llm.add %q, %k : tensor<1x200xf32>
    %l = cq.logits %s {codebook = #cq.codebook<4, 128>, weight = #llm.weight<"tok">, softcap = 30.0 : f32} : tensor<1x200xf32> -> tensor<1x32xf32>
    return %l : tensor<1x32xf32>
  }
}
