// RUN: saguaro-opt %s --saguaro-compile-pipeline | FileCheck %s
// RUN: saguaro-opt %s --saguaro-compile-pipeline | mlir-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPP
// RUN: saguaro-opt %s --saguaro-compile-pipeline="bits=4 cq-activations=i8 kv-cache=f16 target=x86-avx2" | FileCheck %s --check-prefix=CQ4
// RUN: saguaro-opt %s --saguaro-compile-pipeline="bits=4 cq-activations=i8 kv-cache=f16 target=x86-avx2" | mlir-translate --mlir-to-cpp | FileCheck %s --check-prefix=CQ4CPP

// The pipeline `saguaro compile` runs, from the outside: a one-layer llm decoder (its prefill and
// decode entries) goes through residual-norm fusion, quantization, lowering to kern, packing for
// the target, product fusion and memory planning to the two EmitC functions of the model ABI.

// Float32 weights, generic target: planned arena and KV cache, float kernels with literal shapes.
// CHECK-LABEL: module attributes {
// CHECK-SAME:  kern.arena_bytes = {{[0-9]+}} : i64
// CHECK-SAME:  kern.kv_bytes = 8192 : i64
// CHECK-SAME:  kern.target = "generic"
// CHECK-SAME:  saguaro.weight_slots = ["tok", "l0.attn_norm", "l0.wq", "l0.wk", "l0.wv", "l0.wo", "l0.ffn_norm", "l0.w1", "l0.w3", "l0.w2", "final_norm"]
// CHECK-LABEL: emitc.func @saguaro_model_prefill(
// CHECK:       emitc.call_opaque "saguaro::kernels::add_rmsnorm_f32"
// CHECK-LABEL: emitc.func @saguaro_model_decode(
// CHECK-NOT:   kern.
// CPP: void saguaro_model_prefill(
// CPP: saguaro::kernels::embed_f32<64>(
// CPP: saguaro::kernels::attention_f32<2, 1, 32, 32, 0, true>(
// CPP: saguaro::kernels::logits_f32<64, 64>(
// CPP: void saguaro_model_decode(

// CQ4 weights on int8 activations for x86-avx2: the products' codes packed in panels of eight rows,
// q/k/v and gate/up fused into one call each, the layout named in the IR and spelled as the
// kernels' constant in C++.
// CQ4-LABEL: module attributes {
// CQ4-SAME:  kern.kv_bytes = 4096 : i64
// CQ4-SAME:  kern.packed = [{bits = 4 : i64, k = 64 : i64, layout = "cq-planar-panel8", rows = 64 : i64, weight = "tok"}
// CQ4-SAME:  kern.target = "x86-avx2"
// CQ4:       emitc.call_opaque "saguaro::kernels::cq_matmul3_i8"{{.*}}template_args = [64, 64, 32, 32, 4, #emitc.opaque<"saguaro::kernels::cq::kLayoutPlanarPanel8">]
// CQ4CPP: saguaro::kernels::cq_matmul2_i8<64, 128, 128, 4, saguaro::kernels::cq::kLayoutPlanarPanel8>(
module attributes {llm.max_seq = 32 : i64} {
  func.func @prefill(%tokens: tensor<4xi32>) -> tensor<4x64xf32> attributes {llm.entry = "prefill"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<4xi32> -> tensor<4x64xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"l0.attn_norm">, eps = 1.0e-05 : f32} : tensor<4x64xf32>
    %q = llm.linear %n {weight = #llm.weight<"l0.wq">} : tensor<4x64xf32> -> tensor<4x64xf32>
    %k = llm.linear %n {weight = #llm.weight<"l0.wk">} : tensor<4x64xf32> -> tensor<4x32xf32>
    %v = llm.linear %n {weight = #llm.weight<"l0.wv">} : tensor<4x64xf32> -> tensor<4x32xf32>
    %qr = llm.rope %q {heads = 2 : i64, head_dim = 32 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<4x64xf32>
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 32 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<4x32xf32>
    %a = llm.attention %qr, %kr, %v {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 32 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<4x64xf32>, tensor<4x32xf32>
    %o = llm.linear %a {weight = #llm.weight<"l0.wo">} : tensor<4x64xf32> -> tensor<4x64xf32>
    %h1 = llm.add %h, %o : tensor<4x64xf32>
    %n2 = llm.rms_norm %h1 {weight = #llm.weight<"l0.ffn_norm">, eps = 1.0e-05 : f32} : tensor<4x64xf32>
    %m = llm.gated_mlp %n2 {gate = #llm.weight<"l0.w1">, up = #llm.weight<"l0.w3">, down = #llm.weight<"l0.w2">, hidden = 128 : i64, act = "silu"} : tensor<4x64xf32>
    %h2 = llm.add %h1, %m : tensor<4x64xf32>
    %f = llm.rms_norm %h2 {weight = #llm.weight<"final_norm">, eps = 1.0e-05 : f32} : tensor<4x64xf32>
    %l = llm.logits %f {weight = #llm.weight<"tok">} : tensor<4x64xf32> -> tensor<4x64xf32>
    return %l : tensor<4x64xf32>
  }
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x64xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"tok">} : tensor<1xi32> -> tensor<1x64xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"l0.attn_norm">, eps = 1.0e-05 : f32} : tensor<1x64xf32>
    %q = llm.linear %n {weight = #llm.weight<"l0.wq">} : tensor<1x64xf32> -> tensor<1x64xf32>
    %k = llm.linear %n {weight = #llm.weight<"l0.wk">} : tensor<1x64xf32> -> tensor<1x32xf32>
    %v = llm.linear %n {weight = #llm.weight<"l0.wv">} : tensor<1x64xf32> -> tensor<1x32xf32>
    %qr = llm.rope %q {heads = 2 : i64, head_dim = 32 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<1x64xf32>
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 32 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<1x32xf32>
    %a = llm.attention %qr, %kr, %v {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 32 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x64xf32>, tensor<1x32xf32>
    %o = llm.linear %a {weight = #llm.weight<"l0.wo">} : tensor<1x64xf32> -> tensor<1x64xf32>
    %h1 = llm.add %h, %o : tensor<1x64xf32>
    %n2 = llm.rms_norm %h1 {weight = #llm.weight<"l0.ffn_norm">, eps = 1.0e-05 : f32} : tensor<1x64xf32>
    %m = llm.gated_mlp %n2 {gate = #llm.weight<"l0.w1">, up = #llm.weight<"l0.w3">, down = #llm.weight<"l0.w2">, hidden = 128 : i64, act = "silu"} : tensor<1x64xf32>
    %h2 = llm.add %h1, %m : tensor<1x64xf32>
    %f = llm.rms_norm %h2 {weight = #llm.weight<"final_norm">, eps = 1.0e-05 : f32} : tensor<1x64xf32>
    %l = llm.logits %f {weight = #llm.weight<"tok">} : tensor<1x64xf32> -> tensor<1x64xf32>
    return %l : tensor<1x64xf32>
  }
}
