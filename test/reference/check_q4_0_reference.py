"""The C++ Q4_0 baseline (compiler/quantize, `saguaro eval --method q4_0`) against q4_0_reference.py.

  check_q4_0_reference.py --tool PATH/cq_tool [--workdir DIR]

Random matrices of several scales and shapes (K a multiple of 32, and not), plus blocks built to hit the edge cases
(all zeros, a negative extreme, ties in magnitude, values landing on .5 after scaling): the two images must be
bit-identical. Exit status 0 when they are.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import q4_0_reference as ref  # noqa: E402


def edge_rows():
    rows = np.zeros((5, 64), dtype=np.float32)
    rows[1, :32] = np.linspace(-1, 0.5, 32)                     # the extreme is negative: d > 0
    rows[2, :32] = np.linspace(-0.25, 0.25, 32)                 # +max and -max tie: the first one wins
    rows[3, :32] = (np.arange(32) - 16) / np.float32(16) * 0.8  # scaled values on exact halves
    rows[3, 32:] = 1e-30                                        # a subnormal block: fp16(d) underflows
    rows[4] = np.float32(3.0)                                   # constant block: every code is 0 but the max's
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="path of the cq_tool executable")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="q4_0_ref_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(4040)
    cases = [rng.normal(0, s, (n, k)).astype(np.float32) for n, k, s in
             ((8, 128, 0.05), (5, 96, 1.0), (3, 50, 0.02), (4, 7, 0.1), (6, 1024, 0.01))]
    cases.append(edge_rows())
    failures = []
    for i, w in enumerate(cases):
        src, out = os.path.join(work, f"w{i}.npy"), os.path.join(work, f"q{i}.npy")
        np.save(src, w)
        subprocess.run([a.tool, "q4_0", src, out], check=True)
        got, want = np.load(out), ref.fake_quant(w)
        if got.shape != want.shape or not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
            bad = np.argwhere(got != want)
            failures.append(f"case {i} {w.shape}: {len(bad)} weights differ, first at {bad[:3].tolist()}")
        # The image is a Q4_0 image: at most 16 distinct values per block.
        for n in range(w.shape[0]):
            for k0 in range(0, w.shape[1], ref.BLOCK):
                if len(np.unique(got[n, k0:k0 + ref.BLOCK])) > 16:
                    failures.append(f"case {i}: row {n}'s block at {k0} has more than 16 values")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"q4_0: C++ and numpy images bit-identical on {len(cases)} matrices")
    return 0


if __name__ == "__main__":
    sys.exit(main())
