// RUN: saguaro-opt %s --split-input-file --verify-diagnostics

// One embedding row per token.
func.func @embed_rows(%t: tensor<2xi32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.embed' op has 2 tokens but 1 result rows}}
  %h = llm.embed %t {table = #llm.weight<"e">} : tensor<2xi32> -> tensor<1x8xf32>
  return %h : tensor<1x8xf32>
}

// -----

// The q/k norm splits each row into heads * head_dim features.
func.func @head_rms_norm_width(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.head_rms_norm' op heads * head_dim = 12 but rows have 8 features}}
  %n = llm.head_rms_norm %x {weight = #llm.weight<"qn">, eps = 1.0e-06 : f32, heads = 3 : i64, head_dim = 4 : i64} : tensor<1x8xf32>
  return %n : tensor<1x8xf32>
}

// -----

// A linear keeps the row count.
func.func @linear_rows(%x: tensor<2x8xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.linear' op row counts differ: 2 vs 1}}
  %y = llm.linear %x {weight = #llm.weight<"w">} : tensor<2x8xf32> -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// RoPE rotates pairs, so head_dim must be even.
func.func @rope_odd_head_dim(%x: tensor<1x6xf32>) -> tensor<1x6xf32> {
  // expected-error @+1 {{'llm.rope' op head_dim must be even, got 3}}
  %r = llm.rope %x {heads = 2 : i64, head_dim = 3 : i64, theta = 1.0e+04 : f32, style = 0 : i64} : tensor<1x6xf32>
  return %r : tensor<1x6xf32>
}

// -----

// Only the interleaved (0) and halves (1) styles exist.
func.func @rope_bad_style(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.rope' op style must be 0 (interleaved) or 1 (halves), got 2}}
  %r = llm.rope %x {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 2 : i64} : tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// The features must split into whole heads.
func.func @rope_partial_head(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.rope' op features 8 are not a multiple of head_dim 6}}
  %r = llm.rope %x {heads = 1 : i64, head_dim = 6 : i64, theta = 1.0e+04 : f32, style = 1 : i64} : tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// Llama 3 frequency scaling has exactly four parameters.
func.func @rope_llama3_arity(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.rope' op llama3 must be [factor, low_freq_factor, high_freq_factor, original_max_position_embeddings], got 2 values}}
  %r = llm.rope %x {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 1 : i64, llama3 = array<f32: 8.0, 1.0>} : tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// Its smoothing band divides by high_freq_factor - low_freq_factor.
func.func @rope_llama3_band(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.rope' op llama3 needs factor > 0, 0 < low_freq_factor < high_freq_factor and a positive original_max_position_embeddings}}
  %r = llm.rope %x {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 1 : i64, llama3 = array<f32: 8.0, 4.0, 4.0, 8192.0>} : tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// Grouped-query attention shares each kv head among a whole number of query heads.
func.func @attention_groups(%q: tensor<1x12xf32>, %k: tensor<1x8xf32>) -> tensor<1x12xf32> {
  // expected-error @+1 {{'llm.attention' op heads (3) must be a multiple of kv_heads (2)}}
  %o = llm.attention %q, %k, %k {layer = 0 : i64, heads = 3 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x12xf32>, tensor<1x8xf32>
  return %o : tensor<1x12xf32>
}

// -----

// kv_heads = 0 is rejected rather than divided by.
func.func @attention_no_kv_heads(%q: tensor<1x8xf32>, %k: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op heads, kv_heads and head_dim must be positive}}
  %o = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 0 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x8xf32>
  return %o : tensor<1x8xf32>
}

// -----

// q carries heads * head_dim features.
func.func @attention_q_width(%q: tensor<1x8xf32>, %k: tensor<1x4xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op q has 8 features, expected heads * head_dim = 16}}
  %o = llm.attention %q, %k, %k {layer = 0 : i64, heads = 4 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
  return %o : tensor<1x8xf32>
}

// -----

// k and v carry kv_heads * head_dim features.
func.func @attention_kv_width(%q: tensor<1x8xf32>, %k: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op k and v must both have kv_heads * head_dim = 4 features}}
  %o = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x8xf32>
  return %o : tensor<1x8xf32>
}

// -----

// q and k/v rows are the same tokens.
func.func @attention_rows(%q: tensor<2x8xf32>, %k: tensor<1x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'llm.attention' op row counts differ: 2 vs 1}}
  %o = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<2x8xf32>, tensor<1x4xf32>
  return %o : tensor<2x8xf32>
}

// -----

// The MLP activation is SiLU or GELU-tanh.
func.func @gated_mlp_act(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.gated_mlp' op act must be "silu" or "gelu_tanh", got "relu"}}
  %m = llm.gated_mlp %x {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 16 : i64, act = "relu"} : tensor<1x8xf32>
  return %m : tensor<1x8xf32>
}

// -----

// The hidden width is positive.
func.func @gated_mlp_hidden(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.gated_mlp' op hidden must be positive}}
  %m = llm.gated_mlp %x {gate = #llm.weight<"w1">, up = #llm.weight<"w3">, down = #llm.weight<"w2">, hidden = 0 : i64, act = "silu"} : tensor<1x8xf32>
  return %m : tensor<1x8xf32>
}

// -----

// Logits keep the row count.
func.func @logits_rows(%x: tensor<4x8xf32>) -> tensor<1x32xf32> {
  // expected-error @+1 {{'llm.logits' op row counts differ: 4 vs 1}}
  %l = llm.logits %x {weight = #llm.weight<"out">} : tensor<4x8xf32> -> tensor<1x32xf32>
  return %l : tensor<1x32xf32>
}

// -----

// A hidden tap reads the output of at least one decoder layer.
func.func @hidden_tap_layer_zero(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'llm.hidden_tap' op layer must be at least 1 (the output of the first decoder layer), got 0}}
  llm.hidden_tap %x {layer = 0 : i64} : tensor<1x8xf32>
  return
}

// -----

// The probe head returns one probability.
func.func @probe_head_shape(%x: tensor<4x8xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'llm.probe_head' op returns one probability as tensor<1x1xf32>, got 'tensor<1x2xf32>'}}
  %p = llm.probe_head %x {prefix = "probe.", h = 4 : i64, m1 = 8 : i64, m2 = 6 : i64} : tensor<4x8xf32> -> tensor<1x2xf32>
  return %p : tensor<1x2xf32>
}

