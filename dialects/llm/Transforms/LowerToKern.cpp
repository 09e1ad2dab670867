//===- LowerToKern.cpp - llm-lower-to-kern ---------------------------------------------===//
//
// Turns each llm entry point into straight-line kernel calls over arena buffers. Tensor
// values become `kern.alloc` buffers; ops that the kernels compute in place (q/k norms,
// RoPE, residual adds) reuse their operand's buffer. The result is still unplanned:
// `kern-plan-memory` assigns the offsets. Buffers and calls keep the location of the op they
// come from; a buffer an op needs besides its result is named after it (dialects/common/
// ValueNames.h): the attention scores of `x_l3_attn` are `x_l3_attn_scores`.
//
//===------------------------------------------------------------------------------------===//
#include "dialects/llm/Transforms/Passes.h"

#include "dialects/cq/IR/CqDialect.h"
#include "dialects/cq/Transforms/Passes.h"
#include "dialects/common/ValueNames.h"
#include "dialects/kern/IR/KernelCatalogue.h"
#include "saguaro/kernels/kv_layout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace saguaro::llm {
#define GEN_PASS_DEF_LOWERTOKERN
#include "dialects/llm/Transforms/Passes.h.inc"
} // namespace saguaro::llm

using namespace mlir;
using namespace saguaro;
using namespace saguaro::llm;

namespace {
/// The KV caches: one per layer whose attention computes K/V, of kv_cache_positions(window, max_seq) positions
/// (saguaro/kernels/kv_layout.h: a ring of the window for a sliding layer), placed in layer order.
struct KvLayout {
  struct Cache {
    int64_t kvHeads, headDim, window;
    int64_t positions = 0; // S: the cache's slots
    int64_t offset = 0;    // first element of its K cache; V follows
    int64_t width() const { return kvHeads * headDim; }
  };
  std::map<int64_t, Cache> caches; // by layer
  int64_t totalElements = 0;

  void finalize(int64_t maxSeq) {
    for (auto &[layer, c] : caches) {
      c.positions = kernels::kv_cache_positions(c.window, maxSeq);
      c.offset = totalElements;
      totalElements += 2 * c.positions * c.width();
    }
  }
};

/// Lowers the ops of one entry function.
class FunctionLowering {
public:
  FunctionLowering(func::FuncOp fn, const KvLayout &kv, int64_t maxSeq, bool int8Activations,
                   DictionaryAttr weightBits)
      : fn(fn), b(fn.getContext()), kv(kv), maxSeq(maxSeq), int8Activations(int8Activations),
        weightBits(weightBits) {}

  LogicalResult run();

private:
  StringRef kind() {
    auto k = fn->getAttrOfType<StringAttr>("llm.entry");
    return k ? k.getValue() : StringRef();
  }
  bool isProbe() { return kind() == "probe"; }
  /// A tower's entry: its input rows in (an image's patches and their positions, llm.entry = "vision"; a clip's
  /// mel frames, "audio"; a streamed clip's next frames, "audio_step"), soft tokens out.
  bool isEncoder() { return kind() == "vision" || isAudio(); }
  bool isAudio() { return kind() == "audio" || isStep(); }
  /// A streamed clip's step: the stateful ops call their kernels' step forms, with rings in the stream's state
  /// (addressed as kern.kv offsets: the step's `state` argument takes the KV cache's place).
  bool isStep() { return kind() == "audio_step"; }
  /// The runtime parameter of an encoder's input rows.
  StringRef encoderInput() { return kind() == "vision" ? "patches" : "features"; }

  // Argument builders for kern.call.
  Attribute buffer(int64_t i) { return b.getIndexAttr(i); }
  Attribute param(StringRef name) { return kern::ParamAttr::get(b.getContext(), name); }
  Attribute weight(WeightAttr w) { return kern::WeightAttr::get(b.getContext(), w.getName()); }
  Attribute kvAt(int64_t element) { return kern::KvAttr::get(b.getContext(), element); }
  Attribute i64(int64_t v) { return b.getI64IntegerAttr(v); }
  /// A ring of `floats` in the stream's state, placed after the rings before it.
  Attribute ring(int64_t floats) {
    Attribute at = kvAt(stateFloats);
    stateFloats += floats;
    return at;
  }
  /// A step's rows of earlier steps at the row count `rows`: `start` mel frames, `start_2`, `start_4` after each
  /// subsampling.
  Attribute doneOf(Attribute rows) {
    return param(rows == param("rows") ? "start" : rows == param("rows_2") ? "start_2" : "start_4");
  }

