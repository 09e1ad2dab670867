// Verification of weights.sgw: header, checksums, flatbuffer manifest, tensor bounds/alignment/overlap/XXH64.
#include "saguaro/blob.h"

#include "saguaro/kernels/layouts.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "huge_pages.h"
#include "saguaro/blob_format.h"
#include "saguaro/xxh64.h"
#include "weights_generated.h"

namespace saguaro {
namespace {

namespace bf = blob_format;

uint32_t get_u32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Reads all `size` bytes of `fd` into `dst`; false with `problem` set on an error or a file that shrank.
bool read_all(int fd, unsigned char* dst, uint64_t size, std::string* problem) {
  uint64_t done = 0;
  while (done < size) {
    const uint64_t want = std::min<uint64_t>(size - done, uint64_t{1} << 30);
    const ssize_t got = pread(fd, dst + done, want, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return *problem = std::string("cannot read: ") + std::strerror(errno), false;
    if (got == 0) return *problem = "truncated while reading (the file changed)", false;
    done += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

std::unique_ptr<Blob> Blob::open(const std::string& path, std::string* err, WeightsLoad load) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return *err = path + ": cannot open: " + std::strerror(errno), nullptr;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return *err = path + ": not a regular file", nullptr;
  }
  std::unique_ptr<Blob> b(new Blob());
  b->name_ = path;
  b->size_ = static_cast<uint64_t>(st.st_size);
  if (b->size_ > 0 && load == WeightsLoad::kMap) {
    void* m = mmap(nullptr, b->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      ::close(fd);
      return *err = path + ": cannot mmap: " + std::strerror(errno), nullptr;
    }
    b->mapping_ = m;
    b->mapping_bytes_ = b->size_;
  } else if (b->size_ > 0) {
    // Decode streams every weight once per token, and on the machine of docs/runtime.md reads them up to a fifth
    // faster from huge pages of its own than through a mapping of the file.
    bool advised;
    void* m = map_huge_pages(b->size_, &b->mapping_bytes_, &advised);
    if (!m) {
      ::close(fd);
      return *err = path + ": cannot allocate " + std::to_string(b->size_) + " bytes: " + std::strerror(errno), nullptr;
    }
    b->mapping_ = m;  // the destructor unmaps it from here on
    std::string problem;
    if (!read_all(fd, static_cast<unsigned char*>(m), b->size_, &problem)) {
      ::close(fd);
      return *err = path + ": " + problem, nullptr;
    }
    mprotect(m, b->mapping_bytes_, PROT_READ);  // the weights are constants: a stray write faults
  }
  b->base_ = static_cast<const unsigned char*>(b->mapping_);
  ::close(fd);
  std::string problem;
  if (!b->verify(&problem)) return *err = path + ": " + problem, nullptr;
  return b;
}

std::unique_ptr<Blob> Blob::from_memory(const void* data, uint64_t size, const std::string& name, std::string* err) {
  if (reinterpret_cast<uintptr_t>(data) % bf::kAlign != 0)
    return *err = name + ": buffer is not 64-byte aligned", nullptr;
  std::unique_ptr<Blob> b(new Blob());
  b->name_ = name;
  b->base_ = static_cast<const unsigned char*>(data);
  b->size_ = size;
  std::string problem;
  if (!b->verify(&problem)) return *err = name + ": " + problem, nullptr;
  return b;
}

Blob::~Blob() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

const BlobEntry* Blob::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

std::string Blob::meta(const std::string& key, const std::string& fallback) const {
  auto it = meta_.find(key);
  return it == meta_.end() ? fallback : it->second;
}

bool Blob::verify(std::string* problem) {
  if (size_ < bf::kHeaderBytes)
    return *problem = "truncated: " + std::to_string(size_) + " bytes, smaller than the 64-byte header", false;
  const unsigned char* h = base_;
  if (std::memcmp(h, bf::kMagic, sizeof bf::kMagic) != 0) return *problem = "not a Saguaro blob (bad magic)", false;
  if (get_u64(h + bf::kOffHeaderHash) != xxh64(h, bf::kHeaderHashedBytes))
    return *problem = "header checksum mismatch (damaged header)", false;
  if (get_u32(h + bf::kOffVersion) != bf::kVersion)
    return *problem = "unsupported blob version " + std::to_string(get_u32(h + bf::kOffVersion)), false;
  if (get_u32(h + bf::kOffHeaderBytes) != bf::kHeaderBytes || get_u64(h + bf::kOffReserved) != 0)
    return *problem = "malformed header", false;
  const uint64_t file_bytes = get_u64(h + bf::kOffFileBytes);
  if (file_bytes != size_)
    return *problem = "size is " + std::to_string(size_) + " bytes, header says " + std::to_string(file_bytes) +
                      (size_ < file_bytes ? " (truncated)" : " (trailing data)"),
           false;
  const uint64_t m_off = get_u64(h + bf::kOffManifestOffset), m_bytes = get_u64(h + bf::kOffManifestBytes);
  if (m_off != bf::kHeaderBytes || m_bytes > size_ - m_off || m_bytes > (uint64_t(1) << 31))
    return *problem = "manifest offset/size out of bounds", false;
  const unsigned char* m = base_ + m_off;
  if (xxh64(m, m_bytes) != get_u64(h + bf::kOffManifestHash))
    return *problem = "manifest checksum mismatch (damaged manifest)", false;
  flatbuffers::Verifier verifier(m, m_bytes);
  if (!fb::VerifyManifestBuffer(verifier)) return *problem = "manifest is not a valid SGWM flatbuffer", false;
  const fb::Manifest* man = fb::GetManifest(m);

  if (man->metadata())
    for (const fb::KeyValue* kv : *man->metadata()) meta_[kv->key()->str()] = kv->value() ? kv->value()->str() : "";

  const uint64_t data_start = m_off + m_bytes;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [offset, end) of each tensor, to reject overlap
  if (man->tensors()) {
    for (const fb::Tensor* t : *man->tensors()) {
      BlobEntry e;
      e.name = t->name()->str();
      const std::string what = "tensor '" + e.name + "': ";
      if (e.name.empty()) return *problem = "tensor with an empty name", false;
      e.kind = t->kind() ? t->kind()->str() : "";
      e.layout = t->layout() ? t->layout()->str() : "";
      e.dtype = static_cast<DType>(t->dtype());
      if (bf::dtype_size(e.dtype) == 0) return *problem = what + "unknown dtype", false;
      if (e.kind != "weight" && e.kind != "tokenizer" && e.kind != "chat_template") return *problem = what + "unknown kind '" + e.kind + "'", false;
      if (t->shape()) e.shape.assign(t->shape()->begin(), t->shape()->end());
      const uint64_t off = t->offset();
      e.bytes = t->bytes();
      if (off % bf::kAlign != 0) return *problem = what + "offset " + std::to_string(off) + " not 64-byte aligned", false;
      if (off < data_start || off > size_ || e.bytes > size_ - off)
        return *problem = what + "offset/size out of bounds", false;
      if (e.layout == kernels::kUnpackedLayout) {
        uint64_t n = 1;
        for (int64_t d : e.shape) {
          if (d < 0 || (d > 0 && n > UINT64_MAX / static_cast<uint64_t>(d))) return *problem = what + "bad shape", false;
          n *= static_cast<uint64_t>(d);
        }
        if (n > UINT64_MAX / bf::dtype_size(e.dtype) || n * bf::dtype_size(e.dtype) != e.bytes)
          return *problem = what + "size does not match shape and dtype", false;
      }
      e.data = base_ + off;
      if (xxh64(e.data, e.bytes) != t->xxh64())
        return *problem = what + "checksum mismatch (damaged data): expected " + hex(t->xxh64()) + ", got " +
                          hex(xxh64(e.data, e.bytes)),
               false;
      if (!by_name_.emplace(e.name, tensors_.size()).second) return *problem = "duplicate tensor '" + e.name + "'", false;
      ranges.emplace_back(off, off + e.bytes);
      tensors_.push_back(std::move(e));
    }
  }
  // Tensors must not overlap, and the padding around them must be zero: then every byte of the file is checked.
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = data_start;
  for (const auto& [begin, end] : ranges) {
    if (begin < covered) return *problem = "tensors overlap", false;
    for (uint64_t i = covered; i < begin; ++i)
      if (base_[i] != 0) return *problem = "non-zero padding at byte " + std::to_string(i), false;
    covered = end;
  }
  for (uint64_t i = covered; i < size_; ++i)
    if (base_[i] != 0) return *problem = "non-zero padding at byte " + std::to_string(i), false;
  return true;
}

}  // namespace saguaro
