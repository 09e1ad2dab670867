// RUN: saguaro-opt %s --split-input-file --cq-quantize=bits=3 --verify-diagnostics

// A policy with an unsupported bit width names the tensor.
module attributes {cq.policy = {w = 5 : i64}} {
  func.func @f(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
    // expected-error @+1 {{'llm.linear' op unsupported bit width 5 for 'w' (1, 2, 3, 4, 16 or 32)}}
    %y = llm.linear %x {weight = #llm.weight<"w">} : tensor<1x8xf32> -> tensor<1x8xf32>
    return %y : tensor<1x8xf32>
  }
}

// -----

// A codebook whose group does not follow the format's rule for the row length is rejected.
func.func @g(%x: tensor<1x200xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'cq.matmul' op codebook group 64 does not match the format's group 128 for rows of 200}}
  %y = cq.matmul %x {weight = #llm.weight<"w">, codebook = #cq.codebook<3, 64>} : tensor<1x200xf32> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
