// Serialises tensors into weights.sgw: 64-byte header, flatbuffer manifest, 64-byte aligned tensor data, then the
// mapped section.
#include "blob_writer.h"

#include <cstdio>
#include <cstring>
#include <set>

#include <unistd.h>

#include "saguaro/blob_format.h"
#include "saguaro/xxh64.h"
#include "weights_generated.h"

namespace saguaro {
namespace {

namespace bf = blob_format;

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Builds the manifest with the given tensor offsets. force_defaults keeps its size independent of the values.
void build_manifest(flatbuffers::FlatBufferBuilder& fbb, const std::vector<BlobTensor>& tensors,
                    const std::vector<std::pair<std::string, std::string>>& metadata,
                    const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& hashes,
                    flatbuffers::Optional<uint64_t> mapped_offset) {
  fbb.Clear();
  fbb.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::Tensor>> ts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const BlobTensor& t = tensors[i];
    ts.push_back(fb::CreateTensorDirect(fbb, t.name.c_str(), t.kind.c_str(), static_cast<fb::DType>(t.dtype),
                                        &t.shape, t.layout.c_str(), offsets[i], t.bytes, hashes[i]));
  }
  std::vector<flatbuffers::Offset<fb::KeyValue>> kvs;
  for (const auto& kv : metadata) kvs.push_back(fb::CreateKeyValueDirect(fbb, kv.first.c_str(), kv.second.c_str()));
  fbb.Finish(fb::CreateManifestDirect(fbb, &ts, &kvs, mapped_offset), fb::ManifestIdentifier());
}

// Checks what the loader would refuse, so the compiler fails early instead of emitting a broken bundle.
bool validate(const std::vector<BlobTensor>& tensors, std::string* error) {
  std::set<std::string> names;
  for (size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i - 1].mapped && !tensors[i].mapped)
      return *error = "tensor '" + tensors[i].name + "' is not mapped but follows a mapped one", false;
  for (const BlobTensor& t : tensors) {
    if (t.name.empty()) return *error = "tensor with an empty name", false;
    if (!names.insert(t.name).second) return *error = "duplicate tensor name '" + t.name + "'", false;
    if (bf::dtype_size(t.dtype) == 0) return *error = "tensor '" + t.name + "': unknown dtype", false;
    if (t.bytes > 0 && t.data == nullptr) return *error = "tensor '" + t.name + "': no data", false;
    if (t.layout == "row-major") {
      uint64_t n = 1;
      for (int64_t d : t.shape) {
        if (d < 0) return *error = "tensor '" + t.name + "': negative dimension", false;
        n *= static_cast<uint64_t>(d);
      }
      if (n * bf::dtype_size(t.dtype) != t.bytes)
        return *error = "tensor '" + t.name + "': shape and dtype give " + std::to_string(n * bf::dtype_size(t.dtype)) +
                        " bytes, data has " + std::to_string(t.bytes),
               false;
    }
  }
  return true;
}

bool write_all(FILE* f, const void* data, size_t n) { return n == 0 || std::fwrite(data, 1, n, f) == n; }

bool write_zeros(FILE* f, uint64_t n) {
  static const unsigned char zeros[4096] = {};
  for (; n > sizeof zeros; n -= sizeof zeros)
    if (!write_all(f, zeros, sizeof zeros)) return false;
  return write_all(f, zeros, n);
}

}  // namespace

bool write_blob(const std::string& path, const std::vector<BlobTensor>& tensors,
                const std::vector<std::pair<std::string, std::string>>& metadata, std::string* error,
                BlobSizes* sizes) {
  if (!validate(tensors, error)) return false;
  std::vector<uint64_t> hashes, offsets(tensors.size(), 0);
  for (const BlobTensor& t : tensors) hashes.push_back(xxh64(t.data, t.bytes));

  // Offsets depend on the manifest size, which (with forced defaults) does not depend on the offsets.
  const bool has_mapped = !tensors.empty() && tensors.back().mapped;
  flatbuffers::Optional<uint64_t> mapped_offset = has_mapped ? flatbuffers::Optional<uint64_t>(0) : flatbuffers::nullopt;
  flatbuffers::FlatBufferBuilder fbb;
  build_manifest(fbb, tensors, metadata, offsets, hashes, mapped_offset);
  uint64_t pos = bf::align_up(bf::kHeaderBytes + fbb.GetSize());
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].mapped && (i == 0 || !tensors[i - 1].mapped)) mapped_offset = pos = bf::align_up(pos, bf::kMappedAlign);
    offsets[i] = pos;
    pos = bf::align_up(pos + tensors[i].bytes);
  }
  const uint64_t file_bytes = tensors.empty() ? bf::kHeaderBytes + fbb.GetSize() : offsets.back() + tensors.back().bytes;
  build_manifest(fbb, tensors, metadata, offsets, hashes, mapped_offset);
  const uint64_t manifest_bytes = fbb.GetSize();

  unsigned char header[bf::kHeaderBytes] = {};
  std::memcpy(header, bf::kMagic, sizeof bf::kMagic);
  put_u32(header + bf::kOffVersion, bf::kVersion);
  put_u32(header + bf::kOffHeaderBytes, bf::kHeaderBytes);
  put_u64(header + bf::kOffFileBytes, file_bytes);
  put_u64(header + bf::kOffManifestOffset, bf::kHeaderBytes);
  put_u64(header + bf::kOffManifestBytes, manifest_bytes);
  put_u64(header + bf::kOffManifestHash, xxh64(fbb.GetBufferPointer(), manifest_bytes));
  put_u64(header + bf::kOffHeaderHash, xxh64(header, bf::kHeaderHashedBytes));

  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return *error = "cannot create " + tmp, false;
  bool ok = write_all(f, header, sizeof header) && write_all(f, fbb.GetBufferPointer(), manifest_bytes);
  uint64_t at = bf::kHeaderBytes + manifest_bytes;
  for (size_t i = 0; ok && i < tensors.size(); ++i) {
    ok = write_zeros(f, offsets[i] - at) && write_all(f, tensors[i].data, tensors[i].bytes);
    at = offsets[i] + tensors[i].bytes;
  }
  // On disk before it replaces the old file; and its page cache clean, so that a loader can drop the cached pages of
  // the mapped section (runtime-min/src/blob.cpp).
  ok = ok && std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return *error = "cannot write " + path, false;
  }
  if (sizes) *sizes = BlobSizes{file_bytes, mapped_offset ? file_bytes - *mapped_offset : 0};
  return true;
}

}  // namespace saguaro
