//===- LlmDialect.cpp - llm dialect registration and verifiers -------------------------===//
#include "dialects/llm/IR/LlmDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace saguaro::llm;

#include "dialects/llm/IR/LlmOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/llm/IR/LlmAttrs.cpp.inc"

void LlmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/llm/IR/LlmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/llm/IR/LlmAttrs.cpp.inc"
      >();
}

bool saguaro::llm::isLastUse(Value value, Operation *user) {
  if (isa<BlockArgument>(value))
    return false; // entry arguments belong to the caller
  for (Operation *other : value.getUsers())
    if (other != user && (other->getBlock() != user->getBlock() || !other->isBeforeInBlock(user)))
      return false;
  return true;
}

namespace {
/// Rows (dim 0) and features (dim 1) of a 2-D activation type.
int64_t rowsOf(Type t) { return cast<RankedTensorType>(t).getDimSize(0); }
int64_t featuresOf(Type t) { return cast<RankedTensorType>(t).getDimSize(1); }

/// Checks that `a` and `b` have the same number of rows.
LogicalResult sameRows(Operation *op, Type a, Type b) {
  if (rowsOf(a) != rowsOf(b))
    return op->emitOpError() << "row counts differ: " << rowsOf(a) << " vs " << rowsOf(b);
  return success();
}
} // namespace

/// The type after `: type($q)` of llm.attention: `, type` of k and v (one type for both), or nothing when the op
/// has no k and v.
static ParseResult parseKvType(OpAsmParser &parser, Type &k, Type &v) {
  if (failed(parser.parseOptionalComma()))
    return success();
  if (parser.parseType(k))
    return failure();
  v = k;
  return success();
}
static void printKvType(OpAsmPrinter &printer, Operation *, Type k, Type) {
  if (k)
    printer << ", " << k;
}

LogicalResult EmbedOp::verify() {
  auto tokens = cast<RankedTensorType>(getTokens().getType());
  if (tokens.getDimSize(0) != rowsOf(getType()))
    return emitOpError() << "has " << tokens.getDimSize(0) << " tokens but "
                         << rowsOf(getType()) << " result rows";
  return success();
}

LogicalResult HeadRmsNormOp::verify() {
  if (getHeadsAttr().getInt() <= 0 || getHeadDimAttr().getInt() <= 0)
    return emitOpError("heads and head_dim must be positive");
  if (static_cast<int64_t>(getHeads() * getHeadDim()) != featuresOf(getType()))
    return emitOpError() << "heads * head_dim = " << getHeads() * getHeadDim()
                         << " but rows have " << featuresOf(getType()) << " features";
  return success();
}

LogicalResult LinearOp::verify() { return sameRows(*this, getInput().getType(), getType()); }

LogicalResult RopeOp::verify() {
  if (getHeadDimAttr().getInt() <= 0 || getHeadsAttr().getInt() <= 0)
    return emitOpError("heads and head_dim must be positive");
  if (getHeadDim() % 2 != 0)
    return emitOpError() << "head_dim must be even, got " << getHeadDim();
  if (getStyle() != 0 && getStyle() != 1)
    return emitOpError() << "style must be 0 (interleaved) or 1 (halves), got " << getStyle();
  if (featuresOf(getType()) % getHeadDim() != 0)
    return emitOpError() << "features " << featuresOf(getType())
                         << " are not a multiple of head_dim " << getHeadDim();
  if (IntegerAttr pairs = getRotaryPairsAttr(); pairs && (pairs.getInt() < 0 || pairs.getInt() > getHeadDim() / 2))
    return emitOpError() << "rotary_pairs must be between 0 and head_dim / 2 = " << getHeadDim() / 2 << ", got "
                         << pairs.getInt();
  if (std::optional<ArrayRef<float>> l3 = getLlama3()) {
    if (l3->size() != 4)
      return emitOpError() << "llama3 must be [factor, low_freq_factor, high_freq_factor, "
                              "original_max_position_embeddings], got "
                           << l3->size() << " values";
    float factor = (*l3)[0], low = (*l3)[1], high = (*l3)[2], context = (*l3)[3];
    if (!(factor > 0) || !(low > 0) || !(high > low) || !(context > 0))
      return emitOpError("llama3 needs factor > 0, 0 < low_freq_factor < high_freq_factor and a "
                         "positive original_max_position_embeddings");
  }
  return success();
}

