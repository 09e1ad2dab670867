// cq_tool: command-line bridge from compiler/quantize to numpy files, for test/reference/check_cq_reference.py.
//
//   cq_tool quantize IN.npy BITS OUT_PREFIX   IN float32 [N][K] (C order) -> OUT_PREFIX.codes.npy (uint8
//                                             [N][G·g·bits/8]), .norms.npy (float16 [N][G]), .codebook.npy
//                                             (float32 [2^bits]), .codebook64.npy (float64), .deq.npy (float32 [N][K])
//   cq_tool q4_0 IN.npy OUT.npy               llama.cpp Q4_0 fake quant of IN (float32 [N][K])
//   cq_tool codebook G BITS OUT.npy           float64 Lloyd-Max centroids
//   cq_tool bench N K BITS [THREADS]          quantizes a random N×K matrix, prints weights/s
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/quantize/quantize.h"

namespace q = saguaro::quant;

namespace {

void write_npy(const std::string& path, const char* descr, const std::vector<int64_t>& shape, const void* data,
               size_t bytes) {
  std::ostringstream h;
  h << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) h << shape[i] << (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  h << "), }";
  std::string header = h.str();
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.write(reinterpret_cast<const char*>(magic), 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  f.write(reinterpret_cast<const char*>(&len), 2);
  f << header;
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) throw std::runtime_error("short write to " + path);
}

/// Reads a C-order little-endian float32 2-D .npy (version 1 or 2 header).
std::vector<float> read_npy_f32(const std::string& path, int64_t& N, int64_t& K) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not a .npy file");
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    uint16_t l = 0;
    f.read(reinterpret_cast<char*>(&l), 2);
    hlen = l;
  } else {
    f.read(reinterpret_cast<char*>(&hlen), 4);
  }
  std::string header(hlen, '\0');
  f.read(&header[0], hlen);
  if (header.find("'<f4'") == std::string::npos) throw std::runtime_error(path + ": dtype must be <f4");
  if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error(path + ": need C order");
  const size_t s = header.find("'shape': (");
  if (s == std::string::npos) throw std::runtime_error(path + ": no shape");
  if (std::sscanf(header.c_str() + s + 10, "%lld, %lld", reinterpret_cast<long long*>(&N),
                  reinterpret_cast<long long*>(&K)) != 2)
    throw std::runtime_error(path + ": need a 2-D array");
  std::vector<float> v(static_cast<size_t>(N * K));
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!f) throw std::runtime_error(path + ": truncated");
  return v;
}

int usage() {
  std::fprintf(stderr,
               "usage: cq_tool quantize IN.npy BITS OUT_PREFIX | q4_0 IN.npy OUT.npy | codebook G BITS OUT.npy | bench N K BITS [THREADS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) return usage();
    const std::string cmd = argv[1];
    if (cmd == "quantize" && argc == 5) {
      int64_t N = 0, K = 0;
      const std::vector<float> w = read_npy_f32(argv[2], N, K);
      const int bits = std::atoi(argv[3]);
      const std::string out = argv[4];
      const q::CqTensor t = q::quantize_cq(w.data(), N, K, bits);
      write_npy(out + ".codes.npy", "|u1", {N, int64_t(t.codes.size()) / std::max<int64_t>(N, 1)}, t.codes.data(),
                t.codes.size());
      write_npy(out + ".norms.npy", "<f2", {N, t.groups}, t.norms.data(), t.norms.size() * 2);
      const auto& cb = q::codebook(t.g, bits);
      write_npy(out + ".codebook.npy", "<f4", {int64_t(cb.size())}, cb.data(), cb.size() * 4);
      const auto cb64 = q::codebook_f64(t.g, bits);
      write_npy(out + ".codebook64.npy", "<f8", {int64_t(cb64.size())}, cb64.data(), cb64.size() * 8);
      const auto d = q::dequantize_cq(t, N, K);
      write_npy(out + ".deq.npy", "<f4", {N, K}, d.data(), d.size() * 4);
      return 0;
    }
    if (cmd == "q4_0" && argc == 4) {
      int64_t N = 0, K = 0;
      const std::vector<float> w = read_npy_f32(argv[2], N, K);
      const std::vector<float> image = q::q4_0(w.data(), N, K);
      write_npy(argv[3], "<f4", {N, K}, image.data(), image.size() * 4);
      return 0;
    }
    if (cmd == "codebook" && argc == 5) {
      const auto cb = q::codebook_f64(std::atoi(argv[2]), std::atoi(argv[3]));
      write_npy(argv[4], "<f8", {int64_t(cb.size())}, cb.data(), cb.size() * 8);
      return 0;
    }
    if (cmd == "bench" && (argc == 5 || argc == 6)) {
      const int64_t N = std::atoll(argv[2]), K = std::atoll(argv[3]);
      const int bits = std::atoi(argv[4]);
      if (argc == 6) q::set_num_threads(std::atoi(argv[5]));
      std::vector<float> w(static_cast<size_t>(N * K));
      std::mt19937 rng(1);
      std::normal_distribution<float> nd(0.0f, 0.02f);
      for (auto& x : w) x = nd(rng);
      q::codebook(128, bits);  // exclude the one-off codebook solve
      const auto t0 = std::chrono::steady_clock::now();
      const auto t = q::quantize_cq(w.data(), N, K, bits);
      const auto t1 = std::chrono::steady_clock::now();
      const auto d = q::dequantize_cq(t, N, K);
      const auto t2 = std::chrono::steady_clock::now();
      const double sq = std::chrono::duration<double>(t1 - t0).count();
      const double sd = std::chrono::duration<double>(t2 - t1).count();
      std::printf("quantize %lld x %lld at %d bits: %.3f s, %.1f M weights/s; dequantize %.1f M weights/s\n",
                  static_cast<long long>(N), static_cast<long long>(K), bits, sq, N * K / sq / 1e6, N * K / sd / 1e6);
      return 0;
    }
    return usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cq_tool: %s\n", e.what());
    return 1;
  }
}
