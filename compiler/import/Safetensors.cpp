//===- Safetensors.cpp - reading .safetensors files ------------------------------------===//
//
// Format: an 8-byte little-endian header length N, N bytes of JSON mapping each tensor name
// to {dtype, shape, data_offsets: [begin, end)} relative to the data section that follows.
// Every field is checked against the file before any data is read.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/import/Safetensors.h"

#include "llvm/Support/JSON.h"

#include <cstring>

using namespace saguaro;

namespace {
float bf16ToFloat(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float f16ToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: renormalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
} // namespace

llvm::Error saguaro::readSafetensors(llvm::StringRef path, WeightStore &store) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return fileError(path, "cannot read: " + file.getError().message());
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < 8)
    return fileError(path, "truncated: no safetensors header length");
  uint64_t headerLen;
  std::memcpy(&headerLen, bytes.data(), 8);
  if (headerLen > bytes.size() - 8)
    return fileError(path, "header length " + llvm::Twine(headerLen) + " exceeds the file size " +
                               llvm::Twine(bytes.size()));
  auto header = llvm::json::parse(bytes.substr(8, headerLen));
  if (!header)
    return fileError(path, "header is not valid JSON: " + llvm::toString(header.takeError()));
  const llvm::json::Object *entries = header->getAsObject();
  if (!entries)
    return fileError(path, "header is not a JSON object");
  const char *data = bytes.data() + 8 + headerLen;
  uint64_t dataBytes = bytes.size() - 8 - headerLen;

  for (const auto &[key, value] : *entries) {
    std::string name = key.str();
    if (name == "__metadata__")
      continue;
    const llvm::json::Object *t = value.getAsObject();
    auto bad = [&](const llvm::Twine &what) { return fileError(path, "tensor '" + name + "': " + what); };
    if (!t)
      return bad("entry is not an object");
    std::optional<llvm::StringRef> dtype = t->getString("dtype");
    const llvm::json::Array *shapeJson = t->getArray("shape");
    const llvm::json::Array *offsets = t->getArray("data_offsets");
    if (!dtype || !shapeJson || !offsets || offsets->size() != 2)
      return bad("needs dtype, shape and two data_offsets");
    std::vector<int64_t> shape;
    uint64_t count = 1;
    for (const llvm::json::Value &dim : *shapeJson) {
      std::optional<int64_t> n = dim.getAsInteger();
      if (!n || *n < 0 || (*n > 0 && count > (uint64_t(1) << 40) / static_cast<uint64_t>(*n)))
        return bad("invalid shape");
      shape.push_back(*n);
      count *= static_cast<uint64_t>(*n);
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger(), end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin || static_cast<uint64_t>(*end) > dataBytes)
      return bad("data_offsets lie outside the " + llvm::Twine(dataBytes) + "-byte data section");
    uint64_t elementBytes = *dtype == "F32" ? 4 : (*dtype == "BF16" || *dtype == "F16") ? 2 : 0;
    if (elementBytes == 0)
      return bad("unsupported dtype " + *dtype + " (F32, BF16 and F16 are)");
    if (static_cast<uint64_t>(*end - *begin) != count * elementBytes)
      return bad("data_offsets span " + llvm::Twine(*end - *begin) + " bytes but shape and dtype need " +
                 llvm::Twine(count * elementBytes));
    const char *p = data + *begin;
    if (*dtype == "F32" && reinterpret_cast<uintptr_t>(p) % 4 == 0) {
      store.addView(name, shape, reinterpret_cast<const float *>(p), dtype->str());
      continue;
    }
    std::vector<float> converted(count);
    for (uint64_t i = 0; i < count; ++i) {
      if (*dtype == "F32") {
        std::memcpy(&converted[i], p + 4 * i, 4);
        continue;
      }
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      converted[i] = *dtype == "BF16" ? bf16ToFloat(v) : f16ToFloat(v);
    }
    store.addOwned(name, shape, std::move(converted), dtype->str());
  }
  store.keep(std::move(*file));
  return llvm::Error::success();
}
