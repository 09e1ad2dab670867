// RUN: saguaro-opt %s --kern-fuse-cq-products=target=x86-avx512vnni | FileCheck %s
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=x86-avx2 | FileCheck %s
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=aarch64-neon | FileCheck %s
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=aarch64-dotprod | FileCheck %s
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=aarch64-i8mm | FileCheck %s
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=generic | FileCheck %s --check-prefix=KEEP
// RUN: saguaro-opt %s --kern-fuse-cq-products=target=x86-avx2 | saguaro-opt | FileCheck %s

// q, k and v of one activation (allocs between them) become one cq_matmul3_i8 at the place of v; gate and up
// become one cq_matmul2_i8. The codebook comes first, then codes, norms and output buffer per product.
// CHECK-LABEL: func.func @decode
// CHECK: kern.call %[[XQ:.*]], %[[Q:.*]], %[[K:.*]], %[[V:.*]] : {{.*}} {args = [#kern.param<"rows">, 0 : index, #kern.weight<"cq.codebook.b4.g128">, #kern.weight<"wq.codes">, #kern.weight<"wq.norms">, 1 : index, #kern.weight<"wk.codes">, #kern.weight<"wk.norms">, 2 : index, #kern.weight<"wv.codes">, #kern.weight<"wv.norms">, 3 : index, #kern.param<"parallel">], callee = "cq_matmul3_i8", template_args = [256, 40, 16, 16, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK: kern.call {{.*}}callee = "rmsnorm_f32"
// CHECK: callee = "cq_matmul2_i8", template_args = [256, 96, 96, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "add_f32"
// A product of other bits, or one that another kernel call separates from its neighbours, stays alone.
// CHECK: callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "cq_matmul_i8", template_args = [256, 40, 2, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "add_f32"
// CHECK-NEXT: callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "add_f32"
// Four products in a row: the first three fuse, the fourth stays alone.
// CHECK: callee = "cq_matmul3_i8", template_args = [256, 8, 8, 8, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">]}
// Two products writing the same buffer are not fused (the second overwrites the first).
// CHECK-NEXT: callee = "add_f32"
// CHECK-NEXT: callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK-NEXT: callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">]}
// CHECK: return

// KEEP-NOT: cq_matmul2_i8
// KEEP-NOT: cq_matmul3_i8
// KEEP: callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">]}
module {
  func.func @decode() attributes {llm.entry = "decode"} {
    %xq = kern.alloc : memref<1x1280xf32>
    %q = kern.alloc : memref<1x40xf32>
    kern.call %xq, %q : memref<1x1280xf32>, memref<1x40xf32> {callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wq.codes">, #kern.weight<"wq.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    %k = kern.alloc : memref<1x16xf32>
    kern.call %xq, %k : memref<1x1280xf32>, memref<1x16xf32> {callee = "cq_matmul_i8", template_args = [256, 16, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wk.codes">, #kern.weight<"wk.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    %v = kern.alloc : memref<1x16xf32>
    kern.call %xq, %v : memref<1x1280xf32>, memref<1x16xf32> {callee = "cq_matmul_i8", template_args = [256, 16, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wv.codes">, #kern.weight<"wv.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    %n = kern.alloc : memref<1x40xf32>
    kern.call %q, %n : memref<1x40xf32>, memref<1x40xf32> {callee = "rmsnorm_f32", template_args = [40, false], args = [#kern.param<"rows">, 0 : index, #kern.weight<"norm">, 1.0e-05 : f32, 1 : index]}
    %g = kern.alloc : memref<1x96xf32>
    %u = kern.alloc : memref<1x96xf32>
    kern.call %xq, %g : memref<1x1280xf32>, memref<1x96xf32> {callee = "cq_matmul_i8", template_args = [256, 96, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wg.codes">, #kern.weight<"wg.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %u : memref<1x1280xf32>, memref<1x96xf32> {callee = "cq_matmul_i8", template_args = [256, 96, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wu.codes">, #kern.weight<"wu.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %n, %n : memref<1x40xf32>, memref<1x40xf32> {callee = "add_f32", template_args = [40], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    %a = kern.alloc : memref<1x40xf32>
    %b = kern.alloc : memref<1x40xf32>
    %c = kern.alloc : memref<1x40xf32>
    kern.call %xq, %a : memref<1x1280xf32>, memref<1x40xf32> {callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wa.codes">, #kern.weight<"wa.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %b : memref<1x1280xf32>, memref<1x40xf32> {callee = "cq_matmul_i8", template_args = [256, 40, 2, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wb.codes">, #kern.weight<"wb.norms">, #kern.weight<"cq.codebook.b2.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %a, %b : memref<1x40xf32>, memref<1x40xf32> {callee = "add_f32", template_args = [40], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %xq, %c : memref<1x1280xf32>, memref<1x40xf32> {callee = "cq_matmul_i8", template_args = [256, 40, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"wc.codes">, #kern.weight<"wc.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %n, %n : memref<1x40xf32>, memref<1x40xf32> {callee = "add_f32", template_args = [40], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    %d0 = kern.alloc : memref<1x8xf32>
    %d1 = kern.alloc : memref<1x8xf32>
    %d2 = kern.alloc : memref<1x8xf32>
    %d3 = kern.alloc : memref<1x8xf32>
    kern.call %xq, %d0 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w0.codes">, #kern.weight<"w0.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %d1 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w1.codes">, #kern.weight<"w1.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %d2 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w2.codes">, #kern.weight<"w2.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %d3 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w3.codes">, #kern.weight<"w3.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %a, %b : memref<1x40xf32>, memref<1x40xf32> {callee = "add_f32", template_args = [40], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %xq, %d0 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w0.codes">, #kern.weight<"w0.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    kern.call %xq, %d0 : memref<1x1280xf32>, memref<1x8xf32> {callee = "cq_matmul_i8", template_args = [256, 8, 4, #kern.layout<"cq-planar-panel8">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w1.codes">, #kern.weight<"w1.norms">, #kern.weight<"cq.codebook.b4.g128">, 1 : index, #kern.param<"parallel">]}
    return
  }
}
