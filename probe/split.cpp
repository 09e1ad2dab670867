//===- split.cpp - Train / validation / held-out roles of the samples -------------------===//
#include "probe/split.h"

#include "probe/rng.h"

namespace saguaro::probe {

bool in_validation(const std::string &id, uint64_t seed, double val_fraction) {
  std::string key = std::to_string(seed) + ":" + id;
  uint64_t hash = fnv1a64(key.data(), key.size());
  // FNV-1a barely mixes the last bytes into the high bits, and ids often differ only in their
  // last digits; the splitmix64 finalizer spreads every bit over the whole word.
  hash = (hash ^ (hash >> 30)) * 0xbf58476d1ce4e5b9ull;
  hash = (hash ^ (hash >> 27)) * 0x94d049bb133111ebull;
  hash ^= hash >> 31;
  return double(hash >> 11) * 0x1.0p-53 < val_fraction;
}

std::vector<SplitRole> split_samples(const ProbeData &data, uint64_t seed, double val_fraction) {
  std::vector<SplitRole> roles;
  roles.reserve(data.samples.size());
  for (const ProbeSample &s : data.samples)
    roles.push_back(s.heldout                                 ? SplitRole::heldout
                    : in_validation(s.id, seed, val_fraction) ? SplitRole::validation
                                                              : SplitRole::train);
  return roles;
}

std::vector<int> samples_with_role(const std::vector<SplitRole> &roles, SplitRole role) {
  std::vector<int> out;
  for (size_t i = 0; i < roles.size(); ++i)
    if (roles[i] == role)
      out.push_back(static_cast<int>(i));
  return out;
}

} // namespace saguaro::probe
