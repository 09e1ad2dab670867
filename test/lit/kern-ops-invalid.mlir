// RUN: saguaro-opt %s --split-input-file --verify-diagnostics

// An index argument names one of the call's buffer operands.
func.func @buffer_index_out_of_range() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op argument refers to buffer 1 but the call has 1}}
  kern.call %0 : memref<1x8xf32> {callee = "k", template_args = [], args = [0 : index, 1 : index]}
  return
}

// -----

// Negative buffer indices are out of range as well.
func.func @buffer_index_negative() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op argument refers to buffer -1 but the call has 1}}
  kern.call %0 : memref<1x8xf32> {callee = "k", template_args = [], args = [-1 : index]}
  return
}

// -----

// A call without buffers cannot refer to one.
func.func @buffer_index_no_buffers() {
  // expected-error @+1 {{'kern.call' op argument refers to buffer 0 but the call has 0}}
  kern.call {callee = "k", template_args = [], args = [0 : index]}
  return
}

// -----

// Runtime parameters are a fixed set of names.
func.func @unknown_param() {
  // expected-error @+1 {{'kern.call' op unknown runtime parameter "seq_len"}}
  kern.call {callee = "k", template_args = [], args = [#kern.param<"rows">, #kern.param<"seq_len">]}
  return
}

// -----

// Strings have no C++ argument form.
func.func @string_argument() {
  // expected-error @+1 {{'kern.call' op unsupported argument "eps"}}
  kern.call {callee = "k", template_args = [], args = ["eps"]}
  return
}

// -----

// Nor do arrays.
func.func @array_argument() {
  // expected-error @+1 {{'kern.call' op unsupported argument [1, 2]}}
  kern.call {callee = "k", template_args = [], args = [[1, 2]]}
  return
}

// -----

// Arena buffers have a static size.
func.func @dynamic_alloc() {
  // expected-error @+1 {{'kern.alloc' op buffer shape must be static, got 'memref<?x8xf32>'}}
  %0 = kern.alloc : memref<?x8xf32>
  return
}

// -----

// Planned offsets are 64-byte aligned.
func.func @misaligned_offset() {
  // expected-error @+1 {{'kern.alloc' op offset 32 is not a non-negative multiple of 64}}
  %0 = kern.alloc {offset = 32 : i64} : memref<1x8xf32>
  return
}

// -----

// A tap reads a static two-dimensional f32 buffer.
func.func @tap_rank() {
  %0 = kern.alloc : memref<8xf32>
  // expected-error @+1 {{'kern.tap' op taps a static [rows, cols] f32 buffer, got 'memref<8xf32>'}}
  kern.tap %0 {id = 0 : i64} : memref<8xf32>
  return
}

// -----

// Tap ids are non-negative.
func.func @tap_id() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.tap' op id -1 is negative}}
  kern.tap %0 {id = -1 : i64} : memref<1x8xf32>
  return
}

// -----

// A call names a kernel of the catalogue (dialects/kern/IR/KernelCatalogue.h).
func.func @unknown_kernel() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op calls "fill_f32", which is not a kernel of the catalogue (dialects/kern/IR/KernelCatalogue.h)}}
  kern.call %0 : memref<1x8xf32> {callee = "fill_f32", template_args = [8], args = [#kern.param<"rows">, 0 : index]}
  return
}

// -----

// Template arguments: as many as the kernel's signature has, optional ones only at the end.
func.func @template_arity() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op add_f32 takes 1 template arguments (D), got 2}}
  kern.call %0, %0 : memref<1x8xf32>, memref<1x8xf32> {callee = "add_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, 1 : index]}
  return
}

// -----

// A Layout template argument is a stored layout by name, not a number.
func.func @layout_number() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op matmul_f32 template argument Layout must be a #kern.layout}}
  kern.call %0, %0 : memref<1x8xf32>, memref<1x8xf32> {callee = "matmul_f32", template_args = [8, 8, 1], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w">, 1 : index, #kern.param<"parallel">]}
  return
}

// -----

// Layout names are those of saguaro/kernels/layouts.h.
func.func @unknown_layout() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{unknown layout "column-major"}}
  kern.call %0, %0 : memref<1x8xf32>, memref<1x8xf32> {callee = "matmul_f32", template_args = [8, 8, #kern.layout<"column-major">], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w">, 1 : index, #kern.param<"parallel">]}
  return
}

// -----

// Arguments: the required ones, then any of the optional ones, in order.
func.func @argument_arity() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op cq_rotate_f32 takes 3-4 arguments, got 2}}
  kern.call %0 : memref<1x8xf32> {callee = "cq_rotate_f32", template_args = [8], args = [#kern.param<"rows">, 0 : index]}
  return
}

// -----

// Each argument plays its role: a weight where the signature has a weight.
func.func @argument_role() {
  %0 = kern.alloc : memref<1x8xf32>
  // expected-error @+1 {{'kern.call' op rmsnorm_f32 argument 'w' cannot be that kind of value}}
  kern.call %0, %0 : memref<1x8xf32>, memref<1x8xf32> {callee = "rmsnorm_f32", template_args = [8, false], args = [#kern.param<"rows">, 0 : index, 0 : index, 1.0e-05 : f32, 1 : index]}
  return
}
