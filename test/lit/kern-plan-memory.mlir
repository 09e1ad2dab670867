// RUN: saguaro-opt %s --split-input-file --kern-plan-memory | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --kern-plan-memory | saguaro-opt --split-input-file | FileCheck %s

// Buffers live in the same call get disjoint offsets; once %a is dead (its last call was
// the second), %c reuses its offset. A call's input and output never share space.
// The plan is also recorded per function for the manifest: offset, size and live calls.
// CHECK-LABEL: module attributes {kern.arena_bytes = 128 : i64, kern.memory_plan = {reuse = {arena_bytes = 128 : i64, buffers = [{bytes = 64 : i64, first_call = 0 : i64, last_call = 1 : i64, offset = 0 : i64}, {bytes = 64 : i64, first_call = 1 : i64, last_call = 2 : i64, offset = 64 : i64}, {bytes = 64 : i64, first_call = 2 : i64, last_call = 2 : i64, offset = 0 : i64}]}}}
// CHECK-LABEL: func.func @reuse() attributes {kern.arena_bytes = 128 : i64}
// CHECK-NEXT: %[[A:.*]] = kern.alloc {offset = 0 : i64} : memref<1x16xf32>
// CHECK-NEXT: %[[B:.*]] = kern.alloc {offset = 64 : i64} : memref<1x16xf32>
// CHECK-NEXT: %[[C:.*]] = kern.alloc {offset = 0 : i64} : memref<1x16xf32>
// CHECK-NEXT: kern.call %[[A]] :
// CHECK-NEXT: kern.call %[[A]], %[[B]] :
// CHECK-NEXT: kern.call %[[B]], %[[C]] :
module {
  func.func @reuse() {
    %a = kern.alloc : memref<1x16xf32>
    %b = kern.alloc : memref<1x16xf32>
    %c = kern.alloc : memref<1x16xf32>
    kern.call %a : memref<1x16xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
    kern.call %a, %b : memref<1x16xf32>, memref<1x16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %b, %c : memref<1x16xf32>, memref<1x16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    return
  }
}

// -----

// Sizes round up to 64 bytes: 1x5xf32 (20 bytes) takes 64, 1x17xf32 (68 bytes) takes 128,
// 3xf32 (12 bytes) takes 64, so three live buffers need 256 bytes.
// CHECK-LABEL: func.func @alignment() attributes {kern.arena_bytes = 256 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x5xf32>
// CHECK-NEXT: kern.alloc {offset = 64 : i64} : memref<1x17xf32>
// CHECK-NEXT: kern.alloc {offset = 192 : i64} : memref<3xf32>
module {
  func.func @alignment() {
    %a = kern.alloc : memref<1x5xf32>
    %b = kern.alloc : memref<1x17xf32>
    %c = kern.alloc : memref<3xf32>
    kern.call %a, %b, %c : memref<1x5xf32>, memref<1x17xf32>, memref<3xf32> {callee = "gated_act_f32", template_args = [16, 0], args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index]}
    return
  }
}

// -----

// First fit: after %a dies, the 64-byte hole at 0 is too small for the 128-byte %c, which
// goes above %b, but it takes %d later.
// CHECK-LABEL: func.func @first_fit() attributes {kern.arena_bytes = 256 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<16xf32>
// CHECK-NEXT: kern.alloc {offset = 64 : i64} : memref<16xf32>
// CHECK-NEXT: kern.alloc {offset = 128 : i64} : memref<32xf32>
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<16xf32>
module {
  func.func @first_fit() {
    %a = kern.alloc : memref<16xf32>
    %b = kern.alloc : memref<16xf32>
    %c = kern.alloc : memref<32xf32>
    %d = kern.alloc : memref<16xf32>
    kern.call %a, %b : memref<16xf32>, memref<16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %a : memref<16xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
    kern.call %b, %c : memref<16xf32>, memref<32xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %b, %c, %d : memref<16xf32>, memref<32xf32>, memref<16xf32> {callee = "gated_act_f32", template_args = [16, 0], args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index]}
    return
  }
}

// -----

