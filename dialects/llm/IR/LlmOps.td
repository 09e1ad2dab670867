//===- LlmOps.td - llm operations ---------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_LLM_OPS
#define SAGUARO_LLM_OPS

include "LlmDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def F32Rows : 2DTensorOf<[F32]>;

def Llm_EmbedOp : Llm_Op<"embed", [Pure]> {
  let summary = "Gathers embedding rows for token ids, optionally scaled";
  let description = [{
    `out[r] = table[tokens[r]] * scale`. Gemma scales by sqrt(hidden_size).

    ```mlir
    %h = llm.embed %tokens {table = #llm.weight<"tok">, scale = 1.0 : f32}
        : tensor<4xi32> -> tensor<4x64xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I32]>:$tokens, Llm_WeightAttr:$table,
                       DefaultValuedAttr<F32Attr, "1.0">:$scale);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$tokens attr-dict `:` type($tokens) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_RmsNormOp : Llm_Op<"rms_norm", [Pure, SameOperandsAndResultType]> {
  let summary = "Root-mean-square normalisation of each row";
  let description = [{
    `out = x / sqrt(mean(x^2) + eps) * w`, or `* (1 + w)` when `add_one` (Gemma).

    ```mlir
    %n = llm.rms_norm %h {weight = #llm.weight<"norm">, eps = 1.0e-05 : f32} : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight, F32Attr:$eps,
                       DefaultValuedAttr<BoolAttr, "false">:$add_one);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_AddRmsNormOp : Llm_Op<"add_rms_norm",
    [Pure, AllTypesMatch<["residual", "delta", "sum", "normed"]>]> {
  let summary = "Residual add fused with the RMSNorm that reads its result";
  let description = [{
    Produces `sum = residual + delta` and `normed = rms_norm(sum)` in one pass over
    the row. Created by `llm-fuse-residual-norm`.

    ```mlir
    %s, %n = llm.add_rms_norm %h, %d {weight = #llm.weight<"n">, eps = 1.0e-05 : f32}
        : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$residual, F32Rows:$delta, Llm_WeightAttr:$weight, F32Attr:$eps,
                       DefaultValuedAttr<BoolAttr, "false">:$add_one);
  let results = (outs F32Rows:$sum, F32Rows:$normed);
  let assemblyFormat = "$residual `,` $delta attr-dict `:` type($sum)";
  }

def Llm_HeadRmsNormOp : Llm_Op<"head_rms_norm", [Pure, SameOperandsAndResultType]> {
  let summary = "RMSNorm of every head vector with one shared weight (q/k norm)";
  let description = [{
    The row is `heads` vectors of `head_dim`; each is normalised on its own.

    ```mlir
    %q2 = llm.head_rms_norm %q {weight = #llm.weight<"q_norm">, eps = 1.0e-06 : f32,
                                heads = 4 : i64, head_dim = 16 : i64} : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight, F32Attr:$eps,
                       I64Attr:$heads, I64Attr:$head_dim,
                       DefaultValuedAttr<BoolAttr, "false">:$add_one);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Llm_LinearOp : Llm_Op<"linear", [Pure]> {
  let summary = "Row-wise product with a [out, in] weight matrix, no bias";
  let description = [{
    `out[r][n] = sum_k x[r][k] * W[n][k]` (PyTorch `nn.Linear` layout).

    ```mlir
    %q = llm.linear %n {weight = #llm.weight<"wq">} : tensor<4x64xf32> -> tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_RopeOp : Llm_Op<"rope", [Pure, SameOperandsAndResultType]> {
  let summary = "Rotary position embedding of every head vector";
  let description = [{
    Row r has position `(pos0 + r) / pos_scale`. `style` 0 rotates interleaved pairs
    (llama2.c), 1 rotates halves (Hugging Face `rotate_half`). The optional `llama3` array is
    Llama 3's frequency-dependent scaling (Hugging Face rope_type "llama3"): `[factor,
    low_freq_factor, high_freq_factor, original_max_position_embeddings]`. The optional
    `rotary_pairs` (0 to head_dim / 2, default all) rotates only the first pairs, with the
    frequencies of the whole head dim, and leaves the others as they are: Gemma 4's
    "proportional" RoPE (partial rotary).

    ```mlir
    %qr = llm.rope %q {heads = 8 : i64, head_dim = 8 : i64, theta = 1.0e+04 : f32,
                       pos_scale = 1.0 : f32, style = 0 : i64} : tensor<4x64xf32>
    %kr = llm.rope %k {heads = 1 : i64, head_dim = 32 : i64, theta = 1.0e+06 : f32,
                       style = 1 : i64, rotary_pairs = 4 : i64} : tensor<4x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, I64Attr:$heads, I64Attr:$head_dim, F32Attr:$theta,
                       DefaultValuedAttr<F32Attr, "1.0">:$pos_scale, I64Attr:$style,
                       OptionalAttr<DenseF32ArrayAttr>:$llama3, OptionalAttr<I64Attr>:$rotary_pairs);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Llm_AttentionOp : Llm_Op<"attention",
    [MemoryEffects<[MemWrite, MemRead]>, SameVariadicOperandSize, AllTypesMatch<["q", "result"]>]> {
  let summary = "Causal grouped-query attention that appends k/v to the layer's KV cache";
  let description = [{
    Stores the rows of `k` and `v` at positions `pos0..pos0+T-1` of cache layer `layer`,
    then attends each query row over the cached positions it may see: all earlier ones,
    or the last `window` when `window > 0`. Scores are scaled by `scale` (or divided by
    sqrt(head_dim) when `scale` is 0, as llama2.c does) and soft-capped when `softcap > 0`.

    Without `k` and `v` the op stores nothing and attends over the cache of the earlier layer
    `kv_layer`, whose attention op has already stored these positions (Gemma 4's KV-shared
    layers); `kv_heads` and `head_dim` are that cache's. Layer `layer` then has no cache.

    ```mlir
    %o = llm.attention %q, %k, %v {layer = 0 : i64, heads = 8 : i64, kv_heads = 4 : i64,
        head_dim = 8 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32}
        : tensor<4x64xf32>, tensor<4x32xf32>
    %s = llm.attention %q2 {layer = 3 : i64, kv_layer = 0 : i64, heads = 8 : i64, kv_heads = 4 : i64,
        head_dim = 8 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32}
        : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$q, Optional<F32Rows>:$k, Optional<F32Rows>:$v, I64Attr:$layer,
                       I64Attr:$heads, I64Attr:$kv_heads, I64Attr:$head_dim, I64Attr:$window,
                       F32Attr:$scale, F32Attr:$softcap, OptionalAttr<I64Attr>:$kv_layer);
  let results = (outs F32Rows:$result);
  let assemblyFormat = [{
    $q (`,` $k^ `,` $v)? attr-dict `:` type($q) `` custom<KvType>(type($k), type($v))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The layer whose KV cache the op reads: `kv_layer` when it computes no K/V, else `layer`.
    int64_t getCacheLayer() { return getKvLayer() ? *getKvLayer() : getLayer(); }
  }];
}

def Llm_GatedMlpOp : Llm_Op<"gated_mlp", [Pure, SameOperandsAndResultType]> {
  let summary = "down(act(gate(x)) * up(x)) with SiLU or GELU-tanh";
  let description = [{
    ```mlir
    %m = llm.gated_mlp %n {gate = #llm.weight<"w1">, up = #llm.weight<"w3">,
                           down = #llm.weight<"w2">, hidden = 172 : i64, act = "silu"}
        : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$gate, Llm_WeightAttr:$up,
                       Llm_WeightAttr:$down, I64Attr:$hidden, StrAttr:$act);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Llm_GluOp : Llm_Op<"glu", [Pure, SameOperandsAndResultType]> {
  let summary = "Gated activation: act(gate) * up, with SiLU or GELU-tanh";
  let description = [{
    The middle of a gated MLP once its projections are separate ops (after quantization).

    ```mlir
    %h = llm.glu %g, %u {act = "silu"} : tensor<1x172xf32>
    ```
  }];
  let arguments = (ins F32Rows:$gate, F32Rows:$up, StrAttr:$act);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Llm_AddOp : Llm_Op<"add", [Pure, Commutative, SameOperandsAndResultType]> {
  let summary = "Element-wise sum (the residual connection)";
  let description = [{
    ```mlir
    %s = llm.add %a, %b : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$lhs, F32Rows:$rhs);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Llm_ScaleOp : Llm_Op<"scale", [Pure, SameOperandsAndResultType]> {
  let summary = "Multiplies every element by a constant and, optionally, by a one-element weight";
  let description = [{
    `out = x * factor`, or `out = x * (factor * w[0])` with `weight`, a tensor of one
    element. Gemma 4 scales its per-layer-embedding projection by hidden_size^-1/2 and their
    sum by 2^-1/2, and each layer's output, residual included, by the layer's `layer_scalar`.

    ```mlir
    %p = llm.scale %x {factor = 0.7071068 : f32} : tensor<4x64xf32>
    %h = llm.scale %y {factor = 1.0 : f32, weight = #llm.weight<"layers.0.layer_scalar">}
        : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, F32Attr:$factor, OptionalAttr<Llm_WeightAttr>:$weight);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_ColumnSliceOp : Llm_Op<"column_slice", [Pure]> {
  let summary = "The columns [offset, offset + width) of every row";
  let description = [{
    `out[r][j] = x[r][offset + j]` for j below the result's width. Each Gemma 4 decoder layer
    reads its own slice of the per-layer embeddings computed once for all layers.

    ```mlir
    %s = llm.column_slice %ple {offset = 16 : i64} : tensor<4x64xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, I64Attr:$offset);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_HiddenTapOp : Llm_Op<"hidden_tap"> {
  let summary = "Exposes the residual stream after `layer` decoder layers to the runtime";
  let description = [{
    The confidence probe reads the hidden state of one layer for every generated token
    (docs/probe.md). `layer` counts decoder layers from the embedding: the tap sees Hugging
    Face's `hidden_states[layer]`. It only reads its operand; lowered to a `kern.tap` whose
    id the module attribute `kern.taps` records as `{kind = "hidden", layer, cols}`.

    ```mlir
    llm.hidden_tap %h {layer = 3 : i64} : tensor<1x128xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, I64Attr:$layer);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Llm_ProbeHeadOp : Llm_Op<"probe_head", [Pure]> {
  let summary = "The confidence probe: p(the answer is wrong) from the hidden rows of its tokens";
  let description = [{
    The body of a `llm.entry = "probe"` function, whose argument holds the hidden-tap rows of
    the generated tokens (the runtime row count is the number of tokens). Per token: LayerNorm
    (eps 1e-5, `gamma`/`beta`) → Linear(d→h) + ReLU (`w0`, `b0`) → score q·z/√h (`query`);
    softmax over the tokens, the weighted sum of z, then Linear(h→m1)+ReLU, Linear(m1→m2)+ReLU,
    Linear(m2→1) and a sigmoid (docs/probe.md). `prefix` names the blob tensors:
    `{prefix}gamma`, `beta`, `w0`, `b0`, `query`, `w1`, `b1`, `w2`, `b2`, `w3`, `b3`.

    ```mlir
    %p = llm.probe_head %h {prefix = "probe.", h = 32 : i64, m1 = 128 : i64, m2 = 64 : i64}
        : tensor<256x128xf32> -> tensor<1x1xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, StrAttr:$prefix, I64Attr:$h, I64Attr:$m1, I64Attr:$m2);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_LogitsOp : Llm_Op<"logits", [Pure]> {
  let summary = "The output head: vocabulary logits, optionally soft-capped";
  let description = [{
    A linear layer onto the vocabulary followed by `softcap * tanh(x / softcap)` when
    `softcap > 0`. At run time a prefill computes only its last row unless all rows
    are requested.

    ```mlir
    %l = llm.logits %n {weight = #llm.weight<"tok">, softcap = 0.0 : f32}
        : tensor<4x64xf32> -> tensor<4x512xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight,
                       DefaultValuedAttr<F32Attr, "0.0">:$softcap);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

include "LlmEncoderOps.td"
include "LlmAudioOps.td"

#endif // SAGUARO_LLM_OPS