  Value alloc(Location loc, ArrayRef<int64_t> shape) {
    return b.create<kern::AllocOp>(loc, MemRefType::get(shape, b.getF32Type()), IntegerAttr());
  }
  Value allocLike(Location loc, Value tensor) {
    return alloc(loc, cast<RankedTensorType>(tensor.getType()).getShape());
  }
  void call(Location loc, const kern::KernelSignature &kernel, ArrayRef<Attribute> templateArgs, ValueRange buffers,
            ArrayRef<Attribute> args) {
    b.create<kern::CallOp>(loc, buffers, b.getStringAttr(kernel.name), b.getArrayAttr(templateArgs),
                           b.getArrayAttr(args));
  }
  /// The stored layout of a weight before kern-pack-weights picks one for the target.
  Attribute unpacked(StringRef layout) { return kern::LayoutAttr::get(b.getContext(), layout); }
  /// The buffer of `v`, to be overwritten by `user`; fails when a later op still reads `v`.
  FailureOr<Value> inPlace(Operation *user, Value v) {
    // An encoder's patches are the entry's own copy (run()); its other arguments are never updated.
    bool ownPatches = isEncoder() && v == fn.getArgument(0) && v.hasOneUse();
    if (!ownPatches && !isLastUse(v, user))
      return user->emitOpError("updates its operand in place, but a later op still reads it");
    return buffers.lookup(v);
  }
  static int64_t features(Value v) { return cast<RankedTensorType>(v.getType()).getDimSize(1); }
  /// The runtime row count of activation `v`: the entry's `rows`, `soft_rows` downstream of a vision tower's
  /// pooling, `rows_2` and `rows_4` downstream of an audio tower's first and second subsampling.
  Attribute rowsOf(Value v) {
    Attribute r = rowParams.lookup(v);
    return r ? r : param("rows");
  }
  /// `v`'s buffer to update in place, or a copy of it when a later op still reads `v`.
  Value ownCopy(Operation *user, Value v, Location loc) {
    if (isLastUse(v, user))
      return buffers.lookup(v);
    Value copy = allocLike(loc, v);
    call(loc, kern::kCopyRowsF32, {i64(features(v))}, {buffers.lookup(v), copy},
         {rowsOf(v), buffer(0), buffer(1)});
    return copy;
  }
  /// The kernel for a float weight: `f16` when cq-quantize chose 16 bits for it (stored in IEEE binary16), else
  /// `f32`.
  const kern::KernelSignature &floatKernel(const kern::KernelSignature &f32, const kern::KernelSignature &f16,
                                           WeightAttr w) {
    IntegerAttr bits = weightBits ? weightBits.getAs<IntegerAttr>(w.getName()) : IntegerAttr();
    return bits && bits.getInt() == 16 ? f16 : f32;
  }

  LogicalResult lower(Operation *op);

  /// The CQ-rotated copy of activation `x` (rows x padded K), computed once per activation.
  Value rotated(Location loc, Value x) {
    Value &r = rotations[x];
    if (r)
      return r;
    auto type = cast<RankedTensorType>(x.getType());
    int64_t k = type.getDimSize(1), g = cq::groupSize(k);
    loc = names::derived(x.getLoc(), "rot"); // `x_l3_attn_norm_rot`, in the block of x
    r = alloc(loc, {type.getDimSize(0), (k + g - 1) / g * g});
    call(loc, kern::kCqRotateF32, {i64(k)}, {buffers.lookup(x), r},
         {rowsOf(x), buffer(0), buffer(1), param("parallel")});  // prefill splits its rows over the threads
    return r;
  }
  /// The int8-quantized copy of activation `x` (cq_quantize_act_i8 of its rotation): rows x act_row_bytes(K)
  /// bytes, allocated as floats (a quarter as many).
  Value quantized(Location loc, Value x) {
    Value &q = quantizations[x];
    if (q)
      return q;
    Value r = rotated(loc, x);
    auto type = cast<RankedTensorType>(x.getType());
    int64_t k = type.getDimSize(1), g = cq::groupSize(k), groups = (k + g - 1) / g;
    loc = names::derived(x.getLoc(), "i8");
    q = alloc(loc, {type.getDimSize(0), (groups * g + 8 * groups) / 4});
    call(loc, kern::kCqQuantizeActI8, {i64(k)}, {r, q}, {rowsOf(x), buffer(0), buffer(1)});
    return q;
  }
  /// The activation a CQ product reads: rotated floats, or their int8 quantization.
  Value cqInput(Location loc, Value x) { return int8Activations ? quantized(loc, x) : rotated(loc, x); }
  /// The kern.tap id of a hidden tap: its entry in the module's `kern.taps`, shared by prefill and decode.
  int64_t hiddenTapId(HiddenTapOp t) {
    ModuleOp module = fn->getParentOfType<ModuleOp>();
    SmallVector<Attribute> taps;
    if (auto list = module->getAttrOfType<ArrayAttr>("kern.taps"))
      taps.assign(list.begin(), list.end());
    int64_t cols = features(t.getInput());
    for (auto [id, tap] : llvm::enumerate(taps)) {
      auto entry = cast<DictionaryAttr>(tap);
      auto layer = entry.getAs<IntegerAttr>("layer");
      if (entry.getAs<StringAttr>("kind").getValue() == "hidden" && layer && layer.getInt() == t.getLayer())
        return static_cast<int64_t>(id);
    }
    taps.push_back(b.getDictionaryAttr({b.getNamedAttr("cols", b.getI64IntegerAttr(cols)),
                                        b.getNamedAttr("kind", b.getStringAttr("hidden")),
                                        b.getNamedAttr("layer", t.getLayerAttr())}));
    module->setAttr("kern.taps", b.getArrayAttr(taps));
    return static_cast<int64_t>(taps.size()) - 1;
  }
  /// The three blob tensors of a CQ weight: codes, norms, codebook.
  SmallVector<Attribute> cqWeights(WeightAttr w, cq::CodebookAttr cb) {
    std::string codebook = "cq.codebook.b" + std::to_string(cb.getBits()) + ".g" + std::to_string(cb.getGroup());
    return {kern::WeightAttr::get(b.getContext(), (w.getName() + ".codes").str()),
            kern::WeightAttr::get(b.getContext(), (w.getName() + ".norms").str()),
            kern::WeightAttr::get(b.getContext(), codebook)};
  }