// Buffers are placed in order of first use, not of allocation.
// CHECK-LABEL: func.func @first_use_order() attributes {kern.arena_bytes = 192 : i64}
// CHECK-NEXT: kern.alloc {offset = 128 : i64} : memref<1x16xf32>
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x32xf32>
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x16xf32>
module {
  func.func @first_use_order() {
    %late = kern.alloc : memref<1x16xf32>
    %early = kern.alloc : memref<1x32xf32>
    %last = kern.alloc : memref<1x16xf32>
    kern.call %early : memref<1x32xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
    kern.call %early, %late : memref<1x32xf32>, memref<1x16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    kern.call %last : memref<1x16xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
    return
  }
}

// -----

// Each function gets its own arena size; the module takes the maximum (they share one
// arena). External functions are skipped and a function without buffers needs 0 bytes.
// CHECK-LABEL: module attributes {kern.arena_bytes = 192 : i64, kern.memory_plan = {empty = {arena_bytes = 0 : i64, buffers = []}, large = {arena_bytes = 192 : i64,
// CHECK-LABEL: func.func @small() attributes {kern.arena_bytes = 64 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<4xf32>
// CHECK-LABEL: func.func @large() attributes {kern.arena_bytes = 192 : i64, llm.entry = "decode"}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1x16xf32>
// CHECK-NEXT: kern.alloc {offset = 64 : i64} : memref<2x16xf32>
// CHECK-LABEL: func.func @empty() attributes {kern.arena_bytes = 0 : i64}
// CHECK-LABEL: func.func private @external(){{$}}
module {
  func.func @small() {
    %a = kern.alloc : memref<4xf32>
    kern.call %a : memref<4xf32> {callee = "softcap_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 3.000000e+01 : f32]}
    return
  }
  func.func @large() attributes {llm.entry = "decode"} {
    %a = kern.alloc : memref<1x16xf32>
    %b = kern.alloc : memref<2x16xf32>
    kern.call %a, %b : memref<1x16xf32>, memref<2x16xf32> {callee = "add_f32", template_args = [16], args = [#kern.param<"rows">, 0 : index, 1 : index]}
    return
  }
  func.func @empty() {
    kern.call {callee = "softcap_f32", template_args = [8], args = [#kern.param<"logit_rows">, #kern.param<"logits">, 3.0e+01 : f32]}
    return
  }
  func.func private @external()
}

// -----

// Each tower's entry runs on an arena of its own: the module's kern.arena_bytes stays the decoder's,
// kern.vision_arena_bytes and kern.audio_arena_bytes hold the towers' (a streamed clip's step runs on the audio
// tower's).
// CHECK: module attributes {kern.arena_bytes = 256 : i64, kern.audio_arena_bytes = 768 : i64, {{.*}}kern.vision_arena_bytes = 1024 : i64}
module {
  func.func @decode() attributes {llm.entry = "decode"} {
    %a = kern.alloc : memref<1x64xf32>
    kern.call %a : memref<1x64xf32> {callee = "add_f32", template_args = [64], args = [#kern.param<"rows">, 0 : index, 0 : index]}
    return
  }
  func.func @encode_image() attributes {llm.entry = "vision", llm.pooling = 3 : i64} {
    %a = kern.alloc : memref<4x64xf32>
    kern.call %a : memref<4x64xf32> {callee = "add_f32", template_args = [64], args = [#kern.param<"rows">, 0 : index, 0 : index]}
    return
  }
  func.func @encode_audio() attributes {llm.entry = "audio"} {
    %a = kern.alloc : memref<2x64xf32>
    kern.call %a : memref<2x64xf32> {callee = "add_f32", template_args = [64], args = [#kern.param<"rows">, 0 : index, 0 : index]}
    return
  }
  func.func @encode_audio_step() attributes {llm.entry = "audio_step"} {
    %a = kern.alloc : memref<3x64xf32>
    kern.call %a : memref<3x64xf32> {callee = "add_f32", template_args = [64], args = [#kern.param<"rows">, 0 : index, 0 : index]}
    return
  }
}
