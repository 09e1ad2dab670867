//===- probe_head.h - The reference float computation of the trained probe -------------===//
//
// probe_p_wrong is what the compiled `llm.probe_head` must reproduce (within 1e-4): plain
// float32 arithmetic in the op order documented in docs/probe.md ("Reference computation").
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_PROBE_HEAD_H
#define SAGUARO_PROBE_PROBE_HEAD_H

#include "probe/probe_file.h"

namespace saguaro::probe {

/// p(wrong) for one answer: `hidden` holds n_tokens rows of probe.shape.d floats (n_tokens >= 1).
float probe_p_wrong(const ProbeWeights &probe, const float *hidden, int n_tokens);

/// Converts trained double parameters to the stored float32 ones (round to nearest).
std::vector<float> to_float_params(const std::vector<double> &params);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_PROBE_HEAD_H