LogicalResult HiddenTapOp::verify() {
  if (getLayer() < 1)
    return emitOpError() << "layer must be at least 1 (the output of the first decoder layer), got "
                         << getLayer();
  return success();
}

LogicalResult ProbeHeadOp::verify() {
  if (getH() <= 0 || getM1() <= 0 || getM2() <= 0)
    return emitOpError("h, m1 and m2 must be positive");
  auto result = cast<RankedTensorType>(getType());
  if (result.getDimSize(0) != 1 || result.getDimSize(1) != 1)
    return emitOpError() << "returns one probability as tensor<1x1xf32>, got " << result;
  return success();
}

LogicalResult AttentionOp::verify() {
  int64_t hd = getHeadDimAttr().getInt();
  if (getHeadsAttr().getInt() <= 0 || hd <= 0 || getKvHeadsAttr().getInt() <= 0)
    return emitOpError("heads, kv_heads and head_dim must be positive");
  if (getHeads() % getKvHeads() != 0)
    return emitOpError() << "heads (" << getHeads() << ") must be a multiple of kv_heads ("
                         << getKvHeads() << ")";
  if (featuresOf(getQ().getType()) != getHeads() * hd)
    return emitOpError() << "q has " << featuresOf(getQ().getType())
                         << " features, expected heads * head_dim = " << getHeads() * hd;
  if (getWindowAttr().getInt() < 0)
    return emitOpError() << "window must be >= 0, got " << getWindowAttr().getInt();
  if (!getK()) {
    if (!getKvLayerAttr())
      return emitOpError("without k and v it needs kv_layer, the layer whose cache it reads");
    if (getKvLayerAttr().getInt() < 0 || getKvLayerAttr().getInt() == getLayer())
      return emitOpError() << "kv_layer must be another layer's index, got " << getKvLayerAttr().getInt();
    return success();
  }
  if (getKvLayerAttr())
    return emitOpError("has k and v, so it stores into its own cache: kv_layer names the cache of an op "
                       "without k and v");
  if (featuresOf(getK().getType()) != getKvHeads() * hd || getK().getType() != getV().getType())
    return emitOpError() << "k and v must both have kv_heads * head_dim = " << getKvHeads() * hd
                         << " features";
  return sameRows(*this, getQ().getType(), getK().getType());
}

LogicalResult ColumnSliceOp::verify() {
  int64_t in = featuresOf(getInput().getType()), width = featuresOf(getType());
  if (getOffset() < 0 || getOffset() + width > in)
    return emitOpError() << "columns [" << getOffset() << ", " << getOffset() + width << ") lie outside the "
                         << in << " input columns";
  return sameRows(*this, getInput().getType(), getType());
}

LogicalResult GatedMlpOp::verify() {
  if (getAct() != "silu" && getAct() != "gelu_tanh")
    return emitOpError() << "act must be \"silu\" or \"gelu_tanh\", got \"" << getAct() << "\"";
  if (getHiddenAttr().getInt() <= 0)
    return emitOpError() << "hidden must be positive";
  return success();
}

LogicalResult GluOp::verify() {
  if (getAct() != "silu" && getAct() != "gelu_tanh")
    return emitOpError() << "act must be \"silu\" or \"gelu_tanh\", got \"" << getAct() << "\"";
  return success();
}

LogicalResult LogitsOp::verify() { return sameRows(*this, getInput().getType(), getType()); }

#define GET_OP_CLASSES
#include "dialects/llm/IR/LlmOps.cpp.inc"

LogicalResult PositionEmbed2dOp::verify() {
  if (getTableRows() <= 0)
    return emitOpError() << "table_rows must be positive, got " << getTableRows();
  if (featuresOf(getPositions().getType()) != 2)
    return emitOpError() << "positions must have 2 columns (column, row), got "
                         << featuresOf(getPositions().getType());
  return sameRows(*this, getInput().getType(), getPositions().getType());
}