  func::FuncOp fn;
  OpBuilder b;
  const KvLayout &kv;
  int64_t maxSeq;
  DenseMap<Value, Value> buffers;
  DenseMap<Value, Attribute> rowParams; // activations whose row count is not the entry's `rows`
  int64_t stateFloats = 0;              // a step entry's rings so far
  DenseMap<Value, Value> rotations;
  DenseMap<Value, Value> quantizations;
  /// Per cache layer: the last attention op of the entry that reads it (the chunk's store follows it), and the K
  /// and V buffers of the chunk, which the layer's own attention and the layers sharing its KV read.
  std::map<int64_t, Operation *> lastReader;
  std::map<int64_t, std::pair<Value, Value>> chunkKv;
  bool int8Activations;
  DictionaryAttr weightBits; // the module's cq.quantized: weight name -> bits
  Value logits;
};

LogicalResult FunctionLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  // An op runs over the rows of its first activation; a pooling's result has the soft-token rows.
  Attribute rows = op->getNumOperands() > 0 && isa<RankedTensorType>(op->getOperand(0).getType())
                       ? rowsOf(op->getOperand(0))
                       : param("rows"),
            pos0 = param("pos0");
  for (Value result : op->getResults())
    if (rows != param("rows"))
      rowParams[result] = rows;
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](EmbedOp e) {
        Value out = allocLike(loc, e);
        call(loc, floatKernel(kern::kEmbedF32, kern::kEmbedF16, e.getTable()), {i64(features(e))}, out,
             {rows, param("tokens"), weight(e.getTable()), e.getScaleAttr(), buffer(0)});
        buffers[e] = out;
        return success();
      })
      .Case([&](RmsNormOp n) {
        Value out = allocLike(loc, n);
        call(loc, kern::kRmsnormF32, {i64(features(n)), n.getAddOneAttr()},
             {buffers.lookup(n.getInput()), out},
             {rows, buffer(0), weight(n.getWeight()), n.getEpsAttr(), buffer(1)});
        buffers[n] = out;
        return success();
      })
      .Case([&](AddRmsNormOp n) -> LogicalResult {
        FailureOr<Value> residual = inPlace(n, n.getResidual());
        if (failed(residual))
          return failure();
        Value out = allocLike(loc, n.getNormed());
        call(loc, kern::kAddRmsnormF32, {i64(features(n.getSum())), n.getAddOneAttr()},
             {*residual, buffers.lookup(n.getDelta()), out},
             {rows, buffer(0), buffer(1), weight(n.getWeight()), n.getEpsAttr(), buffer(2)});
        buffers[n.getSum()] = *residual;
        buffers[n.getNormed()] = out;
        return success();
      })
      .Case([&](HeadRmsNormOp n) -> LogicalResult {
        FailureOr<Value> x = inPlace(n, n.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kHeadRmsnormF32, {n.getHeadsAttr(), n.getHeadDimAttr(), n.getAddOneAttr()}, *x,
             {rows, buffer(0), weight(n.getWeight()), n.getEpsAttr()});
        buffers[n] = *x;
        return success();
      })
      .Case([&](LinearOp l) {
        Value out = allocLike(loc, l);
        call(loc, floatKernel(kern::kMatmulF32, kern::kMatmulF16, l.getWeight()), {i64(features(l.getInput())), i64(features(l))},
             {buffers.lookup(l.getInput()), out},
             {rows, buffer(0), weight(l.getWeight()), buffer(1), param("parallel")});
        buffers[l] = out;
        return success();
      })
      .Case([&](RopeOp r) -> LogicalResult {
        FailureOr<Value> x = inPlace(r, r.getInput());
        if (failed(x))
          return failure();
        SmallVector<Attribute> args = {rows, pos0, buffer(0), r.getThetaAttr(), r.getPosScaleAttr()};
        if (std::optional<ArrayRef<float>> l3 = r.getLlama3())
          for (float v : *l3)
            args.push_back(b.getF32FloatAttr(v));
        SmallVector<Attribute> shape = {i64(features(r) / r.getHeadDim()), r.getHeadDimAttr(), r.getStyleAttr()};
        if (IntegerAttr pairs = r.getRotaryPairsAttr(); pairs && pairs.getInt() != r.getHeadDim() / 2)
          shape.push_back(pairs); // partial rotary; left out when every pair rotates
        call(loc, kern::kRopeF32, shape, *x, args);
        buffers[r] = *x;
        return success();
      })
      .Case([&](AttentionOp a) -> LogicalResult {
        int64_t layer = a.getCacheLayer();
        auto found = kv.caches.find(layer);
        if (found == kv.caches.end())
          return a.emitOpError() << "reads the KV cache of layer " << layer
                                 << ", which no attention op with k and v fills";
        const KvLayout::Cache &cache = found->second;
        if (cache.width() != a.getKvHeads() * a.getHeadDim())
          return a.emitOpError() << "reads the cache of layer " << layer << " with kv width "
                                 << a.getKvHeads() * a.getHeadDim() << ", but that cache has " << cache.width();
        if (kernels::kv_cache_positions(a.getWindow(), maxSeq) > cache.positions)
          return a.emitOpError() << "attends over " << kernels::kv_cache_positions(a.getWindow(), maxSeq)
                                 << " positions, but the cache of layer " << layer << " keeps only the last "
                                 << cache.positions;
        if (a.getK() && !chunkKv.try_emplace(layer, buffers.lookup(a.getK()), buffers.lookup(a.getV())).second)
          return a.emitOpError() << "computes the K/V of layer " << layer << " a second time in this entry";
        auto chunk = chunkKv.find(layer);
        if (chunk == chunkKv.end())
          return a.emitOpError() << "reads the K/V of layer " << layer
                                 << ", which no earlier attention op of this entry computes";
        auto [k, v] = chunk->second;
        // Caches are head-major, [kv_heads][positions][head_dim], position t in slot t % positions
        // (generic/attention.h). While the entry runs they hold the positions before pos0 only: attention reads the
        // chunk's own positions from its k and v buffers, and the chunk is stored after the last attention that
        // reads the cache (a layer sharing this KV reads the same buffers, which stay live until then).
        int64_t kOffset = cache.offset, vOffset = kOffset + cache.positions * cache.width();
        int64_t rowsStatic = cast<RankedTensorType>(a.getType()).getDimSize(0);
        Value scratch = alloc(names::derived(loc, "scores"),
                              {kernels::attention_scratch_floats(cache.kvHeads, cache.headDim, cache.positions,
                                                                 rowsStatic)});
        Value out = allocLike(loc, a);
        // A zero scale means "divide by sqrt(head_dim)", llama2.c's exact float operation.
        bool divide = a.getScale().isZero();
        call(loc, kern::kAttentionF32,
             {a.getHeadsAttr(), a.getKvHeadsAttr(), a.getHeadDimAttr(), i64(cache.positions), a.getWindowAttr(),
              b.getBoolAttr(divide)},
             {buffers.lookup(a.getQ()), k, v, scratch, out},
             {rows, pos0, buffer(0), buffer(1), buffer(2), kvAt(kOffset), kvAt(vOffset), a.getScaleAttr(),
              a.getSoftcapAttr(), buffer(3), buffer(4), param("parallel")});
        // Named after the cache it fills: kern-lower-to-emitc calls its K and V pointers kv_l3_k and kv_l3_v.
        if (lastReader.at(layer) == a.getOperation())
          call(names::renamed(loc, "kv_l" + Twine(layer)), kern::kKvStoreF32,
               {i64(cache.kvHeads), i64(cache.headDim), i64(cache.positions)}, {k, v},
               {rows, pos0, buffer(0), buffer(1), kvAt(kOffset), kvAt(vOffset)});
        buffers[a] = out;
        return success();
      })
      .Case([&](GatedMlpOp m) {
        int64_t rowsStatic = cast<RankedTensorType>(m.getType()).getDimSize(0);
        int64_t dim = features(m), hidden = m.getHidden();
        Value x = buffers.lookup(m.getInput());
        Value gate = alloc(names::derived(loc, "gate"), {rowsStatic, hidden}),
              up = alloc(names::derived(loc, "up"), {rowsStatic, hidden});
        call(loc, floatKernel(kern::kMatmulF32, kern::kMatmulF16, m.getGate()), {i64(dim), i64(hidden)}, {x, gate},
             {rows, buffer(0), weight(m.getGate()), buffer(1), param("parallel")});
        call(loc, floatKernel(kern::kMatmulF32, kern::kMatmulF16, m.getUp()), {i64(dim), i64(hidden)}, {x, up},
             {rows, buffer(0), weight(m.getUp()), buffer(1), param("parallel")});
        call(loc, kern::kGatedActF32, {i64(hidden), i64(m.getAct() == "silu" ? 0 : 1)}, {gate, up},
             {rows, buffer(0), buffer(1), buffer(0)});
        Value out = allocLike(loc, m);
        call(loc, floatKernel(kern::kMatmulF32, kern::kMatmulF16, m.getDown()), {i64(hidden), i64(dim)}, {gate, out},
             {rows, buffer(0), weight(m.getDown()), buffer(1), param("parallel")});
        buffers[m] = out;
        return success();
      })
      .Case([&](AddOp a) -> LogicalResult {
        Value acc = a.getLhs(), x = a.getRhs();
        if (!isLastUse(acc, a))
          std::swap(acc, x);
        FailureOr<Value> accBuffer = inPlace(a, acc);
        if (failed(accBuffer))
          return failure();
        call(loc, kern::kAddF32, {i64(features(a))}, {*accBuffer, buffers.lookup(x)},
             {rows, buffer(0), buffer(1)});
        buffers[a] = *accBuffer;
        return success();
      })
      .Case([&](ScaleOp sc) -> LogicalResult {
        FailureOr<Value> x = inPlace(sc, sc.getInput());
        if (failed(x))
          return failure();
        SmallVector<Attribute> args = {rows, buffer(0), sc.getFactorAttr()};
        if (WeightAttr w = sc.getWeightAttr())
          args.push_back(weight(w));
        call(loc, kern::kScaleF32, {i64(features(sc))}, *x, args);
        buffers[sc] = *x;
        return success();
      })
      .Case([&](ColumnSliceOp sl) {
        Value out = allocLike(loc, sl);
        call(loc, kern::kColumnSliceF32, {i64(features(sl.getInput())), sl.getOffsetAttr(), i64(features(sl))},
             {buffers.lookup(sl.getInput()), out}, {rows, buffer(0), buffer(1)});
        buffers[sl] = out;
        return success();
      })
      .Case([&](HiddenTapOp t) {
        b.create<kern::TapOp>(loc, buffers.lookup(t.getInput()), hiddenTapId(t));
        return success();
      })
      .Case([&](ProbeHeadOp p) {
        int64_t maxRows = cast<RankedTensorType>(p.getInput().getType()).getDimSize(0), h = p.getH();
        Value z = alloc(names::derived(loc, "z"), {maxRows, h}),
              scores = alloc(names::derived(loc, "scores"), {maxRows});
        SmallVector<Attribute> args = {rows, param("hidden")};
        for (const char *name : {"gamma", "beta", "w0", "b0", "query", "w1", "b1", "w2", "b2", "w3", "b3"})
          args.push_back(kern::WeightAttr::get(b.getContext(), (p.getPrefix() + name).str()));
        args.append({buffer(0), buffer(1), param("p_wrong")});
        call(loc, kern::kProbeHeadF32, {i64(features(p.getInput())), p.getHAttr(), p.getM1Attr(), p.getM2Attr()},
             {z, scores}, args);
        logits = p; // the value the entry returns
        return success();
      })
      .Case([&](LogitsOp l) {
        int64_t vocab = features(l);
        call(loc, floatKernel(kern::kLogitsF32, kern::kLogitsF16, l.getWeight()), {i64(features(l.getInput())), i64(vocab)},
             buffers.lookup(l.getInput()),
             {rows, param("all_logits"), buffer(0), weight(l.getWeight()), param("logits"), param("parallel")});
        if (!l.getSoftcap().isZero())
          call(loc, kern::kSoftcapF32, {i64(vocab)}, {},
               {param("logit_rows"), param("logits"), l.getSoftcapAttr()});
        logits = l;
        return success();
      })
      .Case([&](GluOp g) {
        Value out = allocLike(loc, g);
        call(loc, kern::kGatedActF32, {i64(features(g)), i64(g.getAct() == "silu" ? 0 : 1)},
             {buffers.lookup(g.getGate()), buffers.lookup(g.getUp()), out},
             {rows, buffer(0), buffer(1), buffer(2)});
        buffers[g] = out;
        return success();
      })
      .Case([&](cq::MatmulOp m) {
        Value xr = cqInput(loc, m.getInput());
        Value out = allocLike(loc, m);
        SmallVector<Attribute> w = cqWeights(m.getWeight(), m.getCodebook());
        SmallVector<Attribute> shape = {i64(features(m.getInput())), i64(features(m)), i64(m.getCodebook().getBits())};
        if (int8Activations)
          shape.push_back(unpacked("cq-lsb"));
        SmallVector<Attribute> args = {rows, buffer(0), w[0], w[1], w[2], buffer(1)};
        if (int8Activations)
          args.push_back(param("parallel")); // the integer kernels split their columns over the threads
        call(loc, int8Activations ? kern::kCqMatmulI8 : kern::kCqMatmulF32, shape, {xr, out}, args);
        buffers[m] = out;
        return success();
      })
      .Case([&](cq::LogitsOp l) {
        int64_t vocab = features(l);
        Value xr = cqInput(loc, l.getInput());
        SmallVector<Attribute> w = cqWeights(l.getWeight(), l.getCodebook());
        SmallVector<Attribute> shape = {i64(features(l.getInput())), i64(vocab), i64(l.getCodebook().getBits())};
        if (int8Activations)
          shape.push_back(unpacked("cq-lsb"));
        SmallVector<Attribute> args = {rows, param("all_logits"), buffer(0), w[0], w[1], w[2], param("logits")};
        if (int8Activations)
          args.push_back(param("parallel"));
        call(loc, int8Activations ? kern::kCqLogitsI8 : kern::kCqLogitsF32, shape, xr, args);
        if (!l.getSoftcap().isZero())
          call(loc, kern::kSoftcapF32, {i64(vocab)}, {}, {param("logit_rows"), param("logits"), l.getSoftcapAttr()});
        logits = l;
        return success();
      })
      .Case([&](cq::GatherOp e) {
        Value out = allocLike(loc, e);
        SmallVector<Attribute> w = cqWeights(e.getTable(), e.getCodebook());
        call(loc, kern::kCqEmbedF32, {i64(features(e)), i64(e.getCodebook().getBits())}, out,
             {rows, param("tokens"), w[0], w[1], w[2], e.getScaleAttr(), buffer(0)});
        buffers[e] = out;
        return success();
      })
      .Case([&](ShiftScaleOp sc) -> LogicalResult {
        FailureOr<Value> x = inPlace(sc, sc.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kShiftScaleF32, {i64(features(sc))}, *x,
             {rows, buffer(0), sc.getShiftAttr(), sc.getScaleAttr()});
        buffers[sc] = *x;
        return success();
      })
      .Case([&](ClampOp c) {
        // A clipped linear's input is often another's too (q, k and v read one activation): clamp a copy.
        Value x = ownCopy(c, c.getInput(), loc);
        call(loc, kern::kClampF32, {i64(features(c))}, x, {rows, buffer(0), weight(c.getLo()), weight(c.getHi())});
        buffers[c] = x;
        return success();
      })
      .Case([&](StandardizeOp sd) -> LogicalResult {
        FailureOr<Value> x = inPlace(sd, sd.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kStandardizeF32, {i64(features(sd))}, *x,
             {rows, buffer(0), weight(sd.getBias()), weight(sd.getScale())});
        buffers[sd] = *x;
        return success();
      })
      .Case([&](PositionEmbed2dOp pe) -> LogicalResult {
        FailureOr<Value> x = inPlace(pe, pe.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kPositionEmbed2dF32, {i64(features(pe)), pe.getTableRowsAttr()}, *x,
             {rows, param("positions"), weight(pe.getTable()), buffer(0)});
        buffers[pe] = *x;
        return success();
      })
      .Case([&](Rope2dOp r) -> LogicalResult {
        FailureOr<Value> x = inPlace(r, r.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kRope2dF32, {r.getHeadsAttr(), r.getHeadDimAttr()}, *x,
             {rows, param("positions"), buffer(0), r.getThetaAttr()});
        buffers[r] = *x;
        return success();
      })
      .Case([&](BidirectionalAttentionOp a) {
        Value out = allocLike(loc, a);
        call(loc, kern::kAttentionFullF32, {a.getHeadsAttr(), a.getKvHeadsAttr(), a.getHeadDimAttr()},
             {buffers.lookup(a.getQ()), buffers.lookup(a.getK()), buffers.lookup(a.getV()), out},
             {rows, buffer(0), buffer(1), buffer(2), a.getScaleAttr(), buffer(3), param("parallel")});
        buffers[a] = out;
        return success();
      })
      .Case([&](PoolPatchesOp p) {
        Value out = allocLike(loc, p);
        call(loc, kern::kPoolPatchesF32, {i64(features(p)), p.getKernelAttr()}, {buffers.lookup(p.getInput()), out},
             {rows, param("positions"), buffer(0), p.getScaleAttr(), buffer(1)});
        buffers[p] = out;
        rowParams[p] = param("soft_rows");
        return success();
      })
      .Case([&](SubsampleConvOp c) -> LogicalResult {
        // Each subsampling halves the frames: rows -> rows_2 -> rows_4 (defined by the entry's ABI).
        Attribute half = rows == param("rows") ? param("rows_2") : rows == param("rows_2") ? param("rows_4") : Attribute();
        if (!half)
          return c.emitOpError("subsamples frames that are already subsampled twice");
        Value out = allocLike(loc, c);
        if (isStep()) {
          call(loc, kern::kSubsampleConvStepF32,
               {i64(c.getInFreq()), c.getInChannelsAttr(), i64(c.getOutChannels())}, {buffers.lookup(c.getInput()), out},
               {rows, doneOf(rows), ring(features(c.getInput())), buffer(0), weight(c.getWeight()),
                weight(c.getNorm()), c.getEpsAttr(), buffer(1), param("parallel")});
          buffers[c] = out;
          rowParams[c] = half;
          return success();
        }
        call(loc, kern::kSubsampleConvF32, {i64(c.getInFreq()), c.getInChannelsAttr(), i64(c.getOutChannels())},
             {buffers.lookup(c.getInput()), out},
             {rows, buffer(0), weight(c.getWeight()), weight(c.getNorm()), c.getEpsAttr(), buffer(1),
              param("parallel")});
        buffers[c] = out;
        rowParams[c] = half;
        return success();
      })
      .Case([&](LocalAttentionOp a) {
        int64_t width = features(a);
        Value out = allocLike(loc, a);
        if (isStep()) {
          Attribute ringK = ring((a.getPast() - 1) * width), ringV = ring((a.getPast() - 1) * width);
          call(loc, kern::kLocalAttentionStepF32,
               {a.getHeadsAttr(), a.getHeadDimAttr(), a.getPastAttr(), a.getFutureAttr(), i64(a.getTableEnd())},
               {buffers.lookup(a.getQ()), buffers.lookup(a.getK()), buffers.lookup(a.getV()), out},
               {rows, doneOf(rows), ringK, ringV, buffer(0), buffer(1), buffer(2), weight(a.getPerDimScale()),
                weight(a.getRelativeTable()), a.getCapAttr(), buffer(3), param("parallel")});
          buffers[a] = out;
          return success();
        }
        call(loc, kern::kLocalAttentionF32,
             {a.getHeadsAttr(), a.getHeadDimAttr(), a.getPastAttr(), a.getFutureAttr(), i64(a.getTableEnd())},
             {buffers.lookup(a.getQ()), buffers.lookup(a.getK()), buffers.lookup(a.getV()), out},
             {rows, buffer(0), buffer(1), buffer(2), weight(a.getPerDimScale()), weight(a.getRelativeTable()),
              a.getCapAttr(), buffer(3), param("parallel")});
        buffers[a] = out;
        return success();
      })
      .Case([&](GatedCausalConvOp c) {
        Value gated = alloc(names::derived(loc, "glu"), cast<RankedTensorType>(c.getType()).getShape());
        Value out = allocLike(loc, c);
        if (isStep()) {
          call(loc, kern::kGatedCausalConvStepF32, {i64(features(c)), c.getKernelAttr()},
               {buffers.lookup(c.getInput()), gated, out},
               {rows, doneOf(rows), ring((c.getKernel() - 1) * features(c)), buffer(0), weight(c.getWeight()),
                buffer(1), buffer(2)});
          buffers[c] = out;
          return success();
        }
        call(loc, kern::kGatedCausalConvF32, {i64(features(c)), c.getKernelAttr()},
             {buffers.lookup(c.getInput()), gated, out}, {rows, buffer(0), weight(c.getWeight()), buffer(1), buffer(2)});
        buffers[c] = out;
        return success();
      })
      .Case([&](SiluOp s) -> LogicalResult {
        FailureOr<Value> x = inPlace(s, s.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kSiluRowsF32, {i64(features(s))}, *x, {rows, buffer(0)});
        buffers[s] = *x;
        return success();
      })
      .Case([&](AddBiasOp ab) -> LogicalResult {
        FailureOr<Value> x = inPlace(ab, ab.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kAddBiasF32, {i64(features(ab))}, *x, {rows, buffer(0), weight(ab.getBias())});
        buffers[ab] = *x;
        return success();
      })
      .Case([&](InjectEmbeddingsOp ie) -> LogicalResult {
        FailureOr<Value> x = inPlace(ie, ie.getInput());
        if (failed(x))
          return failure();
        call(loc, kern::kInjectRowsF32, {i64(features(ie))}, *x,
             {rows, param("soft_embeds"), param("soft_mask"), buffer(0)});
        buffers[ie] = *x;
        return success();
      })
      .Case([&](func::ReturnOp r) -> LogicalResult {
        if (isEncoder()) {
          // The soft tokens leave the arena for the caller's buffer.
          if (r.getNumOperands() != 1)
            return r.emitOpError("an encoder entry point returns its soft tokens");
          Value result = r.getOperand(0);
          call(loc, kern::kCopyRowsF32, {i64(features(result))}, buffers.lookup(result),
               {rowsOf(result), buffer(0), param("soft_tokens")});
          return success();
        }
        if (r.getNumOperands() != 1 || r.getOperand(0) != logits)
          return r.emitOpError("an llm entry point must return the result of llm.logits (llm.probe_head in a "
                               "probe entry)");
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("cannot be lowered to kern");
      });
}

