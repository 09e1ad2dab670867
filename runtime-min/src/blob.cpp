// Loading and verification of weights.sgw: header, checksums, flatbuffer manifest, tensor bounds/alignment/overlap/
// XXH64; the mapped section is mapped from the file and verified through pread, so that it stays out of memory.
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
#include "process_stats.h"
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

/// Reads `size` bytes of `fd` at `offset` into `dst`; false with `problem` set on an error or a file that shrank.
bool read_at(int fd, unsigned char* dst, uint64_t size, uint64_t offset, std::string* problem) {
  uint64_t done = 0;
  while (done < size) {
    const uint64_t want = std::min<uint64_t>(size - done, uint64_t{1} << 30);
    const ssize_t got = pread(fd, dst + done, want, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return *problem = std::string("cannot read: ") + std::strerror(errno), false;
    if (got == 0) return *problem = "truncated while reading (the file changed)", false;
    done += static_cast<uint64_t>(got);
  }
  return true;
}

/// Where the file's mapped section starts as its manifest says, if the header and manifest look sound and the start
/// is a page boundary past the manifest; else `size` (everything is loaded alike and verify() reports what is wrong).
uint64_t mapped_section_start(int fd, uint64_t size) {
  unsigned char h[bf::kHeaderBytes];
  std::string ignored;
  if (size < bf::kHeaderBytes || !read_at(fd, h, sizeof h, 0, &ignored)) return size;
  const uint64_t m_off = get_u64(h + bf::kOffManifestOffset), m_bytes = get_u64(h + bf::kOffManifestBytes);
  if (m_off != bf::kHeaderBytes || m_bytes > size - m_off || m_bytes > (uint64_t(1) << 31)) return size;
  std::vector<unsigned char> m(m_bytes);
  if (!read_at(fd, m.data(), m_bytes, m_off, &ignored)) return size;
  flatbuffers::Verifier verifier(m.data(), m_bytes);
  if (!fb::VerifyManifestBuffer(verifier)) return size;
  const flatbuffers::Optional<uint64_t> start = fb::GetManifest(m.data())->mapped_offset();
  const long page = sysconf(_SC_PAGESIZE);
  if (!start || page <= 0 || *start % static_cast<uint64_t>(page) != 0 || *start < m_off + m_bytes || *start >= size)
    return size;
  return *start;
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
  // Everything before the mapped section is loaded as `load` says; the mapped section (if any) is mapped from the
  // file whatever `load` says: its tables are gathered a row at a time, so only the rows a run reads become resident.
  b->resident_bytes_ = mapped_section_start(fd, b->size_);
  const uint64_t resident = b->resident_bytes_;
  if (resident > 0 && load == WeightsLoad::kMap) {
    void* m = mmap(nullptr, resident, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      ::close(fd);
      return *err = path + ": cannot mmap: " + std::strerror(errno), nullptr;
    }
    b->mapping_ = m;
    b->mapping_bytes_ = resident;
  } else if (resident > 0) {
    // Decode streams every weight once per token, and on the machine of docs/runtime.md reads them up to a fifth
    // faster from huge pages of its own than through a mapping of the file.
    bool advised;
    void* m = map_huge_pages(resident, &b->mapping_bytes_, &advised);
    if (!m) {
      ::close(fd);
      return *err = path + ": cannot allocate " + std::to_string(resident) + " bytes: " + std::strerror(errno), nullptr;
    }
    b->mapping_ = m;  // the destructor unmaps it from here on
    std::string problem;
    if (!read_at(fd, static_cast<unsigned char*>(m), resident, 0, &problem)) {
      ::close(fd);
      return *err = path + ": " + problem, nullptr;
    }
    mprotect(m, b->mapping_bytes_, PROT_READ);  // the weights are constants: a stray write faults
  }
  b->base_ = static_cast<const unsigned char*>(b->mapping_);
  if (resident < b->size_) {
    void* m = mmap(nullptr, b->size_ - resident, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(resident));
    if (m == MAP_FAILED) {
      ::close(fd);
      return *err = path + ": cannot mmap the mapped section: " + std::strerror(errno), nullptr;
    }
    // Gathers read rows scattered over the table: no read-ahead around a faulting row.
    madvise(m, b->size_ - resident, MADV_RANDOM);
    b->section_ = static_cast<const unsigned char*>(m);
    b->section_bytes_ = b->size_ - resident;
  }
  std::string problem;
  const bool ok = b->verify(fd, &problem);
  // A fault maps the whole page-cache folio it hits, and the cache holds a file written or read in large pieces in
  // folios of up to 2 MiB (the verification just read the section so): without its cached pages, each gathered row
  // faults in only its own pages, read from the file (docs/internals.md, "The mapped section").
  if (ok && b->section_) posix_fadvise(fd, static_cast<off_t>(resident), static_cast<off_t>(b->size_ - resident),
                                       POSIX_FADV_DONTNEED);
  ::close(fd);
  if (!ok) return *err = path + ": " + problem, nullptr;
  return b;
}

std::unique_ptr<Blob> Blob::from_memory(const void* data, uint64_t size, const std::string& name, std::string* err) {
  if (reinterpret_cast<uintptr_t>(data) % bf::kAlign != 0)
    return *err = name + ": buffer is not 64-byte aligned", nullptr;
  std::unique_ptr<Blob> b(new Blob());
  b->name_ = name;
  b->base_ = static_cast<const unsigned char*>(data);
  b->size_ = b->resident_bytes_ = size;
  std::string problem;
  if (!b->verify(-1, &problem)) return *err = name + ": " + problem, nullptr;
  return b;
}

Blob::~Blob() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
  if (section_) munmap(const_cast<unsigned char*>(section_), section_bytes_);
}

