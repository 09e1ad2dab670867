//===- Render.cpp - `saguaro render` ---------------------------------------------------===//
//
// Applies the compiled chat template a bundle ships (its `chat.template` tensor), or the one
// `saguaro compile` would compile from a model directory or a Jinja file, to messages and tools
// from files, and prints the prompt text, so that templates can be checked from the outside. The
// text is the template's own: a leading BOS text stays (the C API drops it when the tokenizer adds
// BOS itself).
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Render.h"

#include "compiler/chat/ChatCompiler.h"
#include "saguaro/blob.h"
#include "saguaro/chat_messages.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace saguaro;

namespace {
int fail(const std::string &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

bool readFile(const std::string &path, std::string *text, std::string *err) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return *err = path + ": cannot read: " + file.getError().message(), false;
  *text = (*file)->getBuffer().str();
  return true;
}

/// The compiled template of `source` in *out; *notes gets the tool features the compiler left out (not known for a
/// bundle). *where is the file errors name.
bool loadTemplate(const std::string &source, ChatTemplate *out, std::vector<std::string> *notes, std::string *where,
                  std::string *err) {
  const bool dir = llvm::sys::fs::is_directory(source);
  llvm::SmallString<256> blobPath(source);
  if (dir)
    llvm::sys::path::append(blobPath, "weights.sgw");
  if (dir ? llvm::sys::fs::exists(blobPath) : llvm::StringRef(source).ends_with(".sgw")) {
    *where = blobPath.str().str();
    std::unique_ptr<Blob> blob = Blob::open(*where, err);
    if (!blob)
      return false;
    const BlobEntry *t = blob->find("chat.template");
    if (!t)
      return *err = *where + ": the bundle has no chat template", false;
    if (!ChatTemplate::parse(t->data, t->bytes, out, err))
      return *err = *where + ": " + *err, false;
    return true;
  }
  // A model directory (or one with just the tokenizer files), or a Jinja file with them beside it.
  const std::string folder = dir ? source : llvm::sys::path::parent_path(source).str();
  llvm::SmallString<256> config(folder.empty() ? "." : folder);
  llvm::sys::path::append(config, "tokenizer_config.json");
  const bool hasConfig = llvm::sys::fs::exists(config);
  ChatTemplateOptions options;
  std::string text;
  if (hasConfig && !read_chat_special_tokens(config.str().str(), &options, err))
    return false;
  if (!dir) {
    *where = source;
    if (!readFile(source, &text, err))
      return false;
  } else if (!hasConfig) {
    return *err = source + ": no weights.sgw and no tokenizer_config.json", false;
  } else {
    *where = config.str().str();
    if (!read_chat_template(*where, &text, err))
      return false;
  }
  std::vector<uint8_t> bytes;
  if (!compile_chat_template(text, options, &bytes, err, notes))
    return *err = *where + ": " + *err, false;
  return ChatTemplate::parse(bytes.data(), bytes.size(), out, err);
}
} // namespace

int saguaro::runRender(const RenderOptions &o) {
  std::string err, text, where;
  ChatRequest request;
  std::vector<std::string> tools;
  if (!readFile(o.messages, &text, &err))
    return fail(err);
  if (!parse_chat_messages(text, false, &request, &err))
    return fail(o.messages + ": " + err);
  const std::vector<ChatMessage> &messages = request.messages;
  if (!o.tools.empty()) {
    if (!readFile(o.tools, &text, &err))
      return fail(err);
    if (!parse_chat_tools(text, &tools, &err))
      return fail(o.tools + ": " + err);
  }
  ChatTemplate tmpl;
  std::vector<std::string> notes;
  if (!loadTemplate(o.source, &tmpl, &notes, &where, &err))
    return fail(err);
  std::string prompt;
  if (!tmpl.apply(messages, tools, o.generationPrompt, /*skip_bos=*/false, &prompt, &err)) {
    for (const std::string &n : notes)
      err += "; left out of the compiled template: " + n;
    return fail(where + ": " + err + " (messages " + o.messages + ")");
  }
  llvm::outs() << prompt;
  return 0;
}
