//===- probe_file.h - The trained probe file (SGPROBE1) ---------------------------------===//
//
// Holds the probe's widths, the model it was trained for, the training options (so the split
// and the baselines can be rebuilt), and the float32 parameters in the order of
// probe_layout(shape, PoolKind::attention), followed by an FNV-1a 64 checksum. docs/probe.md
// specifies the bytes; the compiler's `--probe` reads the file through read_probe_file.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_PROBE_FILE_H
#define SAGUARO_PROBE_PROBE_FILE_H

#include "probe/probe_data.h"
#include "probe/probe_shape.h"

#include <string>
#include <vector>

namespace saguaro::probe {

/// A trained attention probe.
struct ProbeWeights {
  ProbeShape shape;
  std::string model; // the model name of the training data
  int tap_layer = 0;
  std::string train_json; // the TrainOptions and training summary as a JSON object
  std::vector<float> params; // probe_layout(shape, PoolKind::attention).total values
};

/// Writes atomically (temporary file + rename).
bool write_probe_file(const std::string &path, const ProbeWeights &probe, std::string &error);

/// Reads and checks magic, version, widths, sizes, finite parameters and the checksum.
bool read_probe_file(const std::string &path, ProbeWeights &out, std::string &error);

/// Refuses data captured at another width or tap layer than the probe was trained for
/// ("PROBE: the probe expects width 256 but DATA has width 128"). The model name may differ:
/// the same probe is meant to be evaluated on quantized builds of its model.
bool check_probe_fits_data(const ProbeWeights &probe, const std::string &probe_path, const ProbeData &data,
                           const std::string &data_path, std::string &error);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_PROBE_FILE_H