LogicalResult FunctionLowering::run() {
  Block &body = fn.getBody().front();
  auto argType = [&](unsigned i) {
    return i < fn.getNumArguments() ? dyn_cast<RankedTensorType>(fn.getArgument(i).getType()) : RankedTensorType();
  };
  RankedTensorType input = argType(0);
  if (isAudio()) {
    if (fn.getNumArguments() != 1 || !input || input.getRank() != 2 || !input.getElementType().isF32())
      return fn.emitOpError("an audio entry point takes exactly one argument: the mel frames (tensor<Txmelxf32>)");
  } else if (isEncoder()) {
    RankedTensorType positions = argType(1);
    if (fn.getNumArguments() != 2 || !input || input.getRank() != 2 || !input.getElementType().isF32() ||
        !positions || positions.getRank() != 2 || positions.getDimSize(1) != 2 ||
        !positions.getElementType().isInteger(32) || positions.getDimSize(0) != input.getDimSize(0))
      return fn.emitOpError("an encoder entry point takes its patch rows (tensor<Rxwxf32>) and their positions "
                            "(tensor<Rx2xi32>)");
  } else if (isProbe()) {
    if (fn.getNumArguments() != 1 || !input || input.getRank() != 2 || !input.getElementType().isF32())
      return fn.emitOpError("a probe entry point takes exactly one argument: the hidden rows (tensor<Txdxf32>)");
  } else if (fn.getNumArguments() != 1 || !input || input.getRank() != 1 || !input.getElementType().isInteger(32)) {
    return fn.emitOpError("an llm entry point takes exactly one argument: the token ids (tensor<Txi32>)");
  }
  SmallVector<Operation *> ops;
  for (Operation &op : body) {
    ops.push_back(&op);
    if (auto a = dyn_cast<AttentionOp>(op))
      lastReader[a.getCacheLayer()] = a;
  }
  if (isEncoder()) {
    // The input rows, read-only to the entry, are copied into its arena.
    b.setInsertionPointToStart(&body);
    Location loc = names::at(fn.getContext(), ("x_" + encoderInput()).str(), encoderInput());
    Value rowsIn = alloc(loc, input.getShape());
    call(loc, kern::kCopyRowsF32, {i64(input.getDimSize(1))}, rowsIn,
         {param("rows"), param(encoderInput()), buffer(0)});
    buffers[fn.getArgument(0)] = rowsIn;
  }
  for (Operation *op : ops) {
    // Every activation operand must come from an op lowered before (the tokens, or a probe's hidden rows, are
    // a parameter).
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()) && !isa<BlockArgument>(operand) &&
          !buffers.count(operand) && !isa<func::ReturnOp>(op))
        return op->emitOpError("reads a value that has no buffer (the logits or an unsupported producer)");
    if (failed(lower(op)))
      return failure();
  }
  // Drop the tensor ops (users first), the arguments and the returned value.
  b.setInsertionPoint(body.getTerminator());
  b.create<func::ReturnOp>(body.getTerminator()->getLoc());
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  body.eraseArguments(0, body.getNumArguments());
  fn.setFunctionType(FunctionType::get(fn.getContext(), {}, {}));
  if (isStep()) // the stream's state: EncoderSpec::state_bytes
    fn->getParentOfType<ModuleOp>()->setAttr("kern.audio_state_bytes", b.getI64IntegerAttr(stateFloats * 4));
  return success();
}

