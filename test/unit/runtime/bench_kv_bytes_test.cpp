// kv_bytes_per_decode_step (runtime-min/src/bench.cpp): the KV-cache bytes `saguaro bench` counts a decode step as
// reading, against sums written out by hand.
#include <gtest/gtest.h>

#include "bench.h"

namespace {
saguaro::ModelSpec spec_of(int32_t layers, int32_t max_seq, uint64_t row_bytes, const int32_t* windows) {
  saguaro::ModelSpec s{};
  s.n_layers = layers;
  s.max_seq = max_seq;
  s.windows = windows;
  // K and V of every position in every layer, a sliding layer's of a ring of its window
  for (int32_t l = 0; l < layers; ++l)
    s.kv_bytes += row_bytes * (windows && windows[l] > 0 && windows[l] < max_seq ? windows[l] : max_seq);
  return s;
}
}  // namespace

TEST(BenchKvBytes, FullAttentionReadsEveryPositionSoFar) {
  // 2 layers, 64 bytes per position and layer; steps at positions 3, 4, 5 see 4, 5, 6 positions.
  const saguaro::ModelSpec s = spec_of(2, 16, 64, nullptr);
  EXPECT_DOUBLE_EQ(saguaro::kv_bytes_per_decode_step(s, 3, 3), 2 * 64 * (4 + 5 + 6) / 3.0);
  const int32_t full[] = {0, 0};
  const saguaro::ModelSpec same = spec_of(2, 16, 64, full);
  EXPECT_DOUBLE_EQ(saguaro::kv_bytes_per_decode_step(same, 3, 3), 2 * 64 * (4 + 5 + 6) / 3.0);
}

TEST(BenchKvBytes, SlidingLayersReadTheirWindowOnly) {
  // Layer 0 slides over 5 positions, layer 1 is full: positions 3..6 see 4..7; layer 0 reads 4, 5, 5, 5.
  const int32_t windows[] = {5, 0};
  const saguaro::ModelSpec s = spec_of(2, 32, 10, windows);
  EXPECT_DOUBLE_EQ(saguaro::kv_bytes_per_decode_step(s, 3, 4), 10.0 * ((4 + 5 + 5 + 5) + (4 + 5 + 6 + 7)) / 4);
}
