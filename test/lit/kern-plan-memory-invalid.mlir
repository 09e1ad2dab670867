// RUN: saguaro-opt %s --split-input-file --kern-plan-memory --verify-diagnostics | FileCheck %s

// A buffer no call names is warned about and gets no arena space (offset 0, not counted).
// CHECK-LABEL: func.func @unused_buffer() attributes {kern.arena_bytes = 64 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x16xf32>
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x64xf32>
func.func @unused_buffer() {
  %a = kern.alloc : memref<1x16xf32>
  // expected-warning @+1 {{buffer is never used; it gets no arena space}}
  %unused = kern.alloc : memref<1x64xf32>
  kern.call %a : memref<1x16xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
  return
}

// -----

// Buffers must come from the function's own arena: a memref argument is not one.
func.func @argument_buffer(%m: memref<1x16xf32>) {
  %a = kern.alloc : memref<1x16xf32>
  // expected-error @+1 {{'kern.call' op uses a buffer that is not a kern.alloc of this function}}
  kern.call %a, %m : memref<1x16xf32>, memref<1x16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
  return
}

// -----

// Nor is a memref.alloc.
func.func @memref_alloc_buffer() {
  %m = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{'kern.call' op uses a buffer that is not a kern.alloc of this function}}
  kern.call %m : memref<4xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
  return
}
