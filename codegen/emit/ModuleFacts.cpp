//===- ModuleFacts.cpp - the module attributes the bundle writer reads -----------------===//
#include "codegen/emit/BundleParts.h"

#include "saguaro/kernels/layouts.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace saguaro;
using namespace saguaro::bundle;

llvm::Error bundle::fileError(llvm::StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (file + ": " + message).str());
}

const char *bundle::dtypeName(DType t) { return t == DType::F32 ? "F32" : t == DType::F16 ? "F16" : "U8"; }

std::pair<int64_t, int64_t> ModuleFacts::hiddenTap() const {
  for (auto [id, tap] : llvm::enumerate(taps))
    if (tap.kind == "hidden")
      return {tap.layer.value_or(0), static_cast<int64_t>(id)};
  return {0, 0};
}

std::string ModuleFacts::layoutOf(llvm::StringRef name) const {
  if (auto it = packed.find(name.str()); it != packed.end())
    return it->second.layout;
  for (llvm::StringRef suffix : {".codes", ".norms"})
    if (name.ends_with(suffix))
      if (auto it = packed.find(name.drop_back(suffix.size()).str()); it != packed.end())
        return it->second.layout;
  return saguaro::kernels::kUnpackedLayout;
}

ModuleFacts ModuleFacts::of(ModuleOp m) {
  ModuleFacts f;
  if (auto names = m->getAttrOfType<ArrayAttr>("saguaro.weight_slots"))
    for (Attribute a : names)
      f.slots.push_back(cast<StringAttr>(a).str());
  if (auto list = m->getAttrOfType<ArrayAttr>("kern.packed"))
    for (auto d : list.getAsRange<DictionaryAttr>())
      f.packed[d.getAs<StringAttr>("weight").str()] =
          PackedWeight{d.getAs<StringAttr>("layout").str(), d.getAs<IntegerAttr>("bits").getInt(),
                       d.getAs<IntegerAttr>("k").getInt(), d.getAs<IntegerAttr>("rows").getInt()};
  if (auto names = m->getAttrOfType<ArrayAttr>("kern.gathered"))
    for (auto name : names.getAsValueRange<StringAttr>())
      f.gathered.insert(name.str());
  if (auto list = m->getAttrOfType<ArrayAttr>("kern.taps"))
    for (auto d : list.getAsRange<DictionaryAttr>()) {
      Tap t{d.getAs<StringAttr>("kind").getValue().str(), d.getAs<IntegerAttr>("cols").getInt(), std::nullopt, {}};
      if (auto layer = d.getAs<IntegerAttr>("layer"))
        t.layer = layer.getInt();
      if (auto names = d.getAs<ArrayAttr>("weights")) {
        t.weights.emplace();
        for (auto w : names.getAsValueRange<StringAttr>())
          t.weights->push_back(w.str());
      }
      f.taps.push_back(std::move(t));
    }
  auto integer = [&](llvm::StringRef name) {
    auto a = m->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : int64_t{0};
  };
  f.arenaBytes = integer("kern.arena_bytes");
  f.visionArenaBytes = integer("kern.vision_arena_bytes");
  f.audioArenaBytes = integer("kern.audio_arena_bytes");
  f.audioStateBytes = integer("kern.audio_state_bytes");
  f.kvBytes = integer("kern.kv_bytes");
  if (auto kv = m->getAttrOfType<StringAttr>("kern.kv_type"))
    f.kvType = kv.getValue().str();
  if (auto list = m->getAttrOfType<ArrayAttr>("kern.kv_caches"))
    for (auto d : list.getAsRange<DictionaryAttr>()) {
      auto field = [&](llvm::StringRef name) { return d.getAs<IntegerAttr>(name).getInt(); };
      f.kvCaches.push_back({field("layer"), field("kv_heads"), field("head_dim"), field("window"), field("positions")});
    }
  return f;
}
