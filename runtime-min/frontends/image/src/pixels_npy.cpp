// .npy → PixelsNpy: the magic, the header dict (descr, fortran_order, shape), then the data (pixels_npy.h).
#include "saguaro/image/pixels_npy.h"

#include <cctype>
#include <cstring>

#include "saguaro/image/error.h"
#include "file_bytes.h"

namespace saguaro::image {

namespace {

/// The value text of `key` in the header's Python dict literal, e.g. "'<f4'", "False", "(2, 3, 3)".
std::string dict_value(const std::string& dict, const std::string& key, const std::string& name) {
  const std::string quoted = "'" + key + "'";
  size_t at = dict.find(quoted);
  if (at == std::string::npos) throw ImageError(name + ": .npy header has no " + key);
  at = dict.find(':', at + quoted.size());
  if (at == std::string::npos) throw ImageError(name + ": .npy header is not a dict");
  at = dict.find_first_not_of(' ', at + 1);
  if (at == std::string::npos) throw ImageError(name + ": .npy header is not a dict");
  // A tuple ends at ')', a string at its closing quote, anything else (True, False) at ',' or '}'.
  if (dict[at] == '(' || dict[at] == '\'') {
    const size_t end = dict.find(dict[at] == '(' ? ')' : '\'', at + 1);
    if (end == std::string::npos) throw ImageError(name + ": .npy header is not a dict");
    return dict.substr(at, end + 1 - at);
  }
  const size_t end = dict.find_first_of(",}", at);
  return dict.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

/// "(H, W, 3)" → {H, W, 3}; any other tuple is refused by the caller.
std::vector<uint64_t> shape_of(const std::string& tuple, const std::string& name) {
  std::vector<uint64_t> dims;
  uint64_t value = 0;
  bool digits = false;
  for (size_t i = 1; i + 1 < tuple.size(); ++i) {
    const char c = tuple[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (value > (uint64_t{1} << 40)) throw ImageError(name + ": .npy shape " + tuple + " is too large");
      value = value * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
    } else if (c == ',') {
      if (!digits) throw ImageError(name + ": .npy shape " + tuple + " is not a tuple of integers");
      dims.push_back(value);
      value = 0;
      digits = false;
    } else if (c != ' ') {
      throw ImageError(name + ": .npy shape " + tuple + " is not a tuple of integers");
    }
  }
  if (digits) dims.push_back(value);
  return dims;
}

}  // namespace

PixelsNpy read_pixels_npy_memory(const uint8_t* data, size_t size, const std::string& name, uint64_t max_pixels) {
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0) throw ImageError(name + ": not a .npy file");
  const int major = data[6];
  if (major < 1 || major > 3) throw ImageError(name + ": .npy version " + std::to_string(major) + " is not supported");
  const size_t length_bytes = major == 1 ? 2 : 4;
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes && 8 + i < size; ++i) header_length |= size_t{data[8 + i]} << (8 * i);
  const size_t data_start = 8 + length_bytes + header_length;
  if (data_start > size) throw ImageError(name + ": .npy is truncated in its header");
  const std::string dict(reinterpret_cast<const char*>(data) + 8 + length_bytes, header_length);

  const std::string descr = dict_value(dict, "descr", name);
  if (descr != "'|u1'" && descr != "'<f4'")
    throw ImageError(name + ": .npy dtype " + descr + " is not supported (uint8 '|u1' or float32 '<f4')");
  if (dict_value(dict, "fortran_order", name) != "False")
    throw ImageError(name + ": .npy in Fortran order is not supported");
  const std::string tuple = dict_value(dict, "shape", name);
  const std::vector<uint64_t> dims = shape_of(tuple, name);
  if (dims.size() != 3 || dims[2] != 3 || dims[0] == 0 || dims[1] == 0)
    throw ImageError(name + ": .npy shape " + tuple + " is not an [H, W, 3] image");
  if (dims[0] > max_pixels || dims[1] > max_pixels || dims[0] * dims[1] > max_pixels)
    throw ImageError(name + ": image is " + std::to_string(dims[1]) + "x" + std::to_string(dims[0]) +
                     " pixels, above the limit of " + std::to_string(max_pixels));

  PixelsNpy out;
  out.is_float = descr == "'<f4'";
  out.height = static_cast<int>(dims[0]);
  out.width = static_cast<int>(dims[1]);
  const size_t values = static_cast<size_t>(dims[0] * dims[1] * 3);
  const size_t bytes = values * (out.is_float ? sizeof(float) : 1);
  if (size - data_start != bytes)
    throw ImageError(name + ": .npy holds " + std::to_string(size - data_start) + " data bytes, its shape needs " +
                     std::to_string(bytes));
  if (out.is_float) {
    out.float32.resize(values);
    std::memcpy(out.float32.data(), data + data_start, bytes);  // little-endian host, as the '<f4' it stores
  } else {
    out.uint8 = Rgb8(out.width, out.height);
    std::memcpy(out.uint8.pixels.data(), data + data_start, bytes);
  }
  return out;
}

PixelsNpy read_pixels_npy(const std::string& path, uint64_t max_pixels) {
  const std::vector<uint8_t> bytes = read_file_bytes(path, 4096 + max_pixels * 3 * sizeof(float));
  return read_pixels_npy_memory(bytes.data(), bytes.size(), path, max_pixels);
}

}  // namespace saguaro::image
