//===- probe_data.h - The probe's training/evaluation data file (SGPRBDT1) --------------===//
//
// `saguaro probe collect` writes one sample per graded answer: the tap layer's hidden state
// for every generated token, the entropy of each next-token distribution, and the label.
// The layout is specified in docs/probe.md; test/reference/probe_reference.py parses it
// independently.
//
// The API returns false plus a one-line message instead of throwing: the `saguaro` driver is
// built with LLVM's -fno-exceptions.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_PROBE_DATA_H
#define SAGUARO_PROBE_PROBE_DATA_H

#include <string>
#include <vector>

namespace saguaro::probe {

/// One graded answer.
struct ProbeSample {
  std::string id;     // unique in the file; the train/validation split hashes it
  std::string family; // question family (task generator)
  int difficulty = 0;
  bool heldout = false;   // the family is held out from probe training
  bool guessable = false; // two-way guessable item (reported apart)
  bool wrong = false;     // the label: the local model's answer failed the grader
  std::string question, answer;
  std::vector<float> hidden;  // n_tokens rows of `width` floats, one per generated token
  std::vector<float> entropy; // n_tokens next-token entropies in nats

  int n_tokens() const { return static_cast<int>(entropy.size()); }
};

/// A whole data file.
struct ProbeData {
  std::string model;
  int width = 0;     // d, the hidden size of the tap layer
  int tap_layer = 0; // which layer's output was captured
  std::vector<ProbeSample> samples;
};

/// Writes `data` to `path` atomically (a temporary file renamed into place). Checks the data
/// first (sizes, finite values, unique ids, one held-out flag per family); on failure no file
/// is left behind.
bool write_probe_data(const std::string &path, const ProbeData &data, std::string &error);

/// Reads and fully checks a data file: magic, version, JSON fields and types, sizes against the
/// file length exactly, n_tokens >= 1, finite values, unique ids, one held-out flag per family,
/// trailing magic.
bool read_probe_data(const std::string &path, ProbeData &out, std::string &error);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_PROBE_DATA_H
