//===- LowerToEmitC.cpp - kern-lower-to-emitc ------------------------------------------===//
//
// The last IR step: planned kern functions become EmitC functions with the signatures of
// the model ABI. What comes out is straight-line C++ — pointers computed from constant
// offsets and calls with constant template shapes — with no dispatch at run time.
//
// The code is meant to be read, too. Each block of the model starts with a comment
// (`// layer 3: mlp`), each value is located at the C++ name it gets (`x_l3_mlp_gate`, from
// the kern op's location, see dialects/common/ValueNames.h; `w_layers_3_wq`; `kv_l3_k`; the
// ABI's `state`, `rows`, `pos0`, ...); the bundle writer gives the values those names.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/Passes.h"

#include "codegen/emit/CppNames.h"
#include "dialects/common/ValueNames.h"
#include "dialects/kern/IR/KernelCatalogue.h"

#include "mlir/IR/Builders.h"
#include "saguaro/kernels/layouts.h"

#include <cstdio>

namespace saguaro::emit {
#define GEN_PASS_DEF_KERNLOWERTOEMITC
#include "codegen/emit/Passes.h.inc"
} // namespace saguaro::emit

using namespace mlir;
using namespace saguaro;

namespace {
/// EmitC types of the model ABI.
struct AbiTypes {
  /// `kvType` is the module's kern.kv_type: f32 caches are `float*`, f16 caches `uint16_t*` (binary16 bits).
  AbiTypes(MLIRContext *ctx, StringRef kvType)
      : state(emitc::OpaqueType::get(ctx, "const saguaro::ModelState&")),
        floatPtr(emitc::PointerType::get(FloatType::getF32(ctx))),
        kvPtr(kvType == "f16" ? emitc::PointerType::get(IntegerType::get(ctx, 16, IntegerType::Unsigned))
                              : floatPtr),
        constFloatPtr(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const float"))),
        tokenPtr(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const int32_t"))),
        bytePtr(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const uint8_t"))),
        weightPtr(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const void"))),
        parallelPtr(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const saguaro::kernels::Parallel"))),
        i32(IntegerType::get(ctx, 32)), i64(IntegerType::get(ctx, 64)), i1(IntegerType::get(ctx, 1)) {}
  Type state, floatPtr, kvPtr, constFloatPtr, tokenPtr, bytePtr, weightPtr, parallelPtr, i32, i64, i1;
};

/// Builds one EmitC entry function from a planned kern function.
class EntryEmitter {
public:
  EntryEmitter(func::FuncOp fn, StringRef kvType, llvm::MapVector<StringRef, int64_t> &slots)
      : fn(fn), b(fn.getContext()), t(fn.getContext(), kvType), slots(slots) {}

  LogicalResult run(StringRef kind);

private:
  /// A literal the C++ emitter inlines at its use: `16`, `true`, `9.99999975e-06f`.
  Value literal(Type type, Attribute value) {
    std::string text;
    if (auto f = dyn_cast<FloatAttr>(value)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", f.getValueAsDouble());
      text = buf;
      if (text.find_first_of(".en") == std::string::npos)
        text += ".0";
      text += "f";
    } else if (auto i = dyn_cast<IntegerAttr>(value)) {
      text = i.getType().isInteger(1) ? (i.getValue().isZero() ? "false" : "true")
                                      : std::to_string(i.getInt());
    }
    return b.create<emitc::LiteralOp>(fn.getLoc(), type, text);
  }
  /// The location naming a value `name` (made a fresh C++ identifier of this function).
  Location named(StringRef name) { return NameLoc::get(b.getStringAttr(cppNames.fresh(name))); }
  Value opaqueCall(StringRef name, Type result, StringRef callee, ValueRange operands, ArrayRef<Attribute> args) {
    return b.create<emitc::CallOpaqueOp>(named(name), TypeRange{result}, callee, operands, b.getArrayAttr(args),
                                         ArrayAttr())
        .getResult(0);
  }
  /// `base + elements` as an EmitC pointer addition (of base's pointer type).
  Value offsetPointer(StringRef name, Value base, int64_t elements) {
    return b.create<emitc::AddOp>(named(name), base.getType(), base, literal(t.i64, b.getI64IntegerAttr(elements)));
  }
  /// `// <block>` where a kern op starts another block of the model than the ops before it.
  void blockComment(Operation &op) {
    StringRef block = names::blockOf(op.getLoc());
    if (block.empty() || block == currentBlock)
      return;
    b.create<emitc::VerbatimOp>(op.getLoc(), b.getStringAttr("// " + commentText(block)));
    currentBlock = block;
  }
  Value weight(StringRef name);
  /// The name of KV argument `arg` of `call`, after the call (kv_store_f32 of `kv_l3`: `kv_l3_k`): its first KV
  /// argument is K, then V.
  static std::string kvName(kern::CallOp call, Attribute arg) {
    size_t nth = 0;
    for (Attribute a : call.getArgs()) {
      if (a == arg)
        break;
      nth += isa<kern::KvAttr>(a);
    }
    return kvVariable(names::valueOf(call.getLoc()), nth);
  }
  FailureOr<Value> argument(kern::CallOp call, Attribute arg, ValueRange buffers);
  /// The call's template arguments as C++: a stored layout becomes the kernels' constant for it (layouts.h).
  ArrayAttr templateArguments(kern::CallOp call) {
    SmallVector<Attribute> out;
    for (Attribute a : call.getTemplateArgs()) {
      if (auto layout = dyn_cast<kern::LayoutAttr>(a))
        a = emitc::OpaqueAttr::get(b.getContext(),
                                   saguaro::kernels::find_layout(layout.getName().str().c_str())->constant);
      out.push_back(a);
    }
    return b.getArrayAttr(out);
  }

  func::FuncOp fn;
  OpBuilder b;
  AbiTypes t;
  llvm::MapVector<StringRef, int64_t> &slots;
  CppNames cppNames;      // the names given in this function
  StringRef currentBlock; // the block the last comment started
  Value state, arena, kv;
  llvm::StringMap<Value> params;
  DenseMap<Value, Value> pointers;        // kern.alloc -> arena pointer
  llvm::StringMap<Value> weightPointers;  // weight name -> pointer
  DenseMap<int64_t, Value> kvPointers;    // float offset -> pointer
  DenseMap<int64_t, std::string> kvNames; // float offset -> the name the kv_store_f32 into it gives
};

Value EntryEmitter::weight(StringRef name) {
  auto found = weightPointers.find(name);
  if (found != weightPointers.end())
    return found->second;
  int64_t slot = slots.insert({name, static_cast<int64_t>(slots.size())}).first->second;
  Value ptr = opaqueCall(weightVariable(name), t.weightPtr, "weight_of", state,
                         {b.getIndexAttr(0), b.getI32IntegerAttr(static_cast<int32_t>(slot))});
  weightPointers[name] = ptr;
  return ptr;
}

FailureOr<Value> EntryEmitter::argument(kern::CallOp call, Attribute arg, ValueRange buffers) {
  if (auto i = dyn_cast<IntegerAttr>(arg); i && i.getType().isIndex())
    return pointers.lookup(buffers[i.getInt()]);
  if (auto p = dyn_cast<kern::ParamAttr>(arg)) {
    // The thread pool is fetched from the state where a kernel first asks for it (straight-line code: it then
    // dominates every later use).
    if (p.getName() == "parallel" && !params.count("parallel"))
      params["parallel"] = opaqueCall("parallel", t.parallelPtr, "parallel_of", state, {b.getIndexAttr(0)});
    Value v = params.lookup(p.getName());
    if (!v)
      return call.emitOpError() << "runtime parameter \"" << p.getName()
                                << "\" does not exist in this entry point";
    return v;
  }
  if (auto w = dyn_cast<kern::WeightAttr>(arg))
    return weight(w.getName());
  if (auto k = dyn_cast<kern::KvAttr>(arg)) {
    Value &ptr = kvPointers[k.getOffset()];
    if (!ptr) {
      auto stored = kvNames.find(k.getOffset());
      ptr = offsetPointer(stored != kvNames.end() ? stored->second : kvName(call, arg), kv, k.getOffset());
    }
    return ptr;
  }
  if (auto f = dyn_cast<FloatAttr>(arg)) {
    if (!f.getValue().isFinite())
      return call.emitOpError() << "float argument " << f << " is not finite";
    return literal(f.getType(), f);
  }
  if (auto i = dyn_cast<IntegerAttr>(arg))
    return literal(i.getType(), i);
  return call.emitOpError() << "cannot lower argument " << arg << " to EmitC";
}

LogicalResult EntryEmitter::run(StringRef kind) {
  // The ABI signatures (model_abi.h): each argument's C++ name and type. The names are also the runtime parameters
  // (kern.param) the entry's calls may read.
  struct Argument {
    const char *name;
    Type type;
  };
  SmallVector<Argument> abi;
  const char *function;
  const bool step = kind == "audio_step", audio = kind == "audio" || step;
  const bool encoder = kind == "vision" || audio;
  if (kind == "prefill") {
    function = "saguaro_model_prefill";
    abi = {{"tokens", t.tokenPtr},     {"rows", t.i32},          {"pos0", t.i32},      {"soft_embeds", t.constFloatPtr},
           {"soft_mask", t.bytePtr}, {"logits", t.floatPtr}, {"all_logits", t.i1}};
  } else if (kind == "decode") {
    function = "saguaro_model_decode";
    abi = {{"token", t.i32}, {"pos0", t.i32}, {"logits", t.floatPtr}};
  } else if (kind == "probe") {
    function = "saguaro_model_probe";
    abi = {{"hidden", t.floatPtr}, {"rows", t.i32}, {"p_wrong", t.floatPtr}};
  } else if (step) {
    // model_abi.h's EncodeStepFn: a streamed clip's next mel frames, the frames before them, the stream's state.
    function = "saguaro_model_encode_audio_step";
    abi = {{"features", t.constFloatPtr}, {"rows", t.i32},          {"start", t.i32},
           {"state", t.floatPtr},         {"soft_tokens", t.floatPtr}};
  } else if (encoder) {
    // The towers share model_abi.h's EncodeFn: input rows (an image's patches, a clip's mel frames), the patches'
    // grid positions (null for audio), the row count and the soft tokens.
    function = kind == "vision" ? "saguaro_model_encode_image" : "saguaro_model_encode_audio";
    abi = {{kind == "vision" ? "patches" : "features", t.constFloatPtr},
           {"positions", t.tokenPtr},
           {"rows", t.i32},
           {"soft_tokens", t.floatPtr}};
  } else {
    return fn.emitOpError() << "unknown entry kind \"" << kind << "\"";
  }
  SmallVector<Type> inputs = {t.state};
  for (const Argument &a : abi)
    inputs.push_back(a.type);
  b.setInsertionPoint(fn);
  auto entry = b.create<emitc::FuncOp>(fn.getLoc(), function, FunctionType::get(fn.getContext(), inputs, {}));
  Block *body = entry.addEntryBlock();
  b.setInsertionPointToStart(body);
  state = body->getArgument(0);
  state.setLoc(named("state"));
  for (auto [i, a] : llvm::enumerate(abi)) {
    Value arg = body->getArgument(i + 1);
    arg.setLoc(named(a.name));
    params[a.name] = arg;
  }
  arena = opaqueCall("arena", t.floatPtr, "arena_of", state, {b.getIndexAttr(0)});
  if (!encoder) // an encoder has no KV cache; a step's rings are kern.kv offsets into its stream's state
    kv = opaqueCall("kv", t.kvPtr, "kv_of", state, {b.getIndexAttr(0)});
  else if (step)
    kv = params["state"];
  if (kind == "prefill") {
    params["logit_rows"] = b.create<emitc::ConditionalOp>(named("logit_rows"), t.i32, params["all_logits"],
                                                         params["rows"], literal(t.i32, b.getI32IntegerAttr(1)));
  } else if (kind == "decode") {
    params["tokens"] = b.create<emitc::ApplyOp>(named("tokens"), t.tokenPtr, "&", params["token"]);
    params["rows"] = params["logit_rows"] = literal(t.i32, b.getI32IntegerAttr(1));
    params["all_logits"] = literal(t.i1, b.getBoolAttr(false));
  } else if (kind == "vision") {
    // The soft-token rows: one per pooling x pooling patches (the entry's llm.pooling).
    auto pooling = fn->getAttrOfType<IntegerAttr>("llm.pooling");
    if (!pooling || pooling.getInt() <= 0)
      return fn.emitOpError("a vision entry needs a positive llm.pooling");
    params["soft_rows"] = b.create<emitc::DivOp>(named("soft_rows"), t.i32, params["rows"],
                                                 literal(t.i32, b.getI32IntegerAttr(static_cast<int32_t>(
                                                                    pooling.getInt() * pooling.getInt()))));
  } else if (audio) {
    // The frames after each stride-2 subsampling, rounded up: rows_2 = (rows + 1) / 2, rows_4 = (rows_2 + 1) / 2.
    Value frames = params["rows"];
    for (const char *name : {"rows_2", "rows_4"}) {
      Value odd = b.create<emitc::AddOp>(named(std::string(name) + "_up"), t.i32, frames,
                                         literal(t.i32, b.getI32IntegerAttr(1)));
      frames = params[name] =
          b.create<emitc::DivOp>(named(name), t.i32, odd, literal(t.i32, b.getI32IntegerAttr(2)));
    }
    // A step starts at a multiple of 4 frames: start_2 = start / 2, start_4 = start / 4.
    for (auto [name, divisor] : {std::pair{"start_2", 2}, std::pair{"start_4", 4}})
      if (step)
        params[name] = b.create<emitc::DivOp>(named(name), t.i32, params["start"],
                                              literal(t.i32, b.getI32IntegerAttr(divisor)));
  }

  // A cache's pointers are named after the store into it (the attention ops that read the cache come first), or
  // after the first call that reads it where the entry stores nothing into it.
  fn.walk([&](kern::CallOp call) {
    if (call.getCallee() == kern::kKvStoreF32.name)
      for (Attribute arg : call.getArgs())
        if (auto k = dyn_cast<kern::KvAttr>(arg))
          kvNames.try_emplace(k.getOffset(), kvName(call, arg));
  });
  for (Operation &op : fn.getBody().front()) {
    blockComment(op);
    if (auto alloc = dyn_cast<kern::AllocOp>(op)) {
      if (!alloc.getOffset())
        return alloc.emitOpError("has no planned offset; run kern-plan-memory first");
      StringRef name = names::valueOf(alloc.getLoc());
      pointers[alloc] = offsetPointer(name.empty() ? "buf" : name, arena, *alloc.getOffset() / 4); // bytes -> floats
      continue;
    }
    if (auto call = dyn_cast<kern::CallOp>(op)) {
      SmallVector<Value> operands;
      SmallVector<Attribute> args;
      for (Attribute arg : call.getArgs()) {
        FailureOr<Value> v = argument(call, arg, call.getBuffers());
        if (failed(v))
          return failure();
        args.push_back(b.getIndexAttr(operands.size()));
        operands.push_back(*v);
      }
      b.create<emitc::CallOpaqueOp>(call.getLoc(), TypeRange{},
                                    ("saguaro::kernels::" + call.getCallee()).str(), operands,
                                    b.getArrayAttr(args), templateArguments(call));
      continue;
    }
    if (auto tap = dyn_cast<kern::TapOp>(op)) {
      // tap(state, id, rows, cols, x): the runtime's hook, a no-op unless one is installed.
      int64_t cols = cast<MemRefType>(tap.getBuffer().getType()).getDimSize(1);
      b.create<emitc::CallOpaqueOp>(
          tap.getLoc(), TypeRange{}, "tap", ValueRange{state, params["rows"], pointers.lookup(tap.getBuffer())},
          b.getArrayAttr({b.getIndexAttr(0), b.getI32IntegerAttr(static_cast<int32_t>(tap.getId())),
                          b.getIndexAttr(1), b.getI32IntegerAttr(static_cast<int32_t>(cols)), b.getIndexAttr(2)}),
          ArrayAttr());
      continue;
    }
    if (isa<func::ReturnOp>(op))
      continue;
    return op.emitOpError("cannot be lowered to EmitC");
  }
  b.create<emitc::ReturnOp>(fn.getLoc(), Value());
  return success();
}

struct KernLowerToEmitCPass : emit::impl::KernLowerToEmitCBase<KernLowerToEmitCPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::MapVector<StringRef, int64_t> slots;
    auto kvType = module->getAttrOfType<StringAttr>("kern.kv_type");
    if (kvType && kvType.getValue() != "f32" && kvType.getValue() != "f16") {
      module.emitError("kern.kv_type must be \"f32\" or \"f16\", got ") << kvType;
      return signalPassFailure();
    }
    StringRef kv = kvType ? kvType.getValue() : "f32";
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr("llm.entry"))
        entries.push_back(fn);
    for (func::FuncOp fn : entries) {
      auto kind = fn->getAttrOfType<StringAttr>("llm.entry");
      if (!kind) {
        fn.emitOpError("llm.entry must be a string");
        return signalPassFailure();
      }
      if (failed(EntryEmitter(fn, kv, slots).run(kind.getValue())))
        return signalPassFailure();
    }
    Builder b(&getContext());
    SmallVector<Attribute> names;
    for (auto &slot : slots)
      names.push_back(b.getStringAttr(slot.first));
    module->setAttr("saguaro.weight_slots", b.getArrayAttr(names));
    for (func::FuncOp fn : entries)
      fn.erase();
  }
};
} // namespace
