// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc | saguaro-opt --split-input-file | FileCheck %s
// RUN: saguaro-opt %s --split-input-file --kern-lower-to-emitc | mlir-translate --split-input-file --mlir-to-cpp | FileCheck %s --check-prefix=CPP

// A planned prefill and decode entry become the two functions of the model ABI. Weight
// slots are numbered in first-use order across both entries ("tok" 0, "norm" 1,
// "final_norm" 2); within a function each weight and KV pointer is computed once.
// CHECK-LABEL: module attributes {kern.arena_bytes = 256 : i64, kern.kv_bytes = 512 : i64, saguaro.weight_slots = ["tok", "norm", "final_norm"]}
// CHECK-NOT:   func.func
// CHECK-LABEL: emitc.func @saguaro_model_prefill(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %[[TOK:[^:]+]]: !emitc.ptr<!emitc.opaque<"const int32_t">>, %[[N:[^:]+]]: i32, %[[POS:[^:]+]]: i32, %[[SOFT:[^:]+]]: !emitc.ptr<!emitc.opaque<"const float">>, %[[MASK:[^:]+]]: !emitc.ptr<!emitc.opaque<"const uint8_t">>, %[[LOGITS:[^:]+]]: !emitc.ptr<f32>, %[[ALL:[^:]+]]: i1) {
// CHECK-NEXT: %[[ARENA:.*]] = emitc.call_opaque "arena_of"(%[[S]]) {args = [0 : index]} : (!emitc.opaque<"const saguaro::ModelState&">) -> !emitc.ptr<f32>
// CHECK-NEXT: %[[KV:.*]] = emitc.call_opaque "kv_of"(%[[S]]) {args = [0 : index]} : (!emitc.opaque<"const saguaro::ModelState&">) -> !emitc.ptr<f32>
// logit_rows is all_logits ? n : 1.
// CHECK-NEXT: %[[ONE:.*]] = emitc.literal "1" : i32
// CHECK-NEXT: %[[LROWS:.*]] = emitc.conditional %[[ALL]], %[[N]], %[[ONE]] : i32
// Byte offsets become float offsets: 128 bytes is arena + 32.
// CHECK-NEXT: %[[O0:.*]] = emitc.literal "0" : i64
// CHECK-NEXT: %[[B0:.*]] = emitc.add %[[ARENA]], %[[O0]] : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32>
// CHECK-NEXT: %[[O1:.*]] = emitc.literal "32" : i64
// CHECK-NEXT: %[[B1:.*]] = emitc.add %[[ARENA]], %[[O1]] : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32>
// CHECK-NEXT: %[[WTOK:.*]] = emitc.call_opaque "weight_of"(%[[S]]) {args = [0 : index, 0 : i32]} : (!emitc.opaque<"const saguaro::ModelState&">) -> !emitc.ptr<!emitc.opaque<"const void">>
// CHECK-NEXT: %[[SCALE:.*]] = emitc.literal "1.0f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::embed_f32"(%[[N]], %[[TOK]], %[[WTOK]], %[[SCALE]], %[[B0]]) {args = [0 : index, 1 : index, 2 : index, 3 : index, 4 : index], template_args = [8]}
// CHECK-NEXT: %[[WNORM:.*]] = emitc.call_opaque "weight_of"(%[[S]]) {args = [0 : index, 1 : i32]}
// CHECK-NEXT: %[[EPS:.*]] = emitc.literal "9.99999975e-06f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::rmsnorm_f32"(%[[N]], %[[B0]], %[[WNORM]], %[[EPS]], %[[B1]]) {{.*}}template_args = [8, false]}
// CHECK-NEXT: %[[K0:.*]] = emitc.literal "0" : i64
// CHECK-NEXT: %[[KPTR:.*]] = emitc.add %[[KV]], %[[K0]] : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32>
// CHECK-NEXT: %[[V0:.*]] = emitc.literal "64" : i64
// CHECK-NEXT: %[[VPTR:.*]] = emitc.add %[[KV]], %[[V0]] : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32>
// CHECK-NEXT: %[[SC:.*]] = emitc.literal "0.0f" : f32
// CHECK-NEXT: %[[CAP:.*]] = emitc.literal "0.0f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::attention_f32"(%[[N]], %[[POS]], %[[B1]], %[[B1]], %[[B1]], %[[KPTR]], %[[VPTR]], %[[SC]], %[[CAP]], %[[B1]], %[[B1]]) {{.*}}template_args = [2, 2, 4, 8, 0, true]}
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::kv_store_f32"(%[[N]], %[[POS]], %[[B1]], %[[B1]], %[[KPTR]], %[[VPTR]]) {{.*}}template_args = [2, 4, 8]}
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::logits_f32"(%[[N]], %[[ALL]], %[[B1]], %[[WTOK]], %[[LOGITS]]) {{.*}}template_args = [8, 32]}
// CHECK-NEXT: %[[SOFTCAP:.*]] = emitc.literal "30.0f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::softcap_f32"(%[[LROWS]], %[[LOGITS]], %[[SOFTCAP]]) {args = [0 : index, 1 : index, 2 : index], template_args = [32]} : (i32, !emitc.ptr<f32>, f32) -> ()
// CHECK-NEXT: emitc.return
// CHECK-NEXT: }
// Decode: one token by value (passed on as its address), one row, a single row of logits.
// CHECK-LABEL: emitc.func @saguaro_model_decode(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %[[TOKEN:[^:]+]]: i32, %[[POS:[^:]+]]: i32, %[[LOGITS:[^:]+]]: !emitc.ptr<f32>) {
// CHECK-NEXT: %[[ARENA:.*]] = emitc.call_opaque "arena_of"(%[[S]])
// CHECK-NEXT: %{{.*}} = emitc.call_opaque "kv_of"(%[[S]])
// CHECK-NEXT: %[[TOK:.*]] = emitc.apply "&"(%[[TOKEN]]) : (i32) -> !emitc.ptr<!emitc.opaque<"const int32_t">>
// CHECK-NEXT: %[[ROWS:.*]] = emitc.literal "1" : i32
// CHECK-NEXT: %[[ALL:.*]] = emitc.literal "false" : i1
// CHECK-NEXT: %[[O0:.*]] = emitc.literal "0" : i64
// CHECK-NEXT: %[[B0:.*]] = emitc.add %[[ARENA]], %[[O0]]
// CHECK-NEXT: %[[O1:.*]] = emitc.literal "16" : i64
// CHECK-NEXT: %[[B1:.*]] = emitc.add %[[ARENA]], %[[O1]]
// CHECK-NEXT: %[[WTOK:.*]] = emitc.call_opaque "weight_of"(%[[S]]) {args = [0 : index, 0 : i32]}
// CHECK-NEXT: %[[SCALE:.*]] = emitc.literal "1.0f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::embed_f32"(%[[ROWS]], %[[TOK]], %[[WTOK]], %[[SCALE]], %[[B0]])
// CHECK-NEXT: %[[WFINAL:.*]] = emitc.call_opaque "weight_of"(%[[S]]) {args = [0 : index, 2 : i32]}
// CHECK-NEXT: %[[EPS:.*]] = emitc.literal "9.99999975e-06f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::rmsnorm_f32"(%[[ROWS]], %[[B0]], %[[WFINAL]], %[[EPS]], %[[B1]]) {{.*}}template_args = [8, true]}
// CHECK-NEXT: %[[WNORM:.*]] = emitc.call_opaque "weight_of"(%[[S]]) {args = [0 : index, 1 : i32]}
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::logits_f32"(%[[ROWS]], %[[ALL]], %[[B1]], %[[WNORM]], %[[LOGITS]])
// CHECK-NEXT: %[[SOFTCAP:.*]] = emitc.literal "30.0f" : f32
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::softcap_f32"(%[[ROWS]], %[[LOGITS]], %[[SOFTCAP]])
// CHECK-NEXT: emitc.return

