// RUN: saguaro-opt %s --kern-mark-gathered-weights --verify-diagnostics

// An llm op still reads its weight itself: which weights only gathers read is not known yet.
module {
  func.func @decode(%tok: tensor<1xi32>) -> tensor<1x8xf32> attributes {llm.entry = "decode"} {
    // expected-error @+1 {{'llm.embed' op is not lowered to kernel calls; kern-mark-gathered-weights runs after llm-lower-to-kern}}
    %x = llm.embed %tok {table = #llm.weight<"emb">} : tensor<1xi32> -> tensor<1x8xf32>
    return %x : tensor<1x8xf32>
  }
}
