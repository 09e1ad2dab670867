//===- CqOps.td - cq operations -----------------------------------------*- tablegen -*-===//
#ifndef SAGUARO_CQ_OPS
#define SAGUARO_CQ_OPS

include "CqDialect.td"
include "dialects/llm/IR/LlmDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Cq_MatmulOp : Cq_Op<"matmul", [Pure]> {
  let summary = "Rotate the activation, look up the codebook, scale by the group norms";
  let description = [{
    `y[r][n] = Σ_j σ[n][j] · Σ_i c[code[n][j][i]] · (R_g x_j)_i`, the product with a weight
    stored in the CQ format.

    ```mlir
    %y = cq.matmul %x {weight = #llm.weight<"wq">, codebook = #cq.codebook<4, 64>}
        : tensor<1x64xf32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$input, Llm_WeightAttr:$weight, Cq_CodebookAttr:$codebook);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Cq_LogitsOp : Cq_Op<"logits", [Pure]> {
  let summary = "The output head with a CQ weight, optionally soft-capped";
  let description = [{
    Like `llm.logits` (last row only unless all rows are requested at run time).

    ```mlir
    %l = cq.logits %x {weight = #llm.weight<"tok">, codebook = #cq.codebook<4, 64>, softcap = 0.0 : f32}
        : tensor<1x64xf32> -> tensor<1x512xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$input, Llm_WeightAttr:$weight, Cq_CodebookAttr:$codebook,
                       DefaultValuedAttr<F32Attr, "0.0">:$softcap);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Cq_GatherOp : Cq_Op<"gather", [Pure]> {
  let summary = "Decode quantized embedding rows for token ids";
  let description = [{
    Row `tokens[r]` of a CQ table: per group `σ · R_gᵀ c[code]`, times `scale`.

    ```mlir
    %h = cq.gather %tokens {table = #llm.weight<"tok">, codebook = #cq.codebook<4, 64>, scale = 1.0 : f32}
        : tensor<1xi32> -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I32]>:$tokens, Llm_WeightAttr:$table, Cq_CodebookAttr:$codebook,
                       DefaultValuedAttr<F32Attr, "1.0">:$scale);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = "$tokens attr-dict `:` type($tokens) `->` type($result)";
}

#endif // SAGUARO_CQ_OPS
