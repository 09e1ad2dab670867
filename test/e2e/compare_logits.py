"""Compares two logits arrays (.npy): exit 0 iff max|ours-ref| <= rtol_scale * max(1, max|ref|), or <= atol when
--atol is given.

Usage: compare_logits.py OURS.npy REF.npy [--rtol-scale 1e-4 | --atol 1e-3]
"""
import argparse
import sys

import numpy as np


def compare(ours, ref, rtol_scale, atol=None):
    """Returns (ok, message) for two logits arrays of the same shape; an absolute tolerance when atol is set."""
    if ours.shape != ref.shape:
        return False, f"shape mismatch: ours {ours.shape} vs reference {ref.shape}"
    ours, ref = ours.astype(np.float64), ref.astype(np.float64)
    if not np.all(np.isfinite(ours)):
        return False, f"ours has {np.count_nonzero(~np.isfinite(ours))} non-finite values"
    err = np.abs(ours - ref)
    scale = max(1.0, float(np.max(np.abs(ref))))
    worst = float(err.max()) if err.size else 0.0
    tol = atol if atol is not None else rtol_scale * scale
    where = np.unravel_index(int(np.argmax(err)), err.shape) if err.size else ()
    msg = f"max_abs_err={worst:.3e} at {tuple(int(i) for i in where)} scale={scale:.4g} tol={tol:.3e}"
    if ours.ndim >= 1 and ours.size:
        agree = float(np.mean(ours.reshape(-1, ours.shape[-1]).argmax(-1) == ref.reshape(-1, ref.shape[-1]).argmax(-1)))
        msg += f" argmax_agreement={agree:.4f}"
    return worst <= tol, msg


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ours")
    ap.add_argument("ref")
    ap.add_argument("--rtol-scale", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, help="an absolute tolerance instead of the scaled one")
    args = ap.parse_args()
    ok, msg = compare(np.load(args.ours), np.load(args.ref), args.rtol_scale, args.atol)
    print(("PASS " if ok else "FAIL ") + msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
