//===- CppNames.cpp - C++ names of the values of generated functions -------------------===//
#include "codegen/emit/CppNames.h"

#include "llvm/ADT/StringExtras.h"

using namespace saguaro;

namespace {
/// Names a value must not take: C++ keywords, and what model.cpp declares or uses besides its values.
bool isReserved(llvm::StringRef id) {
  static const llvm::StringSet<> kReserved = [] {
    llvm::StringSet<> set;
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(
        "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t "
        "class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield "
        "decltype default delete do double dynamic_cast else enum explicit export extern false float for friend "
        "goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private "
        "protected public register reinterpret_cast requires return short signed sizeof static static_assert "
        "static_cast struct switch template this thread_local throw true try typedef typeid typename union "
        "unsigned using virtual void volatile wchar_t while xor xor_eq "
        "int32_t int64_t uint16_t size_t std saguaro arena_of kv_of parallel_of weight_of tap kWeights kWindows "
        "kSpec saguaro_model_spec saguaro_model_prefill saguaro_model_decode saguaro_model_probe")
        .split(words, ' ', -1, false);
    for (llvm::StringRef w : words)
      set.insert(w);
    return set;
  }();
  bool emitterForm = id.size() > 1 && id[0] == 'v' && llvm::all_of(id.drop_front(), llvm::isDigit);
  return emitterForm || kReserved.contains(id);
}
} // namespace

std::string CppNames::fresh(llvm::StringRef wanted) {
  std::string id;
  for (char c : wanted)
    id += llvm::isAlnum(c) ? c : '_';
  if (id.empty() || !llvm::isAlpha(id[0]) || isReserved(id))
    id = "x_" + id;
  std::string name = id;
  for (int n = 2; used.contains(name); ++n)
    name = id + "_" + std::to_string(n);
  used.insert(name);
  return name;
}

std::string saguaro::weightVariable(llvm::StringRef weight) {
  weight.consume_front("model.");
  std::string name = "w_";
  llvm::SmallVector<llvm::StringRef> parts;
  weight.split(parts, '.');
  for (llvm::StringRef part : parts)
    if (part != "weight")
      name += (name.size() > 2 ? "." : "") + part.str();
  return name;
}

std::string saguaro::kvVariable(llvm::StringRef value, size_t nth) {
  std::string base = value.empty() ? "kv" : value.str();
  return base + (nth == 0 ? "_k" : nth == 1 ? "_v" : "_kv" + std::to_string(nth));
}

std::string saguaro::commentText(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    out += c == '\\' || !llvm::isPrint(c) ? ' ' : c;
  return out;
}
