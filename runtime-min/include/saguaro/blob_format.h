// Constants of the weights.sgw container shared by the writer (codegen/blob) and the loader (runtime-min).
#pragma once

#include <cstdint>

#include "saguaro/model_abi.h"

namespace saguaro::blob_format {

constexpr char kMagic[8] = {'S', 'G', 'W', 'B', 'L', 'O', 'B', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kHeaderBytes = 64;
constexpr uint64_t kHeaderHashedBytes = 48;  // header_xxh64 covers bytes [0, 48)
constexpr uint64_t kAlign = 64;              // every tensor's offset is a multiple of this
// The mapped section starts on a multiple of this: a multiple of every page size Linux uses (4, 16 and 64 KiB), so
// the loader can map it from the file on any of them.
constexpr uint64_t kMappedAlign = 65536;

// Byte offsets of the header fields (all little endian).
constexpr uint64_t kOffVersion = 8, kOffHeaderBytes = 12, kOffFileBytes = 16, kOffManifestOffset = 24,
                   kOffManifestBytes = 32, kOffManifestHash = 40, kOffHeaderHash = 48, kOffReserved = 56;

/// Size in bytes of one element of `t`, or 0 for an unknown value.
constexpr uint64_t dtype_size(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: return 2;
    case DType::I8: case DType::U8: return 1;
  }
  return 0;
}

/// Name of `t` as used in messages ("F32", ...), or "?" for an unknown value.
constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::I32: return "I32";
  }
  return "?";
}

/// Rounds `v` up to a multiple of `align` (kAlign by default).
constexpr uint64_t align_up(uint64_t v, uint64_t align = kAlign) { return (v + align - 1) / align * align; }

}  // namespace saguaro::blob_format
