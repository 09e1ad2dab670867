//===- CqDialect.td - codebook-quantized tensors ------------------------*- tablegen -*-===//
//
// `cq` holds the ops on codebook-quantized weights (docs/quantization.md): a weight is stored
// as per-group norms plus `bits`-bit indices into a Lloyd-Max codebook of rotated unit
// vectors, and the activation is rotated instead of the weight.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_CQ_DIALECT
#define SAGUARO_CQ_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Cq_Dialect : Dialect {
  let name = "cq";
  let summary = "Codebook-quantized matrix products and embedding gathers";
  let cppNamespace = "::saguaro::cq";
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::saguaro::llm::LlmDialect"];
}

def Cq_CodebookAttr : AttrDef<Cq_Dialect, "Codebook"> {
  let mnemonic = "codebook";
  let summary = "The codebook of a quantized weight: bits per code and group size";
  let description = [{
    `#cq.codebook<3, 128>`: 2^3 Lloyd-Max centroids for groups of 128 rotated elements.
  }];
  let parameters = (ins "int64_t":$bits, "int64_t":$group);
  let assemblyFormat = "`<` $bits `,` $group `>`";
  let genVerifyDecl = 1;
}

class Cq_Op<string mnemonic, list<Trait> traits = []> : Op<Cq_Dialect, mnemonic, traits>;

#endif // SAGUARO_CQ_DIALECT
