//===- rng.cpp - Reproducible random numbers for the probe trainer ----------------------===//
#include "probe/rng.h"

#include <cmath>
#include <utility>

namespace saguaro::probe {

double ProbeRng::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double ProbeRng::normal() {
  // 1 - uniform() lies in (0, 1], so the logarithm is finite.
  double u1 = 1.0 - uniform();
  double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

uint64_t ProbeRng::below(uint64_t n) {
  // Reject the top partial block of 2^64 so every residue is equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = engine_();
  while (x >= limit);
  return x % n;
}

void ProbeRng::shuffle(std::vector<int> &order) {
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[below(i)]);
}

uint64_t fnv1a64(const void *data, size_t size, uint64_t hash) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

uint64_t derive_seed(uint64_t seed, const std::string &stream) {
  std::string key = std::to_string(seed) + ":" + stream;
  return fnv1a64(key.data(), key.size());
}

} // namespace saguaro::probe
