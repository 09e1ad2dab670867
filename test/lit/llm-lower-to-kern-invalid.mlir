// RUN: saguaro-opt %s --split-input-file --llm-lower-to-kern --verify-diagnostics

// The cache length comes from the module; without llm.max_seq nothing can be lowered.
// expected-error @+1 {{llm-lower-to-kern needs a positive module attribute llm.max_seq}}
module {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    %l = llm.logits %h {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A non-positive llm.max_seq is rejected as well.
// expected-error @+1 {{llm-lower-to-kern needs a positive module attribute llm.max_seq}}
module attributes {llm.max_seq = 0 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    %l = llm.logits %h {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// RoPE rotates its input in place, so the unrotated q may not be read afterwards.
module attributes {llm.max_seq = 8 : i64} {
  func.func @rope_input_read_later(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.rope' op updates its operand in place, but a later op still reads it}}
    %r = llm.rope %q {heads = 2 : i64, head_dim = 4 : i64, theta = 1.0e+04 : f32, style = 0 : i64} : tensor<1x8xf32>
    %s = llm.add %r, %q : tensor<1x8xf32>
    %l = llm.logits %s {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// The same holds for the q/k norm.
module attributes {llm.max_seq = 8 : i64} {
  func.func @head_norm_input_read_later(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.head_rms_norm' op updates its operand in place, but a later op still reads it}}
    %n = llm.head_rms_norm %q {weight = #llm.weight<"qn">, eps = 1.0e-06 : f32, heads = 2 : i64, head_dim = 4 : i64} : tensor<1x8xf32>
    %l = llm.logits %q {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// An add needs one operand it may overwrite; here both are read later.
module attributes {llm.max_seq = 8 : i64} {
  func.func @add_both_read_later(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %a = llm.embed %tokens {table = #llm.weight<"a">} : tensor<1xi32> -> tensor<1x8xf32>
    %b = llm.embed %tokens {table = #llm.weight<"b">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.add' op updates its operand in place, but a later op still reads it}}
    %s = llm.add %a, %b : tensor<1x8xf32>
    %t = llm.add %a, %b : tensor<1x8xf32>
    %u = llm.add %s, %t : tensor<1x8xf32>
    %l = llm.logits %u {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// The fused residual add overwrites the residual, which is still read later.
module attributes {llm.max_seq = 8 : i64} {
  func.func @add_rms_norm_residual_read_later(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"a">} : tensor<1xi32> -> tensor<1x8xf32>
    %d = llm.embed %tokens {table = #llm.weight<"b">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.add_rms_norm' op updates its operand in place, but a later op still reads it}}
    %s, %n = llm.add_rms_norm %h, %d {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %t = llm.add %n, %h : tensor<1x8xf32>
    %l = llm.logits %t {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// An entry point returns the logits and nothing else.
module attributes {llm.max_seq = 8 : i64} {
  func.func @returns_hidden(%tokens: tensor<1xi32>) -> tensor<1x8xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'func.return' op an llm entry point must return the result of llm.logits}}
    return %h : tensor<1x8xf32>
  }
}

// -----

// Returning the logits together with another value is rejected too.
module attributes {llm.max_seq = 8 : i64} {
  func.func @returns_two(%tokens: tensor<1xi32>) -> (tensor<1x16xf32>, tensor<1x8xf32>) attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    %n = llm.rms_norm %h {weight = #llm.weight<"n">, eps = 1.0e-05 : f32} : tensor<1x8xf32>
    %l = llm.logits %n {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    // expected-error @+1 {{'func.return' op an llm entry point must return the result of llm.logits}}
    return %l, %h : tensor<1x16xf32>, tensor<1x8xf32>
  }
}

// -----

// The only argument of an entry point is the token tensor: an entry without it is rejected.
module attributes {llm.max_seq = 8 : i64} {
  // expected-error @+1 {{'func.func' op an llm entry point takes exactly one argument: the token ids}}
  func.func @no_tokens() attributes {llm.entry = "decode"} {
    return
  }
}

// -----

// So is an entry with an argument besides the tokens.
module attributes {llm.max_seq = 8 : i64} {
  // expected-error @+1 {{'func.func' op an llm entry point takes exactly one argument: the token ids}}
  func.func @extra_argument(%tokens: tensor<1xi32>, %pos: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    %l = llm.logits %h {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// Ops outside the llm dialect have no kernel.
module attributes {llm.max_seq = 8 : i64} {
  func.func @foreign_op(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'memref.alloc' op cannot be lowered to kern}}
    %m = memref.alloc() : memref<4xf32>
    %l = llm.logits %h {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// Every attention op of one layer must agree on the kv width, which sizes its cache.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x8xf32>
    %k4 = llm.embed %tokens {table = #llm.weight<"k4">} : tensor<1xi32> -> tensor<1x4xf32>
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x8xf32>
    // expected-error @+1 {{'llm.attention' op layer 0 has kv width 4 here but 8 elsewhere}}
    %b = llm.attention %a, %k4, %k4 {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 0.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %l = llm.logits %b {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A probe entry reads hidden rows (float), not token ids.
module attributes {llm.max_seq = 8 : i64} {
  // expected-error @+1 {{'func.func' op a probe entry point takes exactly one argument: the hidden rows}}
  func.func @probe(%t: tensor<8xi32>) attributes {llm.entry = "probe"} {
    return
  }
}

// -----

// An attention without k and v reads a cache that an attention with k and v fills.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.attention' op reads the KV cache of layer 0, which no attention op with k and v fills}}
    %a = llm.attention %q {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
    %l = llm.logits %a {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// ... with the kv width of that cache.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    // expected-error @+1 {{'llm.attention' op reads the cache of layer 0 with kv width 8, but that cache has 4}}
    %b = llm.attention %a {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 2 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
    %l = llm.logits %b {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// Every attention op of one layer must agree on the window, which sizes its cache (a ring of the window).
module attributes {llm.max_seq = 8 : i64} {
  func.func @prefill(%tokens: tensor<2xi32>) -> tensor<2x16xf32> attributes {llm.entry = "prefill"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<2xi32> -> tensor<2x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<2xi32> -> tensor<2x4xf32>
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 4 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<2x8xf32>, tensor<2x4xf32>
    %l = llm.logits %a {weight = #llm.weight<"out">} : tensor<2x8xf32> -> tensor<2x16xf32>
    return %l : tensor<2x16xf32>
  }
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    // expected-error @+1 {{'llm.attention' op layer 0 has window 0 here but 4 elsewhere}}
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %l = llm.logits %a {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A layer reading another's cache may not see further back than that cache keeps: layer 0's window of 4 makes
// its cache a ring of 4 positions (max_seq 8), and layer 1 attends over all 8.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 4 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    // expected-error @+1 {{'llm.attention' op attends over 8 positions, but the cache of layer 0 keeps only the last 4}}
    %b = llm.attention %a {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
    %l = llm.logits %b {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A layer reading another's cache reads the call's own positions from the K/V that layer computed in the same
// entry, so that layer's attention must come first.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    // expected-error @+1 {{'llm.attention' op reads the K/V of layer 0, which no earlier attention op of this entry computes}}
    %a = llm.attention %q {layer = 1 : i64, kv_layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>
    %b = llm.attention %a, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %l = llm.logits %b {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// One entry computes a layer's K/V once: its store comes after the last attention that reads them.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %q = llm.embed %tokens {table = #llm.weight<"q">} : tensor<1xi32> -> tensor<1x8xf32>
    %k = llm.embed %tokens {table = #llm.weight<"k">} : tensor<1xi32> -> tensor<1x4xf32>
    %a = llm.attention %q, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    // expected-error @+1 {{'llm.attention' op computes the K/V of layer 0 a second time in this entry}}
    %b = llm.attention %a, %k, %k {layer = 0 : i64, heads = 2 : i64, kv_heads = 1 : i64, head_dim = 4 : i64, window = 0 : i64, scale = 1.0 : f32, softcap = 0.0 : f32} : tensor<1x8xf32>, tensor<1x4xf32>
    %l = llm.logits %b {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A scale overwrites its operand, so nothing may read the operand after it.
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    // expected-error @+1 {{'llm.scale' op updates its operand in place, but a later op still reads it}}
    %s = llm.scale %h {factor = 0.5 : f32} : tensor<1x8xf32>
    %t = llm.add %s, %h : tensor<1x8xf32>
    %l = llm.logits %t {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}

// -----

// A vision entry takes its patch rows and one position per row.
module attributes {llm.max_seq = 16 : i64} {
  // expected-error @+1 {{an encoder entry point takes its patch rows (tensor<Rxwxf32>) and their positions (tensor<Rx2xi32>)}}
  func.func @encode_image(%px: tensor<36x48xf32>, %pos: tensor<9x2xi32>) -> tensor<36x48xf32> attributes {llm.entry = "vision", llm.pooling = 3 : i64} {
    %p = llm.shift_scale %px {shift = 0.5 : f32, scale = 2.0 : f32} : tensor<36x48xf32>
    return %p : tensor<36x48xf32>
  }
}

// -----

// An audio entry takes its mel frames only.
module attributes {llm.max_seq = 16 : i64} {
  // expected-error @+1 {{an audio entry point takes exactly one argument: the mel frames (tensor<Txmelxf32>)}}
  func.func @encode_audio(%f: tensor<12x128xf32>, %pos: tensor<12x2xi32>) -> tensor<12x128xf32> attributes {llm.entry = "audio"} {
    %s = llm.silu %f : tensor<12x128xf32>
    return %s : tensor<12x128xf32>
  }
}

// -----

// The runtime knows the frame counts after two subsamplings only.
module attributes {llm.max_seq = 16 : i64} {
  func.func @encode_audio(%f: tensor<8x4xf32>) -> tensor<1x2xf32> attributes {llm.entry = "audio"} {
    %c0 = llm.subsample_conv %f {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<8x4xf32> -> tensor<4x2xf32>
    %c1 = llm.subsample_conv %c0 {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<4x2xf32> -> tensor<2x1xf32>
    // expected-error @+1 {{'llm.subsample_conv' op subsamples frames that are already subsampled twice}}
    %c2 = llm.subsample_conv %c1 {weight = #llm.weight<"c">, norm = #llm.weight<"n">, in_channels = 1 : i64, eps = 1.0e-6 : f32} : tensor<2x1xf32> -> tensor<1x1xf32>
    %l = llm.linear %c2 {weight = #llm.weight<"w">} : tensor<1x1xf32> -> tensor<1x2xf32>
    return %l : tensor<1x2xf32>
  }
}
