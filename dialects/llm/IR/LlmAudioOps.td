//===- LlmAudioOps.td - llm operations of an audio conformer -----------*- tablegen -*-===//
//
// The ops Gemma 4's audio tower adds (docs/gemma4-audio.md): rows are time frames, the
// subsampling convolutions halve them, attention is local with relative position keys and the
// light convolution is causal, so a frame never reads a later one past the subsampling.
// Included by LlmOps.td.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_LLM_AUDIO_OPS
#define SAGUARO_LLM_AUDIO_OPS

def Llm_SubsampleConvOp : Llm_Op<"subsample_conv", [Pure]> {
  let summary = "3×3 stride-2 convolution over (time, frequency), channel LayerNorm, ReLU";
  let description = [{
    The input's rows are frames, its columns `in_freq × in_channels` (frequency-major). A
    `Conv2d(3×3, stride 2, padding 1, no bias)` with `weight [out_channels, in_channels, 3, 3]`
    (dims 2, 3 = time, frequency) halves both axes (rounding up; the missing frames past the
    last row are zeros), then a LayerNorm over the output channels at each (frame, frequency)
    (mean removed, biased variance, `norm` weight, no bias, `eps`) and a ReLU. Gemma 4's audio
    subsampling is two of these; the result's columns are `ceil(in_freq / 2) × out_channels`.

    ```mlir
    %c = llm.subsample_conv %x {weight = #llm.weight<"conv">, norm = #llm.weight<"norm">,
                                in_channels = 1 : i64, eps = 1.0e-06 : f32}
        : tensor<12x128xf32> -> tensor<6x512xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight, Llm_WeightAttr:$norm, I64Attr:$in_channels,
                       F32Attr:$eps);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getInFreq() { return ::llvm::cast<::mlir::RankedTensorType>(getInput().getType()).getDimSize(1) / getInChannels(); }
    int64_t getOutChannels() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType()).getDimSize(1) / ((getInFreq() + 1) / 2);
    }
  }];
}

def Llm_LocalAttentionOp : Llm_Op<"local_attention", [Pure, AllTypesMatch<["q", "k", "v", "result"]>]> {
  let summary = "Self-attention over the last frames with relative position keys and a logit soft-cap";
  let description = [{
    Gemma 4's audio attention over the call's frames, per head of `head_dim`: query `q·D^-½/ln 2
    · softplus(per_dim_scale)`, key `k · ln(1 + e)/ln 2`; the logit of query `i` and key `j`
    (distance `d = i − j`) is `q̂·k̂ + q̂·rel[C/2 − past + d]` (no second term where that index is
    negative), capped as `cap · tanh(logit / cap)`, over the keys with `0 ≤ d < past` or
    `0 < −d < future`. `rel` is `relative_table`, a `[C/2 + 1, h]` weight: row `p` is the model's
    `relative_k_proj` (a plain linear) applied to the sinusoid `[sin(p·τ_i), cos(p·τ_i)]`,
    `τ_i = 10⁴^(−i / max(h/2 − 1, 1))`, `C = chunk + past + future` (transformers' table; `chunk`
    matters only through `C/2`). It depends on the weights only, so the importer computes it.
    Keys outside the window take the invalid-logit value in transformers, which is exactly
    zero weight after the softmax (every query sees itself), so they are left out.

    ```mlir
    %a = llm.local_attention %q, %k, %v {heads = 2 : i64, head_dim = 16 : i64,
          per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">,
          chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 3.0 : f32}
        : tensor<9x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$q, F32Rows:$k, F32Rows:$v, I64Attr:$heads, I64Attr:$head_dim,
                       Llm_WeightAttr:$per_dim_scale, Llm_WeightAttr:$relative_table, I64Attr:$chunk,
                       I64Attr:$past, I64Attr:$future, F32Attr:$cap);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$q `,` $k `,` $v attr-dict `:` type($q)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The relative position table's last position (RelativeTable.h, the rule the importer sizes it by).
    int64_t getTableEnd() { return relativeTableEnd(getChunk(), getPast(), getFuture()); }
  }];
}

def Llm_GatedCausalConvOp : Llm_Op<"gated_causal_conv", [Pure]> {
  let summary = "GLU, then a depthwise causal convolution over time";
  let description = [{
    `g[t][c] = x[t][c] · sigmoid(x[t][h + c])` for an input of `2h` columns, then
    `out[t][c] = Σ_j weight[c][0][j] · g[t − K + 1 + j][c]` with `weight [h, 1, K]` and zeros
    before the first frame (Gemma 4's light convolution, kernel 5).

    ```mlir
    %c = llm.gated_causal_conv %x {weight = #llm.weight<"dw">, kernel = 5 : i64}
        : tensor<9x64xf32> -> tensor<9x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$weight, I64Attr:$kernel);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_SiluOp : Llm_Op<"silu", [Pure, SameOperandsAndResultType]> {
  let summary = "SiLU of every element";
  let description = [{
    The activation of Gemma 4's audio feed-forward and light convolution, which have no gate.

    ```mlir
    %s = llm.silu %x : tensor<9x128xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_AddBiasOp : Llm_Op<"add_bias", [Pure, SameOperandsAndResultType]> {
  let summary = "Adds a stored vector to every row";
  let description = [{
    `x[r][c] + bias[c]`: the bias of a linear (Gemma 4's audio `output_proj`).

    ```mlir
    %y = llm.add_bias %x {bias = #llm.weight<"output_proj.bias">} : tensor<9x24xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$bias);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

#endif // SAGUARO_LLM_AUDIO_OPS
