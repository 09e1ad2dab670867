"""Independent numpy reference of the CQ (codebook quantization) format, written from docs/quantization.md only.

Library:
  group_size(K), padded_k(K), groups(K)      the format's constants
  splitmix64_stream(seed)                    the PRNG (a generator of 64-bit outputs)
  rotation(g) -> (perm, sign)                π and s of R_g from the fixed seed
  rotation_matrix(g) -> R (g×g float64)      R v = (1/√g) H_g (s ⊙ v[π]); orthonormal
  codebook(g, bits) -> float64 [2^bits]      Lloyd-Max centroids of f(x) ∝ (1 − x²)^((g−3)/2)
  unpack_codes(codes, K, bits) -> int [N][Kp]
  dequantize(codes, norms, codebook, K) -> float64 [N][K]
  quantize(W, bits) -> (codes, norms)        the stored format (float64 arithmetic; for cross-checks)

CLI:
  cq_reference.py dequantize --codes C --norms S [--codebook CB] [--bits B] --k K -o W.npy
      C: uint8 [N][G·g·bits/8]; S: fp16 [N][G] (float16, or uint16 holding the half bits); CB: float32 [2^bits].
      Each file is .npy, or else raw little-endian bytes (C: u8, S: f16, CB: f32). Without --codebook, the
      codebook is computed here (then --bits, or it is inferred from the codes' row length).
  cq_reference.py codebook --g G --bits B -o CB.npy     float64 centroids
  cq_reference.py rotation --g G -o R.npy               float64 R_g
"""
import argparse
import functools
import sys

import numpy as np

ROTATION_SEED = 0x5A6E0C0DEB00C5AD
_MASK64 = (1 << 64) - 1


def next_pow2(k):
    p = 1
    while p < k:
        p *= 2
    return p


def group_size(K):
    return min(128, max(8, next_pow2(K)))


