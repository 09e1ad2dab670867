//===- LlmEncoderOps.td - llm operations of encoder towers -------------*- tablegen -*-===//
//
// The ops a vision (or audio) tower adds to the decoder's: its inputs carry a patch grid
// position per row (`tensor<Rx2xi32>`: column, row), attention sees every row, and pooling
// turns patch rows into soft-token rows. Included by LlmOps.td.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_LLM_ENCODER_OPS
#define SAGUARO_LLM_ENCODER_OPS

def PatchPositions : 2DTensorOf<[I32]>;

def Llm_ShiftScaleOp : Llm_Op<"shift_scale", [Pure, SameOperandsAndResultType]> {
  let summary = "`(x - shift) * scale` for every element";
  let description = [{
    Gemma 4's patch embedder maps pixels from [0, 1] to [-1, 1]: `2 * (x - 0.5)`.

    ```mlir
    %p = llm.shift_scale %x {shift = 5.0e-01 : f32, scale = 2.0 : f32} : tensor<36x48xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, F32Attr:$shift, F32Attr:$scale);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_ClampOp : Llm_Op<"clamp", [Pure, SameOperandsAndResultType]> {
  let summary = "Clamps every element to stored scalar bounds";
  let description = [{
    `min(max(x, lo[0]), hi[0])` with `lo` and `hi` one-element weights: the input or output
    bounds of a Gemma 4 clipped linear.

    ```mlir
    %c = llm.clamp %x {lo = #llm.weight<"q.input_min">, hi = #llm.weight<"q.input_max">}
        : tensor<36x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$lo, Llm_WeightAttr:$hi);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_StandardizeOp : Llm_Op<"standardize", [Pure, SameOperandsAndResultType]> {
  let summary = "`(x - bias) * scale` per column, with stored vectors";
  let description = [{
    The optional last step of Gemma 4's vision tower (`standardize`).

    ```mlir
    %s = llm.standardize %x {bias = #llm.weight<"std_bias">, scale = #llm.weight<"std_scale">}
        : tensor<4x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, Llm_WeightAttr:$bias, Llm_WeightAttr:$scale);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Llm_PositionEmbed2dOp : Llm_Op<"position_embed_2d", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Adds a learned 2-D position embedding to every patch row";
  let description = [{
    `x[r] + (table[0][col] + table[1][row])` for the patch at `positions[r] = (col, row)`;
    `table` is `[2, table_rows, features]` and every coordinate must lie below `table_rows`.

    ```mlir
    %h = llm.position_embed_2d %x, %pos {table = #llm.weight<"pos">, table_rows = 64 : i64}
        : tensor<36x32xf32>, tensor<36x2xi32>
    ```
  }];
  let arguments = (ins F32Rows:$input, PatchPositions:$positions, Llm_WeightAttr:$table, I64Attr:$table_rows);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input `,` $positions attr-dict `:` type($input) `,` type($positions)";
  let hasVerifier = 1;
}

def Llm_Rope2dOp : Llm_Op<"rope_2d", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "2-D rotary position embedding of every head vector";
  let description = [{
    Each head vector's first half rotates by the patch's column, its second half by its row;
    inside each half, Hugging Face's `rotate_half` pairs `(i, i + head_dim/4)` with frequency
    `theta^(-4i/head_dim)` (Gemma 4's vision tower). `head_dim` must be a multiple of 4.

    ```mlir
    %q = llm.rope_2d %x, %pos {heads = 2 : i64, head_dim = 16 : i64, theta = 1.0e+02 : f32}
        : tensor<36x32xf32>, tensor<36x2xi32>
    ```
  }];
  let arguments = (ins F32Rows:$input, PatchPositions:$positions, I64Attr:$heads, I64Attr:$head_dim,
                       F32Attr:$theta);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input `,` $positions attr-dict `:` type($input) `,` type($positions)";
  let hasVerifier = 1;
}

def Llm_BidirectionalAttentionOp : Llm_Op<"bidirectional_attention",
    [Pure, AllTypesMatch<["q", "result"]>, AllTypesMatch<["k", "v"]>]> {
  let summary = "Grouped-query attention of every row over every row, without a cache";
  let description = [{
    `softmax(q · kᵀ · scale) · v` per head over all rows of the call (an encoder's patches);
    query head h reads KV head `h / (heads / kv_heads)`.

    ```mlir
    %a = llm.bidirectional_attention %q, %k, %v {heads = 2 : i64, kv_heads = 2 : i64,
                                                 head_dim = 16 : i64, scale = 1.0 : f32}
        : tensor<36x32xf32>, tensor<36x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$q, F32Rows:$k, F32Rows:$v, I64Attr:$heads, I64Attr:$kv_heads,
                       I64Attr:$head_dim, F32Attr:$scale);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$q `,` $k `,` $v attr-dict `:` type($q) `,` type($k)";
  let hasVerifier = 1;
}

def Llm_PoolPatchesOp : Llm_Op<"pool_patches", [Pure]> {
  let summary = "Averages each kernel × kernel block of the patch grid into one row, then scales";
  let description = [{
    The patch at `(col, row)` adds `x[r] / kernel²` to output row
    `col / kernel + (grid_columns / kernel) * (row / kernel)`, where `grid_columns` is the
    largest column plus one; every output row is then multiplied by `scale` (Gemma 4's vision
    pooler: kernel 3, scale sqrt(hidden)). The input has `kernel²` times the result's rows.

    ```mlir
    %p = llm.pool_patches %x, %pos {kernel = 3 : i64, scale = 5.656854 : f32}
        : tensor<36x32xf32>, tensor<36x2xi32> -> tensor<4x32xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input, PatchPositions:$positions, I64Attr:$kernel, F32Attr:$scale);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input `,` $positions attr-dict `:` type($input) `,` type($positions) `->` type($result)";
  let hasVerifier = 1;
}

def Llm_InjectEmbeddingsOp : Llm_Op<"inject_embeddings", [Pure, SameOperandsAndResultType]> {
  let summary = "Rows the caller supplies (an encoder's soft tokens) replace embedding rows";
  let description = [{
    In a prefill entry of a model with an encoder tower: the run time's `soft_embeds` rows
    replace the token embeddings where its `soft_mask` is set; without them, the identity.

    ```mlir
    %h2 = llm.inject_embeddings %h : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins F32Rows:$input);
  let results = (outs F32Rows:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

#endif // SAGUARO_LLM_ENCODER_OPS
