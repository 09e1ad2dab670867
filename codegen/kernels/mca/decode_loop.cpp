// The decode GEMV that generated code calls for one token (saguaro::kernels::cq_matmul_i8 with one activation row,
// on the packed layout kern-pack-weights picks for the int8 path), compiled to assembly by mca.py with a target's
// flags so that llvm-mca can analyse its inner loop: the kernel set the flags select is the one analysed, nothing
// here re-implements it. Never linked or run. SAGUARO_MCA_K and SAGUARO_MCA_BITS pick the shape (K = 1024: the
// Qwen3-0.6B hidden size, group size 128) and the bit width.
#include "saguaro/kernels/kernels.h"

namespace kern = saguaro::kernels;

extern "C" __attribute__((noinline)) void saguaro_mca_decode(const void* xq, const void* codes, const void* norms,
                                                              const void* codebook, float* y) {
  kern::cq_matmul_i8<SAGUARO_MCA_K, 1024, SAGUARO_MCA_BITS, kern::cq::kLayoutPlanarPanel8>(1, xq, codes, norms,
                                                                                         codebook, y, nullptr);
}