uint64_t Blob::mapped_resident_bytes() const {
  return section_ ? mapping_rss_bytes(section_) : mapped_bytes();
}

const BlobEntry* Blob::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

std::string Blob::meta(const std::string& key, const std::string& fallback) const {
  auto it = meta_.find(key);
  return it == meta_.end() ? fallback : it->second;
}

template <class F>
bool Blob::scan(int fd, uint64_t begin, uint64_t end, std::string* problem, F consume) {
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  std::vector<unsigned char> buf;
  while (begin < end) {
    uint64_t stop = std::min(end, begin + kPiece);
    if (begin < mapped_offset_) stop = std::min(stop, mapped_offset_);  // one piece never spans both sections
    const unsigned char* p = at(begin);
    if (fd >= 0 && begin >= mapped_offset_) {
      buf.resize(kPiece);
      if (!read_at(fd, buf.data(), stop - begin, begin, problem)) return false;
      p = buf.data();
    }
    if (!consume(begin, p, stop - begin)) return true;
    begin = stop;
  }
  return true;
}

bool Blob::verify(int fd, std::string* problem) {
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
  if (m_off != bf::kHeaderBytes || m_bytes > resident_bytes_ - m_off || m_bytes > (uint64_t(1) << 31))
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
  mapped_offset_ = size_;
  if (const flatbuffers::Optional<uint64_t> mapped = man->mapped_offset()) {
    if (*mapped % bf::kMappedAlign != 0 || *mapped < data_start || *mapped > size_)
      return *problem = "mapped section offset " + std::to_string(*mapped) + " out of bounds or not a multiple of " +
                        std::to_string(bf::kMappedAlign),
             false;
    mapped_offset_ = *mapped;
  }
  if (resident_bytes_ < size_ && resident_bytes_ != mapped_offset_)
    return *problem = "mapped section moved while loading (the file changed)", false;

  struct Range {
    uint64_t begin, end, xxh64;
    size_t entry;
  };
  std::vector<Range> ranges;  // every tensor's bytes, to reject overlap and check the checksums in file order
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
      if (off < mapped_offset_ && e.bytes > mapped_offset_ - off)
        return *problem = what + "crosses the start of the mapped section", false;
      if (e.layout == kernels::kUnpackedLayout) {
        uint64_t n = 1;
        for (int64_t d : e.shape) {
          if (d < 0 || (d > 0 && n > UINT64_MAX / static_cast<uint64_t>(d))) return *problem = what + "bad shape", false;
          n *= static_cast<uint64_t>(d);
        }
        if (n > UINT64_MAX / bf::dtype_size(e.dtype) || n * bf::dtype_size(e.dtype) != e.bytes)
          return *problem = what + "size does not match shape and dtype", false;
      }
      e.data = at(off);
      e.mapped = off >= mapped_offset_ && e.bytes > 0;
      if (!by_name_.emplace(e.name, tensors_.size()).second) return *problem = "duplicate tensor '" + e.name + "'", false;
      ranges.push_back({off, off + e.bytes, t->xxh64(), tensors_.size()});
      tensors_.push_back(std::move(e));
    }
  }
  // Tensors must not overlap, and the padding around them must be zero: then every byte of the file is checked.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end) return *problem = "tensors overlap", false;
  // One pass over the data in file order: each tensor's bytes against its XXH64, the padding against zero.
  size_t next = 0;  // the first range not yet checked
  Xxh64 hash;       // of range `next`'s bytes so far
  std::string bad;
  // Checks the ranges that end at `pos` (the tensor just hashed, and empty tensors there).
  auto close_at = [&](uint64_t pos) {
    for (; next < ranges.size() && ranges[next].begin <= pos && ranges[next].end == pos; ++next, hash = Xxh64())
      if (hash.digest() != ranges[next].xxh64)
        return bad = "tensor '" + tensors_[ranges[next].entry].name + "': checksum mismatch (damaged data): expected " +
                     hex(ranges[next].xxh64) + ", got " + hex(hash.digest()),
               false;
    return true;
  };
  auto check = [&](uint64_t off, const unsigned char* p, uint64_t n) {
    for (uint64_t pos = off; pos < off + n;) {
      if (!close_at(pos)) return false;
      if (next < ranges.size() && pos >= ranges[next].begin) {  // inside tensor `next`
        const uint64_t take = std::min(off + n, ranges[next].end) - pos;
        hash.update(p + (pos - off), take);
        pos += take;
      } else {  // padding before tensor `next`, or after the last
        const uint64_t stop = next < ranges.size() ? std::min(off + n, ranges[next].begin) : off + n;
        for (; pos < stop; ++pos)
          if (p[pos - off] != 0) return bad = "non-zero padding at byte " + std::to_string(pos), false;
      }
    }
    return true;
  };
  if (!scan(fd, data_start, size_, problem, check)) return false;
  if (bad.empty()) close_at(size_);
  if (!bad.empty()) return *problem = bad, false;
  return true;
}

}  // namespace saguaro
