// .npy: magic, version, header length, a Python dict literal {'descr', 'fortran_order', 'shape'}, the data.
#include "saguaro/npy_reader.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace saguaro {

uint64_t NpyArray::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

namespace {

/// The text after `'key':` in the header dict, up to the end of its value; "" when absent.
std::string field(const std::string& dict, const char* key) {
  size_t at = dict.find(std::string("'") + key + "'");
  if (at == std::string::npos || (at = dict.find(':', at)) == std::string::npos) return "";
  at = dict.find_first_not_of(' ', at + 1);
  if (at == std::string::npos) return "";
  if (dict[at] == '(' || dict[at] == '\'') {  // a tuple or a string: up to its closing character
    const size_t end = dict.find(dict[at] == '(' ? ')' : '\'', at + 1);
    return end == std::string::npos ? "" : dict.substr(at, end + 1 - at);
  }
  const size_t end = dict.find_first_of(", }", at);  // True, False
  return end == std::string::npos ? "" : dict.substr(at, end - at);
}

/// "(3, 4)" -> {3, 4}; false on anything but a tuple of non-negative integers.
bool parse_shape(const std::string& tuple, std::vector<uint64_t>* shape) {
  if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') return false;
  uint64_t v = 0;
  bool digits = false;
  for (size_t i = 1; i + 1 < tuple.size(); ++i) {
    const char c = tuple[i];
    if (c >= '0' && c <= '9') {
      if (v > (uint64_t{1} << 40)) return false;
      v = v * 10 + static_cast<uint64_t>(c - '0'), digits = true;
    } else if (c == ',' && digits) {
      shape->push_back(v), v = 0, digits = false;
    } else if (c != ' ') {
      return false;
    }
  }
  if (digits) shape->push_back(v);
  return true;
}

}  // namespace

bool read_npy(const std::string& path, NpyArray* out, std::string* err, uint64_t max_bytes) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return *err = path + ": cannot open", false;
  unsigned char head[12] = {};
  if (std::fread(head, 1, 10, f.get()) != 10 || std::memcmp(head, "\x93NUMPY", 6) != 0)
    return *err = path + ": not a .npy file", false;
  const int major = head[6];
  if (major < 1 || major > 3) return *err = path + ": .npy version " + std::to_string(major) + " is not supported", false;
  size_t length = head[8] | size_t{head[9]} << 8;
  if (major > 1) {
    if (std::fread(head + 10, 1, 2, f.get()) != 2) return *err = path + ": .npy is truncated in its header", false;
    length |= size_t{head[10]} << 16 | size_t{head[11]} << 24;
  }
  if (length > (1u << 20)) return *err = path + ": .npy header is too long", false;
  std::string dict(length, '\0');
  if (std::fread(&dict[0], 1, length, f.get()) != length) return *err = path + ": .npy is truncated in its header", false;
  const std::string descr = field(dict, "descr");
  if (descr != "'<f4'" && descr != "'<i4'" && descr != "'|u1'")
    return *err = path + ": .npy dtype " + (descr.empty() ? "missing" : descr) +
                  " is not supported (float32 '<f4', int32 '<i4' or uint8 '|u1')",
           false;
  if (field(dict, "fortran_order") != "False") return *err = path + ": .npy must be in C order", false;
  NpyArray a;
  a.dtype = descr.substr(1, 3);
  if (!parse_shape(field(dict, "shape"), &a.shape)) return *err = path + ": .npy shape is not a tuple of integers", false;
  const uint64_t bytes = a.elements() * (a.dtype == "|u1" ? 1 : 4);
  if (bytes > max_bytes)
    return *err = path + ": .npy holds " + std::to_string(bytes) + " bytes, above the limit of " +
                  std::to_string(max_bytes),
           false;
  a.data.resize(bytes);
  if (bytes && std::fread(a.data.data(), 1, bytes, f.get()) != bytes)
    return *err = path + ": .npy is truncated: its shape needs " + std::to_string(bytes) + " data bytes", false;
  if (std::fgetc(f.get()) != EOF) return *err = path + ": .npy has data past what its shape holds", false;
  *out = std::move(a);
  return true;
}

}  // namespace saguaro
