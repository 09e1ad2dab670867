// RUN: not saguaro-opt %s --llm-lower-to-kern=kv-cache=bf16 2>&1 | FileCheck %s --check-prefix=KV
// RUN: not saguaro-opt %s --llm-lower-to-kern=cq-activations=i4 2>&1 | FileCheck %s --check-prefix=ACT

// Pass options outside their sets are errors that name the option and the value.
// KV:  error: llm-lower-to-kern: kv-cache must be f32 or f16, got 'bf16'
// ACT: error: llm-lower-to-kern: cq-activations must be f32 or i8, got 'i4'
module attributes {llm.max_seq = 8 : i64} {
  func.func @decode(%tokens: tensor<1xi32>) -> tensor<1x16xf32> attributes {llm.entry = "decode"} {
    %h = llm.embed %tokens {table = #llm.weight<"e">} : tensor<1xi32> -> tensor<1x8xf32>
    %l = llm.logits %h {weight = #llm.weight<"out">} : tensor<1x8xf32> -> tensor<1x16xf32>
    return %l : tensor<1x16xf32>
  }
}
