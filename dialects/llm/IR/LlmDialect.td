//===- LlmDialect.td - the model graph dialect --------------------------*- tablegen -*-===//
//
// `llm` is the model graph at the level a model card speaks: embeddings, norms, linears,
// rotary embeddings, attention over a KV cache, gated MLPs, logits. Shapes are static: every
// function is one entry point (prefill of T rows, or decode of one row).
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_LLM_DIALECT
#define SAGUARO_LLM_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Llm_Dialect : Dialect {
  let name = "llm";
  let summary = "Language-model graph operations with static shapes";
  let description = [{
    Operations on float32 activations of shape `[T, features]`, where T is the
    number of rows (tokens) of the entry point. Weights are never stored in the IR:
    ops name them with `#llm.weight<"...">`, resolved against the weight store that
    the importer keeps beside the module.
  }];
  let cppNamespace = "::saguaro::llm";
  let useDefaultAttributePrinterParser = 1;
}

class Llm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Llm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Llm_WeightAttr : Llm_Attr<"Weight", "weight"> {
  let summary = "A reference to a named tensor of the weight store";
  let description = [{
    Example: `#llm.weight<"model.layers.0.self_attn.q_proj.weight">`.
  }];
  let parameters = (ins StringRefParameter<"tensor name">:$name);
  let assemblyFormat = "`<` $name `>`";
}

class Llm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Llm_Dialect, mnemonic, traits>;

#endif // SAGUARO_LLM_DIALECT
