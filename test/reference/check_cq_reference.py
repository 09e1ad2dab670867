"""Self-check of cq_reference.py against the C++ quantizer (compiler/quantize, through test/unit/quantize/cq_tool).

  check_cq_reference.py --tool PATH/cq_tool [--workdir DIR]

For random matrices of several shapes (K a multiple of 128, K < 128, K not a multiple of the group) and 1–4 bits:
  * the numpy codebook equals the C++ one (float64) within 1e-6 (in practice ~1e-11);
  * numpy's dequantization of the C++ codes + norms + codebook equals the C++ dequantize_cq within 1e-6
    (absolute, for weights of realistic scale; relative to max|W| for unit-scale weights);
  * numpy's own quantizer gives the same fp16 norms and the same codes except at float-rounding ties.
Exit status 0 when everything matches.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cq_reference as ref  # noqa: E402

SHAPES = [(16, 128, 0.05), (7, 172, 0.05), (5, 48, 0.05), (3, 5, 0.05), (9, 300, 0.05), (4, 1024, 0.02),
          (6, 130, 1.0), (8, 64, 1.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="path of the cq_tool executable")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="cq_ref_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(1234)
    failures = []
    worst_cb = worst_deq = 0.0
    code_mismatch = code_total = 0

    for g in (8, 16, 32, 64, 128):
        for bits in (1, 2, 3, 4):
            out = os.path.join(work, f"cb_{g}_{bits}.npy")
            subprocess.run([a.tool, "codebook", str(g), str(bits), out], check=True)
            diff = np.max(np.abs(np.load(out) - ref.codebook(g, bits)))
            worst_cb = max(worst_cb, diff)
            if not diff <= 1e-6:
                failures.append(f"codebook g={g} bits={bits}: max diff {diff:.3g}")

    for si, (N, K, scale) in enumerate(SHAPES):
        W = (rng.standard_normal((N, K)) * scale).astype(np.float32)
        W[0, : min(K, 3)] = 0.0
        if N > 2:
            W[2, :] = 0.0  # a zero row
        inp = os.path.join(work, f"w{si}.npy")
        np.save(inp, W)
        for bits in (1, 2, 3, 4):
            prefix = os.path.join(work, f"w{si}_b{bits}")
            subprocess.run([a.tool, "quantize", inp, str(bits), prefix], check=True)
            codes = np.load(prefix + ".codes.npy")
            norms = np.load(prefix + ".norms.npy")
            cb = np.load(prefix + ".codebook.npy")
            deq_cpp = np.load(prefix + ".deq.npy").astype(np.float64)
            tag = f"N={N} K={K} bits={bits}"
            if codes.shape != (N, ref.padded_k(K) * bits // 8) or norms.shape != (N, ref.groups(K)):
                failures.append(f"{tag}: shapes {codes.shape} {norms.shape}")
                continue
            if np.max(np.abs(cb - ref.codebook(ref.group_size(K), bits))) > 1e-6:
                failures.append(f"{tag}: stored codebook differs from the reference")
            deq = ref.dequantize(codes, norms, cb, K)
            diff = np.max(np.abs(deq - deq_cpp))
            tol = 1e-6 * max(1.0, float(np.max(np.abs(W))))
            worst_deq = max(worst_deq, diff / max(1.0, float(np.max(np.abs(W)))))
            if not diff <= tol:
                failures.append(f"{tag}: dequantize max diff {diff:.3g} > {tol:.3g}")
            # The reference's own quantizer: identical norms, identical codes except at rounding ties.
            rcodes, rnorms = ref.quantize(W, bits)
            if not np.array_equal(rnorms.view(np.uint16), norms.view(np.uint16)):
                failures.append(f"{tag}: norms differ from the reference quantizer")
            ci, ri = ref.unpack_codes(codes, K, bits), ref.unpack_codes(rcodes, K, bits)
            code_mismatch += int(np.sum(ci != ri))
            code_total += ci.size
            if np.mean(ci != ri) > 2e-3:
                failures.append(f"{tag}: {np.sum(ci != ri)} of {ci.size} codes differ from the reference quantizer")
    print(f"codebook max |numpy - C++| = {worst_cb:.3g}")
    print(f"dequantize max |numpy - C++| / max(1, max|W|) = {worst_deq:.3g}")
    print(f"codes differing from the numpy quantizer: {code_mismatch} of {code_total}")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("OK: cq_reference.py matches the C++ quantizer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
