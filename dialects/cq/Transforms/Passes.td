//===- Passes.td - cq passes --------------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_CQ_PASSES
#define SAGUARO_CQ_PASSES

include "mlir/Pass/PassBase.td"

def Quantize : Pass<"cq-quantize", "mlir::ModuleOp"> {
  let summary = "Rewrite llm.linear / llm.embed / llm.logits on quantized weights into cq ops";
  let description = [{
    Each weight gets the bit width of the module's `cq.policy` dictionary (tensor name →
    bits) or else the `bits` option: 1-4 bits are codebook-quantized, 16 stores the weight in IEEE
    binary16 and 32 keeps it in float32; both keep the llm op. `llm.linear` becomes
    `cq.matmul`, `llm.logits` `cq.logits`, `llm.embed` `cq.gather`, and a `llm.gated_mlp`
    with a quantized projection is split into its three products and an `llm.glu`. The bits
    chosen per tensor are recorded in the module attribute `cq.quantized`, which tells the
    bundle writer what to store.

    ```mlir
    %q = llm.linear %n {weight = #llm.weight<"wq">} : tensor<1x64xf32> -> tensor<1x64xf32>
    // --cq-quantize=bits=3 gives
    %q = cq.matmul %n {codebook = #cq.codebook<3, 64>, weight = #llm.weight<"wq">}
        : tensor<1x64xf32> -> tensor<1x64xf32>
    ```
  }];
  let options = [Option<"bits", "bits", "int64_t", "4", "bit width for tensors the policy does not name (1-4, 16 for binary16 or 32 for float32)">];
  let dependentDialects = ["saguaro::cq::CqDialect", "saguaro::llm::LlmDialect"];
}

#endif // SAGUARO_CQ_PASSES
