// RUN: saguaro-opt %s --llm-fuse-residual-norm --llm-lower-to-kern --kern-plan-memory --kern-lower-to-emitc --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: saguaro-opt %s --llm-fuse-residual-norm --cq-quantize=bits=4 --llm-lower-to-kern=cq-activations=i8 --kern-plan-memory --kern-lower-to-emitc --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=CQ

// The names the graph builder gives (dialects/common/ValueNames.h) reach the generated code through every pass of
// the compile pipeline: a fused add + norm takes the norm's name and block; the buffers an op needs besides its
// result are named after it (attention scores, the gate and up products of an MLP, the rotated and int8 copies of
// an activation a codebook product reads); the K and V caches after the kv_store call of their layer, which follows
// the attention that reads them.

// CHECK-LABEL: emitc.func @saguaro_model_decode(
// CHECK:      emitc.verbatim "// embedding"
// CHECK:      emitc.add {{.*}} loc("x_residual")
// CHECK:      loc("w_embed_tokens")
// CHECK:      emitc.verbatim "// layer 0: attention"
// CHECK:      emitc.add {{.*}} loc("x_l0_attn_norm")
// CHECK:      loc("w_layers_0_input_layernorm")
// CHECK:      emitc.add {{.*}} loc("x_l0_q")
// CHECK:      loc("w_layers_0_self_attn_q_proj")
// CHECK:      emitc.add {{.*}} loc("x_l0_k")
// CHECK:      emitc.add {{.*}} loc("x_l0_v")
// CHECK:      emitc.add {{.*}} loc("x_l0_attn_scores")
// CHECK:      emitc.add {{.*}} loc("x_l0_attn")
// CHECK:      emitc.add {{.*}} loc("kv_l0_k")
// CHECK:      emitc.add {{.*}} loc("kv_l0_v")
// CHECK:      emitc.call_opaque "saguaro::kernels::attention_f32"
// CHECK-NEXT: emitc.call_opaque "saguaro::kernels::kv_store_f32"
// CHECK:      emitc.add {{.*}} loc("x_l0_attn_out")
// CHECK:      emitc.verbatim "// layer 0: mlp"
// CHECK:      emitc.add {{.*}} loc("x_l0_mlp_norm")
// CHECK:      emitc.call_opaque "saguaro::kernels::add_rmsnorm_f32"
// CHECK:      emitc.add {{.*}} loc("x_l0_mlp_gate")
// CHECK:      emitc.add {{.*}} loc("x_l0_mlp_up")
// CHECK:      emitc.add {{.*}} loc("x_l0_mlp")
// CHECK:      emitc.verbatim "// output"
// CHECK:      emitc.add {{.*}} loc("x_final_norm")
// CHECK:      emitc.call_opaque "saguaro::kernels::add_rmsnorm_f32"
// CHECK:      loc("w_lm_head")
// CHECK:      emitc.call_opaque "saguaro::kernels::logits_f32"

// CQ-LABEL: emitc.func @saguaro_model_decode(
// CQ:       loc("w_embed_tokens_codes")
// CQ:       loc("w_embed_tokens_norms")
// CQ:       loc("w_cq_codebook_b4_g8")
// CQ:       emitc.call_opaque "saguaro::kernels::cq_embed_f32"
// CQ:       emitc.verbatim "// layer 0: attention"
// CQ:       emitc.add {{.*}} loc("x_l0_attn_norm_rot")
// CQ:       emitc.call_opaque "saguaro::kernels::cq_rotate_f32"
// CQ:       emitc.add {{.*}} loc("x_l0_attn_norm_i8")
// CQ:       emitc.call_opaque "saguaro::kernels::cq_quantize_act_i8"
// CQ:       emitc.add {{.*}} loc("x_l0_q")
// CQ:       loc("w_layers_0_self_attn_q_proj_codes")
// CQ:       loc("w_layers_0_self_attn_q_proj_norms")
// CQ:       emitc.verbatim "// layer 0: mlp"
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_norm")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_norm_rot")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_gate")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_up")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_act")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp_act_rot")
// CQ:       emitc.add {{.*}} loc("x_l0_mlp")
// CQ:       emitc.verbatim "// output"
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x32xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"model.embed_tokens.weight">} : tensor<1xi32> -> tensor<1x8xf32> loc("x_residual"("embedding"))
    %n = llm.rms_norm %h {weight = #llm.weight<"model.layers.0.input_layernorm.weight">, eps = 1.0e-05 : f32} : tensor<1x8xf32> loc("x_l0_attn_norm"("layer 0: attention"))
    %q = llm.linear %n {weight = #llm.weight<"model.layers.0.self_attn.q_proj.weight">} : tensor<1x8xf32> -> tensor<1x8xf32> loc("x_l0_q"("layer 0: attention"))
    %k = llm.linear %n {weight = #llm.weight<"model.layers.0.self_attn.k_proj.weight">} : tensor<1x8xf32> -> tensor<1x4xf32> loc("x_l0_k"("layer 0: attention"))
    %v = llm.linear %n {weight = #llm.weight<"model.layers.0.self_attn.v_proj.weight">} : tensor<1x8xf32> -> tensor<1x4xf32> loc("x_l0_v"("layer 0: attention"))
    %qr = llm.rope %q {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<1x8xf32> loc("x_l0_q_rope"("layer 0: attention"))
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<1x4xf32> loc("x_l0_k_rope"("layer 0: attention"))
    %a = llm.attention %qr, %kr, %v {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32> loc("x_l0_attn"("layer 0: attention"))
    %o = llm.linear %a {weight = #llm.weight<"model.layers.0.self_attn.o_proj.weight">} : tensor<1x8xf32> -> tensor<1x8xf32> loc("x_l0_attn_out"("layer 0: attention"))
    %h1 = llm.add %h, %o : tensor<1x8xf32> loc("x_residual"("layer 0: attention"))
    %n1 = llm.rms_norm %h1 {weight = #llm.weight<"model.layers.0.post_attention_layernorm.weight">, eps = 1.0e-05 : f32} : tensor<1x8xf32> loc("x_l0_mlp_norm"("layer 0: mlp"))
    %m = llm.gated_mlp %n1 {gate = #llm.weight<"model.layers.0.mlp.gate_proj.weight">, up = #llm.weight<"model.layers.0.mlp.up_proj.weight">, down = #llm.weight<"model.layers.0.mlp.down_proj.weight">, hidden = 16 : i64, act = "silu"} : tensor<1x8xf32> loc("x_l0_mlp"("layer 0: mlp"))
    %h2 = llm.add %h1, %m : tensor<1x8xf32> loc("x_residual"("layer 0: mlp"))
    %f = llm.rms_norm %h2 {weight = #llm.weight<"model.norm.weight">, eps = 1.0e-05 : f32} : tensor<1x8xf32> loc("x_final_norm"("output"))
    %l = llm.logits %f {weight = #llm.weight<"lm_head.weight">} : tensor<1x8xf32> -> tensor<1x32xf32> loc("logits"("output"))
    return %l : tensor<1x32xf32> loc("logits"("output"))
  }
}
