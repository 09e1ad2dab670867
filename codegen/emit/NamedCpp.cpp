//===- NamedCpp.cpp - C++ whose values have the names their locations give -------------===//
//
// MLIR 19's C++ emitter names every value itself: v1, v2, ... in the order it declares them,
// arguments first, starting again in each function. kern-lower-to-emitc locates each value
// at the name it should have (a NameLoc). Before translating, a marker comment goes in front
// of every declaration (and of every function, for its arguments); after translating, each
// marker tells which `vN` the next line declares, the marker is dropped and `vN` is replaced
// by the name throughout the function. The emitter's output is otherwise untouched, so the
// code is the same and the text as reproducible as before. A marker not followed by the
// declaration it announces is an error rather than a guess.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/BundleParts.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace saguaro;

namespace {
constexpr llvm::StringLiteral kArgumentsMarker = "//saguaro.arguments ";
constexpr llvm::StringLiteral kValueMarker = "//saguaro.value ";
constexpr llvm::StringLiteral kUnnamed = "-"; // an argument without a name in kArgumentsMarker

llvm::Error internalError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "naming the generated C++: " + message);
}

/// The name `loc` gives a value, or "".
llvm::StringRef nameOf(Location loc) {
  auto named = dyn_cast<NameLoc>(loc);
  return named ? named.getName().getValue() : llvm::StringRef();
}

/// Puts the markers into `m`: before each function the names of its arguments, before each op that declares a
/// named value its name. Literals declare nothing (the emitter writes them where they are used).
void mark(ModuleOp m) {
  OpBuilder b(m.getContext());
  for (auto fn : llvm::to_vector(m.getOps<emitc::FuncOp>())) {
    if (fn.isExternal())
      continue;
    std::string arguments;
    for (BlockArgument a : fn.getArguments()) {
      llvm::StringRef name = nameOf(a.getLoc());
      arguments += (arguments.empty() ? "" : " ") + (name.empty() ? llvm::StringRef(kUnnamed) : name).str();
    }
    b.setInsertionPoint(fn);
    b.create<emitc::VerbatimOp>(fn.getLoc(), (kArgumentsMarker + arguments).str());
    SmallVector<Operation *> declarations;
    fn.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && !isa<emitc::LiteralOp>(op) && !nameOf(op->getLoc()).empty())
        declarations.push_back(op);
    });
    for (Operation *op : declarations) {
      b.setInsertionPoint(op);
      b.create<emitc::VerbatimOp>(op->getLoc(), (kValueMarker + nameOf(op->getLoc())).str());
    }
  }
}

bool isEmitterName(llvm::StringRef token) {
  return token.size() > 1 && token[0] == 'v' && llvm::all_of(token.drop_front(), llvm::isDigit);
}

/// Calls `token` with each identifier or number of `line` outside comments and string literals, and `other` with
/// everything else, in order.
void scan(llvm::StringRef line, llvm::function_ref<void(llvm::StringRef)> token,
          llvm::function_ref<void(llvm::StringRef)> other) {
  for (size_t i = 0; i < line.size();) {
    size_t end = i + 1;
    if (line.substr(i).starts_with("//")) { // the rest of the line is a comment
      end = line.size();
    } else if (line[i] == '"') { // a string literal, escapes included
      while (end < line.size() && line[end] != '"')
        end += line[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, line.size());
    } else if (llvm::isAlnum(line[i]) || line[i] == '_') {
      while (end < line.size() && (llvm::isAlnum(line[end]) || line[end] == '_'))
        ++end;
      token(line.slice(i, end));
      i = end;
      continue;
    }
    other(line.slice(i, end));
    i = end;
  }
}

/// The emitter's names in `line`, in order.
std::vector<std::string> emitterNames(llvm::StringRef line) {
  std::vector<std::string> found;
  auto token = [&](llvm::StringRef t) {
    if (isEmitterName(t))
      found.push_back(t.str());
  };
  scan(line, token, [](llvm::StringRef) {});
  return found;
}

/// `line` with the emitter's names that `names` maps replaced, outside comments and string literals.
std::string rename(llvm::StringRef line, const llvm::StringMap<std::string> &names) {
  std::string out;
  auto token = [&](llvm::StringRef t) {
    auto it = isEmitterName(t) ? names.find(t) : names.end();
    out += it == names.end() ? t.str() : it->second;
  };
  scan(line, token, [&](llvm::StringRef other) { out += other; });
  return out;
}

/// The emitted text with the markers applied and dropped.
llvm::Expected<std::string> applyMarkers(llvm::StringRef cpp) {
  llvm::SmallVector<llvm::StringRef> lines;
  cpp.split(lines, '\n');
  std::string out;
  llvm::StringMap<std::string> names;                          // emitter name -> given name, in this function
  std::optional<llvm::SmallVector<llvm::StringRef>> arguments; // names for the next function's signature
  std::optional<llvm::StringRef> value;                        // the name for the next declaration
  for (llvm::StringRef line : lines) {
    llvm::StringRef code = line.ltrim();
    if (code.consume_front(kArgumentsMarker)) {
      names.clear();
      arguments.emplace();
      code.split(*arguments, ' ', -1, /*KeepEmpty=*/false);
      continue;
    }
    if (code.consume_front(kValueMarker)) {
      value = code;
      continue;
    }
    if (arguments) { // `void f(T v1, T v2) {`: the emitter numbers the arguments first
      std::vector<std::string> expected;
      for (size_t i = 1; i <= arguments->size(); ++i)
        expected.push_back("v" + std::to_string(i));
      if (emitterNames(line) != expected)
        return internalError("expected a signature with the arguments v1..v" + llvm::Twine(expected.size()) +
                             ", got `" + line + "`");
      for (auto [emitted, name] : llvm::zip_equal(expected, *arguments))
        if (name != kUnnamed)
          names[emitted] = name.str();
      arguments.reset();
    } else if (value) { // `T vN = ...;`
      auto [declared, rest] = line.split(" = ");
      llvm::StringRef emitted = declared.rsplit(' ').second;
      if (rest.empty() || !isEmitterName(emitted) || names.count(emitted))
        return internalError("expected a declaration of '" + *value + "', got `" + line + "`");
      names[emitted] = value->str();
      value.reset();
    }
    out += rename(line, names);
    out += '\n';
    if (line == "}") // the end of a function
      names.clear();
  }
  if (arguments || value)
    return internalError("a marker at the end of the text");
  out.pop_back(); // split() gave one line more than there were line breaks
  return out;
}
} // namespace

llvm::Expected<std::string> bundle::translateToNamedCpp(ModuleOp m) {
  mark(m);
  std::string cpp;
  llvm::raw_string_ostream os(cpp);
  if (failed(emitc::translateToCpp(m, os)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "EmitC translation to C++ failed");
  return applyMarkers(cpp);
}