// -----

// Partial rotary RoPE rotates at most all head_dim / 2 pairs.
func.func @rope_rotary_pairs(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.rope' op rotary_pairs must be between 0 and head_dim / 2 = 2, got 3}}
  %r = llm.rope %x {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 1 : i64, rotary_pairs = 3 : i64} : tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// An attention without k and v must say whose cache it reads.
func.func @attention_no_kv_no_layer(%q: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op without k and v it needs kv_layer, the layer whose cache it reads}}
  %o = llm.attention %q {layer = 1 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
  return %o : tensor<1x8xf32>
}

// -----

// ... and that cache is another layer's.
func.func @attention_kv_layer_self(%q: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op kv_layer must be another layer's index, got 1}}
  %o = llm.attention %q {layer = 1 : i64, kv_layer = 1 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
  return %o : tensor<1x8xf32>
}

// -----

// An attention with k and v stores them in its own cache, so kv_layer would contradict it.
func.func @attention_kv_and_kv_layer(%q: tensor<1x8xf32>, %k: tensor<1x4xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'llm.attention' op has k and v, so it stores into its own cache: kv_layer names the cache of an op without k and v}}
  %o = llm.attention %q, %k, %k {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
  return %o : tensor<1x8xf32>
}

// -----

// A column slice stays inside the row.
func.func @column_slice_outside(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.column_slice' op columns [6, 10) lie outside the 8 input columns}}
  %s = llm.column_slice %x {offset = 6 : i64} : tensor<1x8xf32> -> tensor<1x4xf32>
  return %s : tensor<1x4xf32>
}

// -----

// ... and keeps the row count.
func.func @column_slice_rows(%x: tensor<2x8xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'llm.column_slice' op row counts differ: 2 vs 1}}
  %s = llm.column_slice %x {offset = 0 : i64} : tensor<2x8xf32> -> tensor<1x4xf32>
  return %s : tensor<1x4xf32>
}

// -----

// A patch position is (column, row).
func.func @position_embed_columns(%x: tensor<4x8xf32>, %pos: tensor<4x3xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'llm.position_embed_2d' op positions must have 2 columns (column, row), got 3}}
  %e = llm.position_embed_2d %x, %pos {table = #llm.weight<"pos">, table_rows = 64 : i64} : tensor<4x8xf32>, tensor<4x3xi32>
  return %e : tensor<4x8xf32>
}

// -----

// One position per patch row.
func.func @position_embed_rows(%x: tensor<4x8xf32>, %pos: tensor<5x2xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'llm.position_embed_2d' op row counts differ: 4 vs 5}}
  %e = llm.position_embed_2d %x, %pos {table = #llm.weight<"pos">, table_rows = 64 : i64} : tensor<4x8xf32>, tensor<5x2xi32>
  return %e : tensor<4x8xf32>
}

// -----

// 2-D RoPE splits each head into a column half and a row half of rotate_half pairs.
func.func @rope_2d_head_dim(%x: tensor<4x12xf32>, %pos: tensor<4x2xi32>) -> tensor<4x12xf32> {
  // expected-error @+1 {{'llm.rope_2d' op heads must be positive and head_dim a positive multiple of 4, got 2 and 6}}
  %r = llm.rope_2d %x, %pos {heads = 2 : i64, head_dim = 6 : i64, theta = 100.0 : f32} : tensor<4x12xf32>, tensor<4x2xi32>
  return %r : tensor<4x12xf32>
}

// -----

func.func @rope_2d_width(%x: tensor<4x12xf32>, %pos: tensor<4x2xi32>) -> tensor<4x12xf32> {
  // expected-error @+1 {{'llm.rope_2d' op input has 12 features, expected heads * head_dim = 8}}
  %r = llm.rope_2d %x, %pos {heads = 2 : i64, head_dim = 4 : i64, theta = 100.0 : f32} : tensor<4x12xf32>, tensor<4x2xi32>
  return %r : tensor<4x12xf32>
}

