//===- KernDialect.td - calls into named kernels ------------------------*- tablegen -*-===//
//
// `kern` is the last level before EmitC: arena buffers with planned offsets and calls into
// named header-only kernels with compile-time template parameters.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_KERN_DIALECT
#define SAGUARO_KERN_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kern_Dialect : Dialect {
  let name = "kern";
  let summary = "Kernel calls over a statically planned activation arena";
  let description = [{
    A function in this dialect is a straight-line list of `kern.call`s. Activation
    buffers come from `kern.alloc`; `kern-plan-memory` gives each an offset in one
    arena. Runtime values of the entry point (row count, first position, token ids,
    the logits output) appear as `#kern.param<"...">` arguments.
  }];
  let cppNamespace = "::saguaro::kern";
  let useDefaultAttributePrinterParser = 1;
}

class Kern_Attr<string name, string attrMnemonic> : AttrDef<Kern_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Kern_ParamAttr : Kern_Attr<"Param", "param"> {
  let summary = "A runtime argument of the entry point";
  let description = [{
    One of `rows` (valid rows, 1 for decode), `pos0` (position of the first row),
    `tokens` (the token ids), `logits` (the output buffer), `all_logits` (whether every
    row's logits are wanted), `logit_rows` (rows of logits written), `parallel` (the thread
    pool kernels split their work over, `saguaro::kernels::Parallel*`, null for one thread). Example:
    `#kern.param<"rows">`.
  }];
  let parameters = (ins StringRefParameter<"parameter name">:$name);
  let assemblyFormat = "`<` $name `>`";
}

def Kern_WeightAttr : Kern_Attr<"Weight", "weight"> {
  let summary = "A weight tensor, by name";
  let description = [{ Example: `#kern.weight<"model.norm.weight">`. }];
  let parameters = (ins StringRefParameter<"tensor name">:$name);
  let assemblyFormat = "`<` $name `>`";
}

def Kern_KvAttr : Kern_Attr<"Kv", "kv"> {
  let summary = "A float offset into the KV cache (an audio_step entry: into its stream's state)";
  let description = [{ Example: `#kern.kv<4096>` is `kv + 4096` (elements). }];
  let parameters = (ins "int64_t":$offset);
  let assemblyFormat = "`<` $offset `>`";
}

def Kern_LayoutAttr : Kern_Attr<"Layout", "layout"> {
  let summary = "A stored weight layout, by name";
  let description = [{
    The `Layout` template argument of a kernel that reads a packed weight: one of the names of
    saguaro/kernels/layouts.h (`row-major`, `dense-panel3`, `cq-lsb`, `cq-planar-panel8`), which
    also gives the C++ value generated code passes. Example: `#kern.layout<"cq-planar-panel8">`.
  }];
  let parameters = (ins StringRefParameter<"layout name">:$name);
  let assemblyFormat = "`<` $name `>`";
  let genVerifyDecl = 1;
}

class Kern_Op<string mnemonic, list<Trait> traits = []> : Op<Kern_Dialect, mnemonic, traits>;

#endif // SAGUARO_KERN_DIALECT
