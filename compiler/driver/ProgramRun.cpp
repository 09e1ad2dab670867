//===- ProgramRun.cpp - run a built bundle program and read what it writes -------------===//
#include "compiler/driver/ProgramRun.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cstring>

using namespace saguaro;

int saguaro::runRedirected(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args,
                           std::optional<llvm::StringRef> out, llvm::StringRef log, std::string *error) {
  if (out)
    llvm::sys::fs::remove(*out);
  llvm::sys::fs::remove(log);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, out ? *out : log, log};
  return llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0, 0, error);
}

std::string saguaro::readLog(llvm::StringRef path) {
  auto text = llvm::MemoryBuffer::getFile(path);
  return text ? (*text)->getBuffer().trim().str() : std::string();
}

bool saguaro::readNpyF32(const std::string &path, std::vector<float> &data, int64_t &rows, int64_t &cols) {
  auto file = llvm::MemoryBuffer::getFile(path, false, false);
  if (!file)
    return false;
  llvm::StringRef b = (*file)->getBuffer();
  if (b.size() < 10 || !b.starts_with("\x93NUMPY"))
    return false;
  uint16_t headerLen;
  std::memcpy(&headerLen, b.data() + 8, 2);
  llvm::StringRef header = b.substr(10, headerLen);
  if (!header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False"))
    return false;
  size_t open = header.find("'shape': ("), comma = header.find(',', open);
  if (open == llvm::StringRef::npos || comma == llvm::StringRef::npos)
    return false;
  if (header.substr(open + 10, comma - open - 10).trim().getAsInteger(10, rows))
    return false;
  if (header.substr(comma + 1, header.find(')', comma) - comma - 1).trim().getAsInteger(10, cols))
    return false;
  if (rows < 0 || cols < 0)
    return false;
  size_t count = static_cast<size_t>(rows * cols);
  if (b.size() < 10 + headerLen + count * 4)
    return false;
  data.resize(count);
  std::memcpy(data.data(), b.data() + 10 + headerLen, count * 4);
  return true;
}