// -----

func.func @bidirectional_attention_groups(%q: tensor<4x12xf32>, %k: tensor<4x8xf32>) -> tensor<4x12xf32> {
  // expected-error @+1 {{'llm.bidirectional_attention' op heads (3) must be a multiple of kv_heads (2)}}
  %a = llm.bidirectional_attention %q, %k, %k {heads = 3 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, scale = 1.0 : f32} : tensor<4x12xf32>, tensor<4x8xf32>
  return %a : tensor<4x12xf32>
}

// -----

func.func @bidirectional_attention_kv_width(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'llm.bidirectional_attention' op k and v have 8 features, expected kv_heads * head_dim = 4}}
  %a = llm.bidirectional_attention %q, %k, %k {heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, scale = 1.0 : f32} : tensor<4x8xf32>, tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// A 3x3 kernel pools nine patch rows into one.
func.func @pool_patches_rows(%x: tensor<36x8xf32>, %pos: tensor<36x2xi32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'llm.pool_patches' op pools 36 patch rows into 3, but a 3x3 kernel makes 36 / 9 rows}}
  %p = llm.pool_patches %x, %pos {kernel = 3 : i64, scale = 1.0 : f32} : tensor<36x8xf32>, tensor<36x2xi32> -> tensor<3x8xf32>
  return %p : tensor<3x8xf32>
}

// -----

func.func @pool_patches_width(%x: tensor<36x8xf32>, %pos: tensor<36x2xi32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'llm.pool_patches' op changes the row width from 8 to 4}}
  %p = llm.pool_patches %x, %pos {kernel = 3 : i64, scale = 1.0 : f32} : tensor<36x8xf32>, tensor<36x2xi32> -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}

// -----

// A stride-2 convolution makes ceil(rows / 2) frames.
func.func @subsample_conv_rows(%x: tensor<9x128xf32>) -> tensor<4x512xf32> {
  // expected-error @+1 {{'llm.subsample_conv' op halves 9 frames into 5, not 4}}
  %c = llm.subsample_conv %x {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<9x128xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// The input's columns are frequencies times channels.
func.func @subsample_conv_channels(%x: tensor<9x128xf32>) -> tensor<5x512xf32> {
  // expected-error @+1 {{'llm.subsample_conv' op input width 128 is not a whole number of 3 channels}}
  %c = llm.subsample_conv %x {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 3 : i64, eps = 1.0e-6 : f32} : tensor<9x128xf32> -> tensor<5x512xf32>
  return %c : tensor<5x512xf32>
}

// -----

// The output's columns are ceil(frequencies / 2) times the output channels.
func.func @subsample_conv_width(%x: tensor<9x128xf32>) -> tensor<5x100xf32> {
  // expected-error @+1 {{'llm.subsample_conv' op result width 100 is not a whole number of channels at 64 frequencies}}
  %c = llm.subsample_conv %x {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<9x128xf32> -> tensor<5x100xf32>
  return %c : tensor<5x100xf32>
}

// -----

func.func @local_attention_heads(%q: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'llm.local_attention' op 3 heads of 4 do not make the row width 8}}
  %a = llm.local_attention %q, %q, %q {heads = 3 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 3.0 : f32} : tensor<3x8xf32>
  return %a : tensor<3x8xf32>
}

// -----

// With no past frame a query would not even see itself.
func.func @local_attention_past(%q: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'llm.local_attention' op needs chunk >= 1, past >= 1 (the frame itself) and future >= 0, got chunk 4, past 0, future 0}}
  %a = llm.local_attention %q, %q, %q {heads = 2 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 0 : i64, future = 0 : i64, cap = 3.0 : f32} : tensor<3x8xf32>
  return %a : tensor<3x8xf32>
}

// -----

func.func @local_attention_cap(%q: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'llm.local_attention' op cap must be positive}}
  %a = llm.local_attention %q, %q, %q {heads = 2 : i64, head_dim = 4 : i64, per_dim_scale = #llm.weight<"pds">, relative_table = #llm.weight<"rel">, chunk = 4 : i64, past = 4 : i64, future = 0 : i64, cap = 0.0 : f32} : tensor<3x8xf32>
  return %a : tensor<3x8xf32>
}

// -----

// The GLU halves the columns.
func.func @gated_causal_conv_width(%g: tensor<3x16xf32>) -> tensor<3x16xf32> {
  // expected-error @+1 {{'llm.gated_causal_conv' op gates 16 columns into 16, not half as many}}
  %v = llm.gated_causal_conv %g {weight = #llm.weight<"dw">, kernel = 5 : i64} : tensor<3x16xf32> -> tensor<3x16xf32>
  return %v : tensor<3x16xf32>
}

// -----

func.func @gated_causal_conv_kernel(%g: tensor<3x16xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'llm.gated_causal_conv' op kernel must be positive, got 0}}
  %v = llm.gated_causal_conv %g {weight = #llm.weight<"dw">, kernel = 0 : i64} : tensor<3x16xf32> -> tensor<3x8xf32>
  return %v : tensor<3x8xf32>
}
