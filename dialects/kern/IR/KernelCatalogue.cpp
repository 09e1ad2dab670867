//===- KernelCatalogue.cpp - kernel signatures and named access to kern.call --------------===//
#include "dialects/kern/IR/KernelCatalogue.h"

#include "dialects/kern/IR/KernDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace saguaro::kern;

namespace {
/// Role bits of an argument (the `roles` of `name:roles`).
enum Role : unsigned { kBuffer = 1, kParam = 2, kWeight = 4, kKv = 8, kLiteral = 16 };

struct Operand {
  StringRef name;
  unsigned roles = 0;
  bool optional = false;
};

/// The operands of a space-separated signature list (template parameters have no roles).
SmallVector<Operand> parse(StringRef list) {
  SmallVector<Operand> out;
  SmallVector<StringRef> words;
  list.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef w : words) {
    Operand o;
    o.optional = w.consume_back("?");
    auto [name, roles] = w.split(':');
    o.name = name;
    SmallVector<StringRef> parts;
    roles.split(parts, '|', -1, false);
    for (StringRef r : parts)
      o.roles |= llvm::StringSwitch<unsigned>(r)
                     .Case("buffer", kBuffer)
                     .Case("param", kParam)
                     .Case("weight", kWeight)
                     .Case("kv", kKv)
                     .Case("literal", kLiteral)
                     .Default(0);
    out.push_back(o);
  }
  return out;
}

/// How many operands a call must give (the non-optional prefix).
size_t required(ArrayRef<Operand> ops) {
  size_t n = 0;
  while (n < ops.size() && !ops[n].optional)
    ++n;
  return n;
}

std::optional<size_t> indexOf(ArrayRef<Operand> ops, StringRef name) {
  for (auto [i, o] : llvm::enumerate(ops))
    if (o.name == name)
      return i;
  return std::nullopt;
}

unsigned roleOf(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a); i && i.getType().isIndex())
    return kBuffer;
  if (isa<ParamAttr>(a))
    return kParam;
  if (isa<WeightAttr>(a))
    return kWeight;
  if (isa<KvAttr>(a))
    return kKv;
  if (isa<IntegerAttr, FloatAttr, BoolAttr>(a))
    return kLiteral;
  return 0;
}

std::string countText(size_t lo, size_t hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

constexpr const KernelSignature *kCatalogue[] = {
#define KERNEL(Id, name, params, args) &k##Id,
#include "dialects/kern/IR/Kernels.def"
};
} // namespace

ArrayRef<const KernelSignature *> saguaro::kern::allKernels() { return kCatalogue; }

const KernelSignature *saguaro::kern::findKernel(StringRef name) {
  for (const KernelSignature *k : kCatalogue)
    if (k->name == name)
      return k;
  return nullptr;
}

const KernelSignature *saguaro::kern::cqMatmulI8Over(size_t products) {
  static constexpr const KernelSignature *kFused[] = {nullptr, &kCqMatmulI8, &kCqMatmul2I8, &kCqMatmul3I8};
  return products < std::size(kFused) ? kFused[products] : nullptr;
}

LogicalResult saguaro::kern::verifyKernelCall(const KernelSignature &kernel, ArrayAttr templateArgs,
                                              ArrayAttr args, int64_t numBuffers, std::string &message) {
  SmallVector<Operand> params = parse(kernel.params), operands = parse(kernel.args);
  auto fail = [&](const Twine &what) {
    message = (kernel.name + " " + what).str();
    return failure();
  };
  if (templateArgs.size() < required(params) || templateArgs.size() > params.size())
    return fail("takes " + countText(required(params), params.size()) + " template arguments (" +
                kernel.params + "), got " + Twine(templateArgs.size()));
  for (auto [p, a] : llvm::zip(params, templateArgs)) {
    bool layout = p.name == "Layout";
    if (layout ? !isa<LayoutAttr>(a) : !isa<IntegerAttr, BoolAttr>(a))
      return fail("template argument " + p.name + " must be " + (layout ? "a #kern.layout" : "an integer or bool"));
  }
  if (args.size() < required(operands) || args.size() > operands.size())
    return fail("takes " + countText(required(operands), operands.size()) + " arguments, got " + Twine(args.size()));
  for (auto [o, a] : llvm::zip(operands, args)) {
    unsigned role = roleOf(a);
    if (!(role & o.roles))
      return fail("argument '" + o.name + "' cannot be " + (role ? "that kind of value" : "this attribute"));
    if (role == kBuffer) {
      int64_t i = cast<IntegerAttr>(a).getInt();
      if (i < 0 || i >= numBuffers)
        return fail("argument '" + o.name + "' refers to buffer " + Twine(i) + " but the call has " +
                    Twine(numBuffers));
    }
  }
  return success();
}

std::optional<KernelCall> KernelCall::of(CallOp call, const KernelSignature &kernel) {
  if (call.getCallee() != kernel.name)
    return std::nullopt;
  return KernelCall(call, &kernel);
}

std::optional<KernelCall> KernelCall::of(CallOp call) {
  if (const KernelSignature *k = findKernel(call.getCallee()))
    return KernelCall(call, k);
  return std::nullopt;
}

Attribute KernelCall::arg(StringRef name) const {
  std::optional<size_t> i = indexOf(parse(signature->args), name);
  assert(i && "no such argument in the kernel's signature");
  ArrayAttr args = call.getArgs();
  return *i < args.size() ? args[*i] : Attribute();
}

Value KernelCall::buffer(StringRef name) const {
  auto i = dyn_cast_or_null<IntegerAttr>(arg(name));
  if (!i || !i.getType().isIndex())
    return Value();
  return call.getBuffers()[i.getInt()];
}

Attribute KernelCall::param(StringRef name) const {
  std::optional<size_t> i = indexOf(parse(signature->params), name);
  assert(i && "no such template parameter in the kernel's signature");
  ArrayAttr params = call.getTemplateArgs();
  return *i < params.size() ? params[*i] : Attribute();
}

int64_t KernelCall::intParam(StringRef name) const { return cast<IntegerAttr>(param(name)).getInt(); }

void KernelCall::setParam(StringRef name, Attribute value) const {
  std::optional<size_t> i = indexOf(parse(signature->params), name);
  assert(i && "no such template parameter in the kernel's signature");
  SmallVector<Attribute> params(call.getTemplateArgs().getValue());
  assert(*i <= params.size() && "the optional parameters before it are missing");
  if (*i == params.size())
    params.push_back(value);
  else
    params[*i] = value;
  call.setTemplateArgsAttr(Builder(call.getContext()).getArrayAttr(params));
}