// CPP-LABEL: void saguaro_model_prefill(
// CPP-SAME: const saguaro::ModelState& [[S:v[0-9]+]], const int32_t* [[TOK:v[0-9]+]], int32_t [[N:v[0-9]+]], int32_t [[POS:v[0-9]+]], const float* [[SOFT:v[0-9]+]], const uint8_t* [[MASK:v[0-9]+]], float* [[LOGITS:v[0-9]+]], bool [[ALL:v[0-9]+]]) {
// CPP-NEXT:  float* [[ARENA:v[0-9]+]] = arena_of([[S]]);
// CPP-NEXT:  float* [[KV:v[0-9]+]] = kv_of([[S]]);
// CPP-NEXT:  int32_t [[LROWS:v[0-9]+]] = [[ALL]] ? [[N]] : 1;
// CPP-NEXT:  float* [[B0:v[0-9]+]] = [[ARENA]] + 0;
// CPP-NEXT:  float* [[B1:v[0-9]+]] = [[ARENA]] + 32;
// CPP-NEXT:  const void* [[WTOK:v[0-9]+]] = weight_of([[S]], 0);
// CPP-NEXT:  saguaro::kernels::embed_f32<8>([[N]], [[TOK]], [[WTOK]], 1.0f, [[B0]]);
// CPP-NEXT:  const void* [[WNORM:v[0-9]+]] = weight_of([[S]], 1);
// CPP-NEXT:  saguaro::kernels::rmsnorm_f32<8, false>([[N]], [[B0]], [[WNORM]], 9.99999975e-06f, [[B1]]);
// CPP-NEXT:  float* [[K:v[0-9]+]] = [[KV]] + 0;
// CPP-NEXT:  float* [[V:v[0-9]+]] = [[KV]] + 64;
// CPP-NEXT:  saguaro::kernels::attention_f32<2, 2, 4, 8, 0, true>([[N]], [[POS]], [[B1]], [[B1]], [[B1]], [[K]], [[V]], 0.0f, 0.0f, [[B1]], [[B1]]);
// CPP-NEXT:  saguaro::kernels::kv_store_f32<2, 4, 8>([[N]], [[POS]], [[B1]], [[B1]], [[K]], [[V]]);
// CPP-NEXT:  saguaro::kernels::logits_f32<8, 32>([[N]], [[ALL]], [[B1]], [[WTOK]], [[LOGITS]]);
// CPP-NEXT:  saguaro::kernels::softcap_f32<32>([[LROWS]], [[LOGITS]], 30.0f);
// CPP-NEXT:  return;
// CPP-LABEL: void saguaro_model_decode(
// CPP-SAME: const saguaro::ModelState& [[S:v[0-9]+]], int32_t [[TOKEN:v[0-9]+]], int32_t [[POS:v[0-9]+]], float* [[LOGITS:v[0-9]+]]) {
// CPP:       const int32_t* [[TOK:v[0-9]+]] = &[[TOKEN]];
// CPP:       saguaro::kernels::embed_f32<8>(1, [[TOK]], {{v[0-9]+}}, 1.0f, {{v[0-9]+}});
// CPP:       saguaro::kernels::rmsnorm_f32<8, true>(1, {{v[0-9]+}}, {{v[0-9]+}}, 9.99999975e-06f, {{v[0-9]+}});
// CPP:       saguaro::kernels::logits_f32<8, 32>(1, false, {{v[0-9]+}}, {{v[0-9]+}}, [[LOGITS]]);
// CPP-NEXT:  saguaro::kernels::softcap_f32<32>(1, [[LOGITS]], 30.0f);
module attributes {kern.arena_bytes = 256 : i64, kern.kv_bytes = 512 : i64} {
  func.func @prefill() attributes {kern.arena_bytes = 256 : i64, llm.entry = "prefill"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<4x8xf32>
    %1 = kern.alloc {offset = 128 : i64} : memref<4x8xf32>
    kern.call %0 : memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 1.000000e+00 : f32, 0 : index], callee = "embed_f32", template_args = [8]}
    kern.call %0, %1 : memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"norm">, 1.0e-05 : f32, 1 : index], callee = "rmsnorm_f32", template_args = [8, false]}
    kern.call %1 : memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 0 : index, 0 : index, #kern.kv<0>, #kern.kv<64>, 0.0 : f32, 0.0 : f32, 0 : index, 0 : index], callee = "attention_f32", template_args = [2, 2, 4, 8, 0, true]}
    kern.call %1, %1 : memref<4x8xf32>, memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [2, 4, 8]}
    kern.call %1 : memref<4x8xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"tok">, #kern.param<"logits">], callee = "logits_f32", template_args = [8, 32]}
    kern.call {args = [#kern.param<"logit_rows">, #kern.param<"logits">, 3.000000e+01 : f32], callee = "softcap_f32", template_args = [32]}
    return
  }
  func.func @decode() attributes {kern.arena_bytes = 128 : i64, llm.entry = "decode"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<1x8xf32>
    %1 = kern.alloc {offset = 64 : i64} : memref<1x8xf32>
    kern.call %0 : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"tokens">, #kern.weight<"tok">, 1.000000e+00 : f32, 0 : index], callee = "embed_f32", template_args = [8]}
    kern.call %0, %1 : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, 0 : index, #kern.weight<"final_norm">, 1.0e-05 : f32, 1 : index], callee = "rmsnorm_f32", template_args = [8, true]}
    kern.call %1 : memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"all_logits">, 0 : index, #kern.weight<"norm">, #kern.param<"logits">], callee = "logits_f32", template_args = [8, 32]}
    kern.call {args = [#kern.param<"logit_rows">, #kern.param<"logits">, 3.000000e+01 : f32], callee = "softcap_f32", template_args = [32]}
    return
  }
}

// -----

// An f16 KV cache (kern.kv_type = "f16"): kv_of gives binary16 elements (uint16_t), and KV offsets count them.
// CHECK-LABEL: module attributes {kern.arena_bytes = 128 : i64, kern.kv_bytes = 256 : i64, kern.kv_type = "f16", saguaro.weight_slots = []}
// CHECK:       %[[KV16:.*]] = emitc.call_opaque "kv_of"(%{{.*}}) {args = [0 : index]} : (!emitc.opaque<"const saguaro::ModelState&">) -> !emitc.ptr<ui16>
// CHECK:       emitc.add %[[KV16]], %{{.*}} : (!emitc.ptr<ui16>, i64) -> !emitc.ptr<ui16>
// CPP-LABEL: void saguaro_model_decode(
// CPP:       uint16_t* [[KV16:v[0-9]+]] = kv_of(
// CPP:       uint16_t* [[K16:v[0-9]+]] = [[KV16]] + 0;
// CPP-NEXT:  uint16_t* [[V16:v[0-9]+]] = [[KV16]] + 64;
// CPP-NEXT:  saguaro::kernels::kv_store_f32<2, 4, 8>(1, {{v[0-9]+}}, [[B:v[0-9]+]], [[B]], [[K16]], [[V16]]);
module attributes {kern.arena_bytes = 128 : i64, kern.kv_bytes = 256 : i64, kern.kv_type = "f16"} {
  func.func @decode() attributes {kern.arena_bytes = 128 : i64, llm.entry = "decode"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<1x8xf32>
    kern.call %0, %0 : memref<1x8xf32>, memref<1x8xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 1 : index, #kern.kv<0>, #kern.kv<64>], callee = "kv_store_f32", template_args = [2, 4, 8]}
    return
  }
}

// -----

// Functions without llm.entry are left alone; an entry without weights lists no slots.
// CHECK-LABEL: module attributes {saguaro.weight_slots = []}
// CHECK:       emitc.func @saguaro_model_decode(
// CHECK:       emitc.call_opaque "saguaro::kernels::rope_f32"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {args = [0 : index, 1 : index, 2 : index, 3 : index, 4 : index], template_args = [1, 4, 1]}
// CHECK-LABEL: func.func @helper() {
// CHECK-NEXT:  return
// CPP-LABEL: void saguaro_model_decode(
// CPP:       saguaro::kernels::rope_f32<1, 4, 1>({{.*}}, 2.5f, -3);
// CPP-LABEL: void helper() {
module {
  func.func @decode() attributes {llm.entry = "decode"} {
    %0 = kern.alloc {offset = 64 : i64} : memref<1x4xf32>
    kern.call %0 : memref<1x4xf32> {args = [#kern.param<"rows">, #kern.param<"pos0">, 0 : index, 2.5 : f32, -3 : i32], callee = "rope_f32", template_args = [1, 4, 1]}
    return
  }
  func.func @helper() {
    return
  }
}

// -----

// A tap becomes a call of the bundle's `tap` helper with the state, id, runtime rows,
// the buffer's width and its pointer.
// CHECK-LABEL: emitc.func @saguaro_model_prefill(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %{{[^:]+}}: !emitc.ptr<!emitc.opaque<"const int32_t">>, %[[N:[^:]+]]: i32
// CHECK:      %[[B:.*]] = emitc.add
// CHECK-NEXT: emitc.call_opaque "tap"(%[[S]], %[[N]], %[[B]]) {args = [0 : index, 3 : i32, 1 : index, 8 : i32, 2 : index]}
// CPP-LABEL: void saguaro_model_prefill(
// CPP:       tap(v1, 3, v3, 8, v{{[0-9]+}});
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<4x8xf32>
    kern.tap %0 {id = 3 : i64} : memref<4x8xf32>
    return
  }
}

// -----

// The thread pool is fetched from the state once, where a kernel first asks for it, and shared by later calls.
// CHECK-LABEL: emitc.func @saguaro_model_prefill(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %{{[^:]+}}: !emitc.ptr<!emitc.opaque<"const int32_t">>, %[[N:[^:]+]]: i32
// CHECK:      %[[B:.*]] = emitc.add
// CHECK-NEXT: %[[P:.*]] = emitc.call_opaque "parallel_of"(%[[S]]) {args = [0 : index]} : (!emitc.opaque<"const saguaro::ModelState&">) -> !emitc.ptr<!emitc.opaque<"const saguaro::kernels::Parallel">>
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::cq_rotate_f32"(%[[N]], %[[B]], %[[B]], %[[P]])
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::cq_rotate_f32"(%[[N]], %[[B]], %[[B]], %[[P]])
// CHECK-NOT:  parallel_of
// CPP-LABEL: void saguaro_model_prefill(
// CPP:       const saguaro::kernels::Parallel* [[P:v[0-9]+]] = parallel_of(v1);
// CPP:       saguaro::kernels::cq_rotate_f32<8>(v3, v{{[0-9]+}}, v{{[0-9]+}}, [[P]]);
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %0 = kern.alloc {offset = 0 : i64} : memref<4x8xf32>
    kern.call %0 : memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, 0 : index, #kern.param<"parallel">], callee = "cq_rotate_f32", template_args = [8]}
    kern.call %0 : memref<4x8xf32> {args = [#kern.param<"rows">, 0 : index, 0 : index, #kern.param<"parallel">], callee = "cq_rotate_f32", template_args = [8]}
    return
  }
}

// -----

// A vision entry is saguaro_model_encode_image(state, patches, positions, rows, soft_tokens); its soft-token
// rows are rows / pooling², and it has no KV cache.
// CHECK-LABEL: emitc.func @saguaro_model_encode_image(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %[[PX:[^:]+]]: !emitc.ptr<!emitc.opaque<"const float">>, %[[POS:[^:]+]]: !emitc.ptr<!emitc.opaque<"const int32_t">>, %[[N:[^:]+]]: i32, %[[OUT:[^:]+]]: !emitc.ptr<f32>) {
// CHECK-NEXT: %[[ARENA:.*]] = emitc.call_opaque "arena_of"(%[[S]])
// CHECK-NEXT: %[[NINE:.*]] = emitc.literal "9" : i32
// CHECK-NEXT: %[[SOFT:.*]] = emitc.div %[[N]], %[[NINE]] : (i32, i32) -> i32
// CHECK-NOT:  kv_of
// CHECK:      emitc.call_opaque "saguaro::kernels::copy_rows_f32"(%[[N]], %[[PX]], %{{.*}})
// CHECK:      emitc.call_opaque "saguaro::kernels::copy_rows_f32"(%[[SOFT]], %{{.*}}, %[[OUT]])
// CPP-LABEL: void saguaro_model_encode_image(
module {
  func.func @encode_image() attributes {llm.entry = "vision", llm.pooling = 3 : i64} {
    %a = kern.alloc {offset = 0 : i64} : memref<36x8xf32>
    kern.call %a : memref<36x8xf32> {callee = "copy_rows_f32", template_args = [8], args = [#kern.param<"rows">, #kern.param<"patches">, 0 : index]}
    %b = kern.alloc {offset = 1152 : i64} : memref<4x8xf32>
    kern.call %a, %b : memref<36x8xf32>, memref<4x8xf32> {callee = "pool_patches_f32", template_args = [8, 3], args = [#kern.param<"rows">, #kern.param<"positions">, 0 : index, 1.0 : f32, 1 : index]}
    kern.call %b : memref<4x8xf32> {callee = "copy_rows_f32", template_args = [8], args = [#kern.param<"soft_rows">, 0 : index, #kern.param<"soft_tokens">]}
    return
  }
}

// -----

// An audio entry is saguaro_model_encode_audio(state, features, positions, rows, soft_tokens), EncodeFn's signature
// with positions unused; rows_2 and rows_4 are the frames after each stride-2 subsampling, rounded up.
// CHECK-LABEL: emitc.func @saguaro_model_encode_audio(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %[[F:[^:]+]]: !emitc.ptr<!emitc.opaque<"const float">>, %[[POS:[^:]+]]: !emitc.ptr<!emitc.opaque<"const int32_t">>, %[[N:[^:]+]]: i32, %[[OUT:[^:]+]]: !emitc.ptr<f32>) {
// CHECK-NEXT: %[[ARENA:.*]] = emitc.call_opaque "arena_of"(%[[S]])
// CHECK-NEXT: %[[ONE:.*]] = emitc.literal "1" : i32
// CHECK-NEXT: %[[UP2:.*]] = emitc.add %[[N]], %[[ONE]] : (i32, i32) -> i32
// CHECK-NEXT: %[[TWO:.*]] = emitc.literal "2" : i32
// CHECK-NEXT: %[[R2:.*]] = emitc.div %[[UP2]], %[[TWO]] : (i32, i32) -> i32
// CHECK-NEXT: %[[ONE4:.*]] = emitc.literal "1" : i32
// CHECK-NEXT: %[[UP4:.*]] = emitc.add %[[R2]], %[[ONE4]] : (i32, i32) -> i32
// CHECK-NEXT: %[[TWO4:.*]] = emitc.literal "2" : i32
// CHECK-NEXT: %[[R4:.*]] = emitc.div %[[UP4]], %[[TWO4]] : (i32, i32) -> i32
// CHECK-NOT:  kv_of
// CHECK:      emitc.call_opaque "saguaro::kernels::copy_rows_f32"(%[[N]], %[[F]], %{{.*}})
// CHECK:      emitc.call_opaque "saguaro::kernels::silu_rows_f32"(%[[R2]], %{{.*}})
// CHECK:      emitc.call_opaque "saguaro::kernels::copy_rows_f32"(%[[R4]], %{{.*}}, %[[OUT]])
// CPP-LABEL: void saguaro_model_encode_audio(
// CPP:       int32_t [[UP2:v[0-9]+]] = [[N:v[0-9]+]] + 1;
// CPP-NEXT:  int32_t [[R2:v[0-9]+]] = [[UP2]] / 2;
// CPP-NEXT:  int32_t [[UP4:v[0-9]+]] = [[R2]] + 1;
// CPP-NEXT:  int32_t [[R4:v[0-9]+]] = [[UP4]] / 2;
module {
  func.func @encode_audio() attributes {llm.entry = "audio"} {
    %a = kern.alloc {offset = 0 : i64} : memref<12x8xf32>
    kern.call %a : memref<12x8xf32> {callee = "copy_rows_f32", template_args = [8], args = [#kern.param<"rows">, #kern.param<"features">, 0 : index]}
    kern.call %a : memref<12x8xf32> {callee = "silu_rows_f32", template_args = [8], args = [#kern.param<"rows_2">, 0 : index]}
    kern.call %a : memref<12x8xf32> {callee = "copy_rows_f32", template_args = [8], args = [#kern.param<"rows_4">, 0 : index, #kern.param<"soft_tokens">]}
    return
  }
}

// -----

// A streamed clip's step is saguaro_model_encode_audio_step(state, features, rows, start, state_buffer,
// soft_tokens), EncodeStepFn's signature: start_2 and start_4 are the frames of earlier steps after each
// subsampling, and its rings (kern.kv offsets) point into the stream's state instead of a KV cache.
// CHECK-LABEL: emitc.func @saguaro_model_encode_audio_step(
// CHECK-SAME: %[[S:[^:]+]]: !emitc.opaque<"const saguaro::ModelState&">, %[[F:[^:]+]]: !emitc.ptr<!emitc.opaque<"const float">>, %[[N:[^:]+]]: i32, %[[START:[^:]+]]: i32, %[[STATE:[^:]+]]: !emitc.ptr<f32>, %[[OUT:[^:]+]]: !emitc.ptr<f32>) {
// CHECK:      %[[S2:.*]] = emitc.div %[[START]], %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT: %[[FOUR:.*]] = emitc.literal "4" : i32
// CHECK-NEXT: %[[S4:.*]] = emitc.div %[[START]], %[[FOUR]] : (i32, i32) -> i32
// CHECK-NOT:  kv_of
// CHECK:      %[[RING:.*]] = emitc.add %[[STATE]], %{{.*}} : (!emitc.ptr<f32>, i64) -> !emitc.ptr<f32>
// CHECK:      emitc.call_opaque "saguaro::kernels::gated_causal_conv_step_f32"(%{{.*}}, %[[S4]], %[[RING]],
module {
  func.func @encode_audio_step() attributes {llm.entry = "audio_step"} {
    %a = kern.alloc {offset = 0 : i64} : memref<12x16xf32>
    %g = kern.alloc {offset = 768 : i64} : memref<12x8xf32>
    %o = kern.alloc {offset = 1152 : i64} : memref<12x8xf32>
    kern.call %a : memref<12x16xf32> {callee = "copy_rows_f32", template_args = [16], args = [#kern.param<"rows">, #kern.param<"features">, 0 : index]}
    kern.call %a, %g, %o : memref<12x16xf32>, memref<12x8xf32>, memref<12x8xf32> {callee = "gated_causal_conv_step_f32", template_args = [8, 5], args = [#kern.param<"rows_4">, #kern.param<"start_4">, #kern.kv<32>, 0 : index, #kern.weight<"dw">, 1 : index, 2 : index]}
    kern.call %o : memref<12x8xf32> {callee = "copy_rows_f32", template_args = [8], args = [#kern.param<"rows_4">, 0 : index, #kern.param<"soft_tokens">]}
    return
  }
}