def padded_k(K):
    g = group_size(K)
    return -(-K // g) * g


def groups(K):
    return padded_k(K) // group_size(K)


def splitmix64_stream(seed):
    """Yields splitmix64 outputs (Vigna's reference: state += golden gamma, then the two xor-shift-multiplies)."""
    state = seed & _MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        yield z ^ (z >> 31)


@functools.lru_cache(maxsize=None)
def rotation(g):
    """(perm, sign) of R_g: Fisher–Yates from the identity for i = g-1 … 1, then g sign bits (bit 0 = 0 → +1)."""
    rng = splitmix64_stream(ROTATION_SEED)
    perm = list(range(g))
    for i in range(g - 1, 0, -1):
        j = next(rng) % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    sign = [1.0 if (next(rng) & 1) == 0 else -1.0 for _ in range(g)]
    return np.array(perm, dtype=np.int64), np.array(sign, dtype=np.float64)


def hadamard(g):
    """Sylvester Hadamard matrix H_g (H_1 = [1], H_2m = [[H_m, H_m], [H_m, -H_m]])."""
    H = np.ones((1, 1))
    while H.shape[0] < g:
        H = np.block([[H, H], [H, -H]])
    assert H.shape[0] == g, "g must be a power of two"
    return H


@functools.lru_cache(maxsize=None)
def rotation_matrix(g):
    """R_g as a dense matrix: (R v)[i] = (1/√g) Σ_k H[i,k] s[k] v[π[k]]."""
    perm, sign = rotation(g)
    M = np.zeros((g, g))
    M[np.arange(g), perm] = sign  # (M v)[k] = s[k] v[π[k]]
    R = hadamard(g) @ M / np.sqrt(g)
    R.setflags(write=False)
    return R


# ------------------------------------------------------------------------------------------------- codebook

_GL_X, _GL_W = np.polynomial.legendre.leggauss(400)


def _cell_mass(a, b, g):
    """∫_a^b (1 − x²)^((g−3)/2) dx per cell (vectors a, b), 400-point Gauss–Legendre in x."""
    a = np.asarray(a, dtype=np.float64)[:, None]
    b = np.asarray(b, dtype=np.float64)[:, None]
    x = 0.5 * (a + b) + 0.5 * (b - a) * _GL_X[None, :]
    f = np.power(np.clip(1.0 - x * x, 0.0, None), 0.5 * (g - 3))
    return 0.5 * (b[:, 0] - a[:, 0]) * (f @ _GL_W)


def _cell_moment(a, b, g):
    """∫_a^b x (1 − x²)^((g−3)/2) dx = [−(1 − x²)^((g−1)/2) / (g − 1)]_a^b."""
    F = lambda x: -np.power(np.clip(1.0 - np.asarray(x) ** 2, 0.0, None), 0.5 * (g - 1)) / (g - 1)
    return F(b) - F(a)


@functools.lru_cache(maxsize=None)
def _codebook_cached(g, bits):
    n = 1 << bits
    # Any start converges to the same point (the density is log-concave, so the Lloyd-Max quantizer is unique);
    # start from evenly spaced points within ±2.5 standard deviations (1/√g).
    c = np.linspace(-2.5, 2.5, n) / np.sqrt(g) if n > 1 else np.zeros(1)
    for _ in range(200000):
        t = np.concatenate([[-1.0], 0.5 * (c[1:] + c[:-1]), [1.0]])
        new = _cell_moment(t[:-1], t[1:], g) / _cell_mass(t[:-1], t[1:], g)
        moved = np.max(np.abs(new - c))
        c = new
        if moved < 1e-13:
            break
    else:
        raise RuntimeError(f"codebook g={g} bits={bits} did not converge")
    c = 0.5 * (c - c[::-1])  # the density is even
    c.setflags(write=False)
    return c


def codebook(g, bits):
    """Lloyd-Max centroids (float64, ascending) of one coordinate of a uniform unit vector in R^g."""
    return _codebook_cached(int(g), int(bits)).copy()


# ------------------------------------------------------------------------------------------------- format

def unpack_codes(codes, K, bits):
    """codes uint8 [N][G·g·bits/8] → int64 [N][Kp]; per group a little-endian bit stream, LSB first."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    N = codes.shape[0]
    Kp = padded_k(K)
    assert codes.shape[1] == Kp * bits // 8, f"codes row has {codes.shape[1]} bytes, expected {Kp * bits // 8}"
    # Groups are whole bytes, so the row is one continuous little-endian bit stream.
    bitsarr = np.unpackbits(codes, axis=1, bitorder="little").reshape(N, Kp, bits).astype(np.int64)
    return (bitsarr << np.arange(bits, dtype=np.int64)).sum(axis=2)


def as_half(norms):
    norms = np.asarray(norms)
    if norms.dtype == np.uint16:
        norms = norms.view(np.float16)
    assert norms.dtype == np.float16, f"norms must be fp16 (or uint16 half bits), got {norms.dtype}"
    return norms


def dequantize(codes, norms, cb, K):
    """Stored codes + fp16 norms + codebook → float64 W[N][K]: per group ŵ_j = σ_j · R_gᵀ c[code_j], padding dropped."""
    cb = np.asarray(cb, dtype=np.float64)
    bits = int(round(np.log2(len(cb))))
    assert len(cb) == 1 << bits
    g, G = group_size(K), groups(K)
    idx = unpack_codes(codes, K, bits)
    N = idx.shape[0]
    sigma = as_half(norms).astype(np.float64).reshape(N, G)
    vals = cb[idx].reshape(N, G, g)
    R = rotation_matrix(g)
    W = np.einsum("ngi,ik->ngk", vals, R) * sigma[:, :, None]  # row vector · R = (Rᵀ c)ᵀ
    return W.reshape(N, G * g)[:, :K]


def quantize(W, bits):
    """W[N][K] → (codes uint8 [N][G·g·bits/8], norms float16 [N][G]) with float64 arithmetic."""
    W = np.asarray(W, dtype=np.float64)
    N, K = W.shape
    g, G, Kp = group_size(K), groups(K), padded_k(K)
    Wp = np.zeros((N, Kp))
    Wp[:, :K] = W
    Wp = Wp.reshape(N, G, g)
    sigma = np.sqrt((Wp * Wp).sum(axis=2))
    safe = np.where(sigma > 0, sigma, 1.0)
    r = np.einsum("ik,ngk->ngi", rotation_matrix(g), Wp / safe[:, :, None])
    cb = codebook(g, bits).astype(np.float32).astype(np.float64)  # the stored centroids
    idx = np.argmin(np.abs(r[..., None] - cb), axis=-1)  # first minimum = lower index on ties
    idx[sigma == 0] = 0
    bitsarr = ((idx.reshape(N, Kp)[:, :, None] >> np.arange(bits)) & 1).astype(np.uint8).reshape(N, Kp * bits)
    codes = np.packbits(bitsarr, axis=1, bitorder="little")
    # Least-squares group scale: sigma * <r, c[code]> / |c[code]|^2 (the norm itself when that is 0).
    c = cb[idx]
    cc = (c * c).sum(axis=2)
    scale = np.where(cc > 0, sigma * (r * c).sum(axis=2) / np.where(cc > 0, cc, 1.0), sigma)
    return codes, scale.astype(np.float16)


# ------------------------------------------------------------------------------------------------- CLI

def _load(path, raw_dtype):
    if path.endswith(".npy"):
        return np.load(path)
    return np.fromfile(path, dtype=raw_dtype)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dequantize")
    d.add_argument("--codes", required=True)
    d.add_argument("--norms", required=True)
    d.add_argument("--codebook")
    d.add_argument("--bits", type=int)
    d.add_argument("--k", type=int, required=True)
    d.add_argument("-o", "--output", required=True)
    c = sub.add_parser("codebook")
    c.add_argument("--g", type=int, required=True)
    c.add_argument("--bits", type=int, required=True)
    c.add_argument("-o", "--output", required=True)
    r = sub.add_parser("rotation")
    r.add_argument("--g", type=int, required=True)
    r.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)

    if a.cmd == "codebook":
        np.save(a.output, codebook(a.g, a.bits))
    elif a.cmd == "rotation":
        np.save(a.output, np.array(rotation_matrix(a.g)))
    else:
        K, G, Kp = a.k, groups(a.k), padded_k(a.k)
        norms = as_half(_load(a.norms, np.float16))
        N = norms.size // G
        if norms.size != N * G:
            sys.exit(f"norms hold {norms.size} values, not a multiple of G={G}")
        codes = _load(a.codes, np.uint8).reshape(N, -1)
        if a.codebook:
            cb = _load(a.codebook, np.float32).astype(np.float64).ravel()
        else:
            bits = a.bits or codes.shape[1] * 8 // Kp
            cb = codebook(group_size(K), bits).astype(np.float32).astype(np.float64)
        np.save(a.output, dequantize(codes, norms.reshape(N, G), cb, K))
    return 0


if __name__ == "__main__":
    sys.exit(main())
