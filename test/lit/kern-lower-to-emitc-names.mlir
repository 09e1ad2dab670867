// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc | mlir-translate --split-input-file --mlir-to-cpp | FileCheck %s --check-prefix=CPP

// Each value is located at the C++ name the bundle writer gives it: the arguments by their role in the model ABI,
// a buffer by the value its kern.alloc is located at, a weight pointer by the tensor's name without `model.` and
// `.weight`, a KV pointer by the kv_store call that fills it (its first KV argument K, the second V), even where an
// attention reads the cache first, or without a store by the call that first reads it. A comment starts each run of
// kern ops located in one block.
// CHECK-LABEL: emitc.func @saguaro_model_decode(
// CHECK-SAME: loc("state"), %{{[^:]+}}: i32 loc("token"), %{{[^:]+}}: i32 loc("pos0"), %{{[^:]+}}: !emitc.ptr<f32> loc("logits"))
// CHECK:      emitc.call_opaque "arena_of"{{.*}} loc("arena")
// CHECK:      emitc.call_opaque "kv_of"{{.*}} loc("kv")
// CHECK:      emitc.apply "&"{{.*}} loc("tokens")
// CHECK:      emitc.verbatim "// embedding"
// CHECK-NEXT: emitc.literal "0"
// CHECK-NEXT: emitc.add {{.*}} loc("x_residual")
// CHECK-NEXT: emitc.call_opaque "weight_of"{{.*}} loc("w_embed_tokens")
// CHECK:      emitc.call_opaque "saguaro::kernels::embed_f32"
// CHECK-NEXT: emitc.verbatim "// layer 0: attention"
// CHECK-NEXT: emitc.literal "16"
// CHECK-NEXT: emitc.add {{.*}} loc("x_l0_attn_norm")
// CHECK-NEXT: emitc.call_opaque "weight_of"{{.*}} loc("w_layers_0_input_layernorm")
// CHECK:      emitc.call_opaque "saguaro::kernels::rmsnorm_f32"
// CHECK-NEXT: emitc.literal "0"
// CHECK-NEXT: emitc.add {{.*}} loc("kv_l0_k")
// CHECK-NEXT: emitc.literal "64"
// CHECK-NEXT: emitc.add {{.*}} loc("kv_l0_v")
// CHECK-NOT:  emitc.verbatim
// CHECK:      emitc.call_opaque "saguaro::kernels::attention_f32"
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::kv_store_f32"
// CHECK-NEXT: emitc.verbatim "// output"
// CHECK:      emitc.call_opaque "weight_of"{{.*}} loc("w_lm_head")
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::logits_f32"
// CPP-LABEL: void saguaro_model_decode(
// CPP:       // embedding
// CPP-NEXT:  float* v{{[0-9]+}} = v{{[0-9]+}} + 0;
// CPP:       // layer 0: attention
// CPP-NEXT:  float* v{{[0-9]+}} = v{{[0-9]+}} + 16;
// CPP:       // output
// CPP-NEXT:  const void* v{{[0-9]+}} = weight_of(v1, 2);
module attributes {kern.arena_bytes = 128 : i64, kern.kv_bytes = 512 : i64} {
  func.func @decode() attributes {kern.arena_bytes = 128 : i64, llm.entry = "decode"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<1x8xf32> loc("x_residual"("embedding"))
    kern.call %0 : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"model.embed_tokens.weight">, 1.000000e+00 : f32, 0 : index], callee = "embed_f32", template_args = [8]} loc("x_residual"("embedding"))
    %1 = kern.alloc {offset = 64 : i64} : memref<1x8xf32> loc("x_l0_attn_norm"("layer 0: attention"))
    kern.call %0, %1 : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"model.layers.0.input_layernorm.weight">, 1.0e-05 : f32, 1 : index], callee = "rmsnorm_f32", template_args = [8, false]} loc("x_l0_attn_norm"("layer 0: attention"))
    kern.call %1 : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 0 : index, 0 : index, #kern.kv<0>, #kern.kv<64>, 0.0 : f32, 0.0 : f32, 0 : index, 0 : index], callee = "attention_f32", template_args = [2, 2, 4, 8, 0, true]} loc("x_l0_attn"("layer 0: attention"))
    kern.call %1, %1 : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [2, 4, 8]} loc("kv_l0"("layer 0: attention"))
    kern.call %1 : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"lm_head.weight">, #kern.param<"logits">], callee = "logits_f32", template_args = [8, 32]} loc("logits"("output"))
    return
  }
}

// -----

// A name becomes a fresh C++ identifier of its function: other characters become '_'; a name that does not start
// with a letter, is a C++ keyword, something else model.cpp declares (`tap`) or of the emitter's own form (`v3`)
// gets the prefix `x_`; a name taken gets `_2`, `_3`. A buffer without a name is `buf`, a KV pointer of a call
// without one `kv_k` / `kv_v`. A block comment stays on its line.
// CHECK-LABEL: emitc.func @saguaro_model_prefill(
// CHECK-SAME: loc("state"), %{{[^:]+}}: !emitc.ptr<!emitc.opaque<"const int32_t">> loc("tokens"), %{{[^:]+}}: i32 loc("rows"), %{{[^:]+}}: i32 loc("pos0"), %{{[^:]+}}: !emitc.ptr<!emitc.opaque<"const float">> loc("soft_embeds"), %{{[^:]+}}: !emitc.ptr<!emitc.opaque<"const uint8_t">> loc("soft_mask"), %{{[^:]+}}: !emitc.ptr<f32> loc("logits"), %{{[^:]+}}: i1 loc("all_logits"))
// CHECK:      emitc.conditional {{.*}} loc("logit_rows")
// CHECK:      emitc.verbatim "// layer 1: a  b"
// CHECK:      emitc.add {{.*}} loc("x_a")
// CHECK:      emitc.add {{.*}} loc("x_a_2")
// CHECK:      emitc.add {{.*}} loc("x_a_3")
// CHECK:      emitc.add {{.*}} loc("x_tap")
// CHECK:      emitc.add {{.*}} loc("x_v3")
// CHECK:      emitc.add {{.*}} loc("x_for")
// CHECK:      emitc.add {{.*}} loc("x_2d")
// CHECK:      emitc.add {{.*}} loc("buf")
// CHECK:      emitc.add {{.*}} loc("buf_2")
// CHECK:      emitc.add {{.*}} loc("kv_k")
// CHECK:      emitc.add {{.*}} loc("kv_v")
// CHECK-NOT:  emitc.verbatim
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("x.a"("layer 1: a\\\0Ab"))
    %1 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("x_a"("layer 1: a\\\0Ab"))
    %2 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("x_a")
    %3 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("tap")
    %4 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("v3")
    %5 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("for")
    %6 = kern.alloc {offset = 0 : i64} : memref<4x8xf32> loc("2d")
    %7 = kern.alloc {offset = 0 : i64} : memref<4x8xf32>
    %8 = kern.alloc {offset = 0 : i64} : memref<4x8xf32>
    kern.call %0, %1, %2 : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index], callee = "gated_act_f32", template_args = [8, 0]}
    kern.call %3, %4, %5 : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index], callee = "gated_act_f32", template_args = [8, 0]}
    kern.call %6, %7, %8 : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, 1 : index, 2 : index], callee = "gated_act_f32", template_args = [8, 0]}
    kern.call %0, %1 : memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [1, 8, 8]}
    return
  }
}