struct LowerToKernPass : llm::impl::LowerToKernBase<LowerToKernPass> {
  using LowerToKernBase::LowerToKernBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto maxSeqAttr = module->getAttrOfType<IntegerAttr>("llm.max_seq");
    if (!maxSeqAttr || maxSeqAttr.getInt() <= 0) {
      module.emitError("llm-lower-to-kern needs a positive module attribute llm.max_seq");
      return signalPassFailure();
    }
    int64_t maxSeq = maxSeqAttr.getInt();
    if (cqActivations != "f32" && cqActivations != "i8") {
      module.emitError("llm-lower-to-kern: cq-activations must be f32 or i8, got '") << cqActivations << "'";
      return signalPassFailure();
    }
    if (kvCache != "f32" && kvCache != "f16") {
      module.emitError("llm-lower-to-kern: kv-cache must be f32 or f16, got '") << kvCache << "'";
      return signalPassFailure();
    }

    KvLayout kv;
    // Only ops that store K/V own a cache; the others read an owner's (checked when they are lowered).
    WalkResult layout = module.walk([&](AttentionOp a) {
      if (!a.getK())
        return WalkResult::advance();
      KvLayout::Cache cache{a.getKvHeads(), a.getHeadDim(), a.getWindow()};
      auto [it, inserted] = kv.caches.try_emplace(a.getLayer(), cache);
      if (!inserted && it->second.width() != cache.width()) {
        a.emitOpError() << "layer " << a.getLayer() << " has kv width " << cache.width()
                        << " here but " << it->second.width() << " elsewhere";
        return WalkResult::interrupt();
      }
      if (!inserted && it->second.window != cache.window) {
        a.emitOpError() << "layer " << a.getLayer() << " has window " << cache.window << " here but "
                        << it->second.window << " elsewhere";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (layout.wasInterrupted())
      return signalPassFailure();
    kv.finalize(maxSeq);

    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!fn->hasAttr("llm.entry"))
        continue;
      if (failed(FunctionLowering(fn, kv, maxSeq, cqActivations == "i8",
                                  module->getAttrOfType<DictionaryAttr>("cq.quantized"))
                     .run()))
        return signalPassFailure();
    }
    int64_t elementBytes = kvCache == "f16" ? 2 : 4;
    module->setAttr("kern.kv_bytes",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64), kv.totalElements * elementBytes));
    module->setAttr("kern.kv_type", StringAttr::get(&getContext(), kvCache));
    // Each cache's shape, for the manifest.
    OpBuilder b(&getContext());
    SmallVector<Attribute> caches;
    for (const auto &[layer, c] : kv.caches)
      caches.push_back(b.getDictionaryAttr({b.getNamedAttr("head_dim", b.getI64IntegerAttr(c.headDim)),
                                            b.getNamedAttr("kv_heads", b.getI64IntegerAttr(c.kvHeads)),
                                            b.getNamedAttr("layer", b.getI64IntegerAttr(layer)),
                                            b.getNamedAttr("positions", b.getI64IntegerAttr(c.positions)),
                                            b.getNamedAttr("window", b.getI64IntegerAttr(c.window))}));
    module->setAttr("kern.kv_caches", b.getArrayAttr(caches));
  }
};
} // namespace
