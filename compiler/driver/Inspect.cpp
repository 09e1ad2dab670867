//===- Inspect.cpp - `saguaro inspect` -------------------------------------------------===//
//
// Reads a bundle's weights.sgw through the runtime's own loader (so every checksum is
// verified) and shows what it holds, or extracts one tensor's bytes for tools and tests.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Inspect.h"

#include "saguaro/blob.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace saguaro;

int saguaro::runInspect(const std::string &bundle, const std::string &tensor, const std::string &out) {
  llvm::SmallString<256> path(bundle);
  if (llvm::sys::fs::is_directory(bundle))
    llvm::sys::path::append(path, "weights.sgw");
  std::string err;
  std::unique_ptr<Blob> blob = Blob::open(path.str().str(), &err);
  if (!blob) {
    llvm::errs() << "saguaro: " << err << "\n";
    return 1;
  }
  if (tensor.empty()) {
    for (const BlobEntry &e : blob->tensors()) {
      llvm::outs() << e.name << "\t" << e.kind << "\tdtype " << static_cast<uint32_t>(e.dtype) << "\t[";
      for (size_t i = 0; i < e.shape.size(); ++i)
        llvm::outs() << (i ? ", " : "") << e.shape[i];
      llvm::outs() << "]\t" << e.bytes << " bytes\n";
    }
    return 0;
  }
  const BlobEntry *e = blob->find(tensor);
  if (!e) {
    llvm::errs() << "saguaro: " << path << ": no tensor '" << tensor << "'\n";
    return 1;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(out, ec);
  if (ec) {
    llvm::errs() << "saguaro: " << out << ": cannot write: " << ec.message() << "\n";
    return 1;
  }
  os.write(static_cast<const char *>(e->data), e->bytes);
  return 0;
}
