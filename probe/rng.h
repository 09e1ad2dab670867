//===- rng.h - Reproducible random numbers for the probe trainer ------------------------===//
//
// std::uniform_real_distribution and std::normal_distribution are implementation-defined, so
// the same seed gives different numbers under libstdc++ and libc++. The trainer promises
// "same seed + same data => same probe bytes", so it draws raw 64-bit words from
// std::mt19937_64 (whose output sequence the standard fixes) and transforms them itself.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_RNG_H
#define SAGUARO_PROBE_RNG_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace saguaro::probe {

/// A seeded generator with transforms that give the same numbers on every standard library.
class ProbeRng {
public:
  explicit ProbeRng(uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal by Box–Muller (one value per call; the second is discarded for simplicity).
  double normal();
  /// Uniform integer in [0, n) without modulo bias (rejection sampling); n > 0.
  uint64_t below(uint64_t n);
  /// Fisher–Yates shuffle of `order` with this generator.
  void shuffle(std::vector<int> &order);

private:
  std::mt19937_64 engine_;
};

/// FNV-1a 64-bit hash of bytes, continuing from `hash` (start with kFnvOffset).
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
uint64_t fnv1a64(const void *data, size_t size, uint64_t hash = kFnvOffset);

/// Derives an independent seed for a named stream ("init", "shuffle", "dropout", ...) so that
/// adding a draw to one stream does not shift the numbers of the others.
uint64_t derive_seed(uint64_t seed, const std::string &stream);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_RNG_H