LogicalResult Rope2dOp::verify() {
  int64_t hd = getHeadDim();
  if (getHeads() <= 0 || hd <= 0 || hd % 4 != 0)
    return emitOpError() << "heads must be positive and head_dim a positive multiple of 4, got " << getHeads()
                         << " and " << hd;
  if (featuresOf(getInput().getType()) != getHeads() * hd)
    return emitOpError() << "input has " << featuresOf(getInput().getType())
                         << " features, expected heads * head_dim = " << getHeads() * hd;
  if (featuresOf(getPositions().getType()) != 2)
    return emitOpError() << "positions must have 2 columns (column, row), got "
                         << featuresOf(getPositions().getType());
  return sameRows(*this, getInput().getType(), getPositions().getType());
}

LogicalResult BidirectionalAttentionOp::verify() {
  int64_t hd = getHeadDim();
  if (getHeads() <= 0 || getKvHeads() <= 0 || hd <= 0)
    return emitOpError("heads, kv_heads and head_dim must be positive");
  if (getHeads() % getKvHeads() != 0)
    return emitOpError() << "heads (" << getHeads() << ") must be a multiple of kv_heads (" << getKvHeads() << ")";
  if (featuresOf(getQ().getType()) != getHeads() * hd)
    return emitOpError() << "q has " << featuresOf(getQ().getType()) << " features, expected heads * head_dim = "
                         << getHeads() * hd;
  if (featuresOf(getK().getType()) != getKvHeads() * hd)
    return emitOpError() << "k and v have " << featuresOf(getK().getType())
                         << " features, expected kv_heads * head_dim = " << getKvHeads() * hd;
  return sameRows(*this, getQ().getType(), getK().getType());
}

LogicalResult PoolPatchesOp::verify() {
  int64_t k = getKernel(), in = rowsOf(getInput().getType()), out = rowsOf(getType());
  if (k <= 0)
    return emitOpError() << "kernel must be positive, got " << k;
  if (in != out * k * k)
    return emitOpError() << "pools " << in << " patch rows into " << out << ", but a " << k << "x" << k
                         << " kernel makes " << in << " / " << k * k << " rows";
  if (featuresOf(getInput().getType()) != featuresOf(getType()))
    return emitOpError() << "changes the row width from " << featuresOf(getInput().getType()) << " to "
                         << featuresOf(getType());
  if (featuresOf(getPositions().getType()) != 2)
    return emitOpError() << "positions must have 2 columns (column, row), got "
                         << featuresOf(getPositions().getType());
  return sameRows(*this, getInput().getType(), getPositions().getType());
}

LogicalResult SubsampleConvOp::verify() {
  int64_t channels = getInChannels(), in = featuresOf(getInput().getType()), out = featuresOf(getType());
  if (channels <= 0 || in % channels != 0)
    return emitOpError() << "input width " << in << " is not a whole number of " << channels << " channels";
  int64_t freq = (getInFreq() + 1) / 2;
  if (out % freq != 0)
    return emitOpError() << "result width " << out << " is not a whole number of channels at " << freq
                         << " frequencies";
  if (int64_t rows = rowsOf(getInput().getType()); rowsOf(getType()) != (rows + 1) / 2)
    return emitOpError() << "halves " << rows << " frames into " << (rows + 1) / 2 << ", not "
                         << rowsOf(getType());
  return success();
}

LogicalResult LocalAttentionOp::verify() {
  if (getHeads() <= 0 || getHeadDim() <= 0 || getHeads() * getHeadDim() != featuresOf(getType()))
    return emitOpError() << getHeads() << " heads of " << getHeadDim() << " do not make the row width "
                         << featuresOf(getType());
  if (featuresOf(getType()) % 2 != 0)
    return emitOpError("the sinusoid of a relative position needs an even row width");
  if (getPast() < 1 || getFuture() < 0 || getChunk() < 1)
    return emitOpError() << "needs chunk >= 1, past >= 1 (the frame itself) and future >= 0, got chunk "
                         << getChunk() << ", past " << getPast() << ", future " << getFuture();
  if (!(getCap().convertToFloat() > 0.0f))
    return emitOpError("cap must be positive");
  return success();
}

LogicalResult GatedCausalConvOp::verify() {
  if (getKernel() <= 0)
    return emitOpError() << "kernel must be positive, got " << getKernel();
  if (featuresOf(getInput().getType()) != 2 * featuresOf(getType()))
    return emitOpError() << "gates " << featuresOf(getInput().getType()) << " columns into "
                         << featuresOf(getType()) << ", not half as many";
  return sameRows(*this, getInput().getType(), getType());
}
