#include "audio_test_support.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace saguaro::audio::testing {
namespace {

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

}  // namespace

std::string sharedAudio(const std::string& name) { return std::string(SAGUARO_SHARED_DIR) + "/data/audio/" + name; }

bool exists(const std::string& path) { return std::ifstream(path).good(); }

Array parseNpy(const std::vector<uint8_t>& b) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) throw std::runtime_error("not a .npy");
  const size_t headerLen = b[6] == 1 ? le16(&b[8]) : le32(&b[8]);
  const size_t start = b[6] == 1 ? 10 : 12;
  const std::string header(b.begin() + start, b.begin() + start + headerLen);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error("only C-order float32 .npy is read: " + header);
  Array a;
  const size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  size_t count = 1;
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (d.find_first_of("0123456789") != std::string::npos) {
      a.shape.push_back(std::stoul(d));
      count *= a.shape.back();
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (b.size() < start + headerLen + count * 4) throw std::runtime_error(".npy data is truncated");
  a.data.resize(count);
  std::memcpy(a.data.data(), b.data() + start + headerLen, count * 4);
  return a;
}

Array readNpy(const std::string& path) { return parseNpy(readAll(path)); }

Array readNpzMember(const std::string& path, const std::string& member) {
  const std::vector<uint8_t> zip = readAll(path);
  const std::string wanted = member + ".npy";
  // Walk the local file headers (PK\3\4): method, sizes, name, then the (deflated) data.
  for (size_t pos = 0; pos + 30 <= zip.size() && le32(&zip[pos]) == 0x04034b50;) {
    const uint16_t method = le16(&zip[pos + 8]);
    const uint32_t packed = le32(&zip[pos + 18]), size = le32(&zip[pos + 22]);
    const uint16_t nameLen = le16(&zip[pos + 26]), extraLen = le16(&zip[pos + 28]);
    const std::string name(zip.begin() + pos + 30, zip.begin() + pos + 30 + nameLen);
    const size_t data = pos + 30 + nameLen + extraLen;
    if (name == wanted) {
      std::vector<uint8_t> out(size);
      if (method == 0) {
        std::memcpy(out.data(), &zip[data], size);
      } else {
        z_stream s{};
        inflateInit2(&s, -MAX_WBITS);  // raw deflate, as zip stores it
        s.next_in = const_cast<uint8_t*>(&zip[data]);
        s.avail_in = packed;
        s.next_out = out.data();
        s.avail_out = size;
        const int rc = inflate(&s, Z_FINISH);
        inflateEnd(&s);
        if (rc != Z_STREAM_END) throw std::runtime_error("cannot inflate " + wanted);
      }
      return parseNpy(out);
    }
    pos = data + packed;
  }
  throw std::runtime_error(path + " has no member " + wanted);
}

void put16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}

void put32(std::vector<uint8_t>& b, uint32_t v) {
  put16(b, static_cast<uint16_t>(v));
  put16(b, static_cast<uint16_t>(v >> 16));
}

std::vector<uint8_t> chunk(const std::string& id, const std::vector<uint8_t>& body) {
  std::vector<uint8_t> c(id.begin(), id.end());
  put32(c, static_cast<uint32_t>(body.size()));
  c.insert(c.end(), body.begin(), body.end());
  if (body.size() % 2) c.push_back(0);
  return c;
}

std::vector<uint8_t> fmtBody(uint16_t tag, uint16_t channels, uint32_t rate, uint16_t bits, uint16_t blockAlign) {
  if (blockAlign == 0) blockAlign = static_cast<uint16_t>(channels * (bits / 8));
  std::vector<uint8_t> b;
  put16(b, tag);
  put16(b, channels);
  put32(b, rate);
  put32(b, rate * blockAlign);
  put16(b, blockAlign);
  put16(b, bits);
  return b;
}

std::vector<uint8_t> extensibleFmtBody(uint16_t subTag, uint16_t channels, uint32_t rate, uint16_t bits) {
  std::vector<uint8_t> b = fmtBody(0xFFFE, channels, rate, bits);
  put16(b, 22);    // cbSize
  put16(b, bits);  // valid bits per sample
  put32(b, 0);     // channel mask
  put16(b, subTag);
  const uint8_t tail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
  b.insert(b.end(), tail, tail + 14);
  return b;
}

std::vector<uint8_t> riff(const std::vector<std::vector<uint8_t>>& chunks) {
  std::vector<uint8_t> body = {'W', 'A', 'V', 'E'};
  for (const auto& c : chunks) body.insert(body.end(), c.begin(), c.end());
  std::vector<uint8_t> out = {'R', 'I', 'F', 'F'};
  put32(out, static_cast<uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

double toneAmplitude(const std::vector<float>& y, double rate, double f, size_t begin, size_t end) {
  // Normal equations of min sum (y - a cos - b sin)^2.
  double cc = 0, ss = 0, cs = 0, yc = 0, ys = 0;
  for (size_t i = begin; i < end; ++i) {
    const double w = 2.0 * M_PI * f * static_cast<double>(i) / rate;
    const double c = std::cos(w), s = std::sin(w);
    cc += c * c;
    ss += s * s;
    cs += c * s;
    yc += y[i] * c;
    ys += y[i] * s;
  }
  const double det = cc * ss - cs * cs;
  const double a = (yc * ss - ys * cs) / det, b = (ys * cc - yc * cs) / det;
  return std::hypot(a, b);
}

double rms(const std::vector<float>& y, size_t begin, size_t end) {
  double sum = 0;
  for (size_t i = begin; i < end; ++i) sum += static_cast<double>(y[i]) * y[i];
  return std::sqrt(sum / static_cast<double>(end - begin));
}

}  // namespace saguaro::audio::testing
