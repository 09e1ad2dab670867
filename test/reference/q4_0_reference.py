"""llama.cpp's Q4_0 in numpy, from ggml's quantize_row_q4_0_reference and dequantize_row_q4_0: blocks of 32 weights
along a row, each with one fp16 scale d = max / -8 (max: the signed value of largest magnitude, the first one on
ties) and 4-bit codes q = min(15, int8(x * (1/d) + 8.5)); the weight is (q - 8) * d. 4.5 bits per weight.

A row whose length is not a multiple of 32 (ggml refuses those) gets a shorter last block, which is what zero padding
gives: zeros never change a block's max."""
import numpy as np

BLOCK = 32


def quantize_block(x):
    """Codes (uint8) and fp16 scale of one block (float32)."""
    x = np.asarray(x, dtype=np.float32)
    i = int(np.argmax(np.abs(x)))  # first index of the largest magnitude, as the strict < scan in ggml
    d = np.float32(x[i]) / np.float32(-8.0)
    inv = np.float32(1.0) / d if d != 0 else np.float32(0.0)
    scaled = (x * inv).astype(np.float32) + np.float32(8.5)  # two roundings, as C without FMA
    q = np.minimum(15, np.trunc(scaled).astype(np.int64))
    return q.astype(np.uint8), np.float16(d)


def fake_quant(w):
    """Quantize-then-dequantize image of a float32 [N][K] matrix."""
    w = np.asarray(w, dtype=np.float32)
    out = np.empty_like(w)
    for n in range(w.shape[0]):
        for k0 in range(0, w.shape[1], BLOCK):
            q, d = quantize_block(w[n, k0:k0 + BLOCK])
            out[n, k0:k0 + BLOCK] = (q.astype(np.float32) - np.float32(8)) * np.float32(d)
    return out


def bits_per_weight(k):
    """Stored bits per weight of a row of k weights: 16 scale bits and 32 four-bit codes per (padded) block."""
    blocks = -(-k // BLOCK)
    return blocks * (16 + 4 * BLOCK) / k
