//===- byte_io.h - Little-endian byte helpers shared by the probe file formats ---------===//
#ifndef SAGUARO_PROBE_BYTE_IO_H
#define SAGUARO_PROBE_BYTE_IO_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace saguaro::probe {

/// Appends fixed-width little-endian values to a byte buffer.
class ByteWriter {
public:
  void bytes(const void *p, size_t n) { buf_.append(static_cast<const char *>(p), n); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void f32s(const float *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &p[i], 4);
      u32(bits);
    }
  }
  const std::string &buffer() const { return buf_; }

private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      buf_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string buf_;
};

/// Reads little-endian values from a byte range; every read is bounds-checked and sets
/// `ok()` false instead of running past the end.
class ByteReader {
public:
  ByteReader(const std::string &buf) : buf_(buf) {}
  size_t offset() const { return pos_; }
  size_t remaining() const { return buf_.size() - pos_; }
  bool ok() const { return ok_; }
  bool bytes(void *out, size_t n) {
    if (!ok_ || n > remaining())
      return ok_ = false;
    std::memcpy(out, buf_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool skip(size_t n) {
    if (!ok_ || n > remaining())
      return ok_ = false;
    pos_ += n;
    return true;
  }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }
  bool f32s(float *out, size_t n) {
    if (!ok_ || n > remaining() / 4)
      return ok_ = false;
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits = static_cast<uint32_t>(le(4));
      std::memcpy(&out[i], &bits, 4);
    }
    return true;
  }

private:
  uint64_t le(int n) {
    if (!ok_ || static_cast<size_t>(n) > remaining()) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(buf_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  const std::string &buf_;
  size_t pos_ = 0;
  bool ok_ = true;
};

/// Reads a whole file; false + error ("PATH: cannot open ...") on failure.
bool read_file_bytes(const std::string &path, std::string &out, std::string &error);

/// Writes `bytes` to PATH via PATH.tmp-<pid> and a rename, so readers never see a partial file
/// and a failed write leaves nothing behind.
bool write_file_atomically(const std::string &path, const std::string &bytes, std::string &error);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_BYTE_IO_H
