// RUN: saguaro-opt %s --kern-insert-calibration-taps --verify-diagnostics

// A product whose activation is not a [rows, cols] buffer cannot be tapped.
module {
  func.func @prefill() attributes {llm.entry = "prefill"} {
    %x = kern.alloc : memref<8xf32>
    %y = kern.alloc : memref<4x8xf32>
    // expected-error @+1 {{'kern.call' op reads its weight with an activation that is not a [rows, cols] buffer}}
    kern.call %x, %y : memref<8xf32>, memref<4x8xf32> {callee = "matmul_f32", template_args = [8, 8], args = [#kern.param<"rows">, 0 : index, #kern.weight<"w">, 1 : index]}
    return
  }
}
