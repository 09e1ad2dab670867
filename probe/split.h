//===- split.h - Train / validation / held-out roles of the samples ---------------------===//
#ifndef SAGUARO_PROBE_SPLIT_H
#define SAGUARO_PROBE_SPLIT_H

#include "probe/probe_data.h"

#include <cstdint>
#include <string>
#include <vector>

namespace saguaro::probe {

enum class SplitRole { train, validation, heldout };

/// True when sample `id` belongs to the validation split: FNV-1a 64 of "<seed>:<id>" followed
/// by the splitmix64 finalizer, its top 53 bits as a fraction in [0, 1), below `val_fraction`. Hashing the id (not the position)
/// keeps a sample's role fixed when the file is reordered or other samples are added.
bool in_validation(const std::string &id, uint64_t seed, double val_fraction);

/// Held-out families stay held out; the others go to train or validation by in_validation.
std::vector<SplitRole> split_samples(const ProbeData &data, uint64_t seed, double val_fraction);

/// Indices of the samples with `role`.
std::vector<int> samples_with_role(const std::vector<SplitRole> &roles, SplitRole role);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_SPLIT_H
