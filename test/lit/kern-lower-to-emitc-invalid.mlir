// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc --verify-diagnostics

// Every buffer needs an arena offset from kern-plan-memory.
func.func @unplanned() attributes {llm.entry = "decode"} {
  // expected-error @+1 {{'kern.alloc' op has no planned offset; run kern-plan-memory first}}
  %0 = kern.alloc : memref<1x8xf32>
  kern.call %0 : memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32], callee = "softcap_f32", template_args = [8]}
  return
}

// -----

// Only prefill and decode entries exist in the model ABI.
// expected-error @+1 {{'func.func' op unknown entry kind "train"}}
func.func @train() attributes {llm.entry = "train"} {
  return
}

// -----

// The entry kind is a string.
// expected-error @+1 {{'func.func' op llm.entry must be a string}}
func.func @numbered() attributes {llm.entry = 1 : i64} {
  return
}

// -----

// Only kern ops lower to EmitC.
func.func @foreign_op() attributes {llm.entry = "prefill"} {
  // expected-error @+1 {{'memref.alloc' op cannot be lowered to EmitC}}
  %m = memref.alloc() : memref<4xf32>
  return
}

// -----

// The KV cache holds f32 or f16 elements; anything else has no C++ pointer type here.
// expected-error @+1 {{kern.kv_type must be "f32" or "f16", got "bf16"}}
module attributes {kern.kv_type = "bf16"} {
  func.func @decode() attributes {kern.arena_bytes = 0 : i64, llm.entry = "decode"} {
    return
  }
}

// -----

// A vision entry's soft-token rows come from its pooling.
// expected-error @+1 {{a vision entry needs a positive llm.pooling}}
func.func @encode_image() attributes {llm.entry = "vision"} {
  return
}
