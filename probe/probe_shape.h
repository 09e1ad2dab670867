//===- probe_shape.h - Widths and parameter layout of the probe networks ----------------===//
//
// Every probe network keeps its parameters in one flat vector, in the order the probe file
// stores them (docs/probe.md, "Parameter order"). The attention probe and the mean-pool
// baseline share the layout; the mean-pool one simply has no projection and no query.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_PROBE_PROBE_SHAPE_H
#define SAGUARO_PROBE_PROBE_SHAPE_H

#include <cstddef>

namespace saguaro::probe {

/// How the per-token features become one vector per answer.
enum class PoolKind {
  attention, // LayerNorm -> Linear(d->h)+ReLU per token -> learned-query attention pool (the probe)
  mean,      // LayerNorm -> mean over tokens (the mean-pool + MLP baseline)
};

/// Widths: d is the model's hidden size at the tap layer; h, m1, m2 are the probe's.
struct ProbeShape {
  int d = 0;
  int h = 32;
  int m1 = 128;
  int m2 = 64;
};

/// Offsets of each tensor in the flat parameter vector, in file order. Matrices are row-major
/// [out][in]. Tensors a pool kind does not use have size zero.
struct ProbeLayout {
  size_t gamma, beta; // LayerNorm scale and shift [d]
  size_t w0, b0;      // projection [h][d], [h]            (attention only)
  size_t query;       // attention query [h]               (attention only)
  size_t w1, b1;      // MLP layer 1 [m1][pooled], [m1]; pooled = h (attention) or d (mean)
  size_t w2, b2;      // MLP layer 2 [m2][m1], [m2]
  size_t w3, b3;      // output [m2], [1]
  size_t total;
  int pooled; // width of the pooled vector
};

ProbeLayout probe_layout(const ProbeShape &shape, PoolKind pool);

} // namespace saguaro::probe

#endif // SAGUARO_PROBE_PROBE_SHAPE_H
