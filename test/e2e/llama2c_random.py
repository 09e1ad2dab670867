"""A random llama2.c checkpoint (shared classifier) for the e2e tests: named tensors in Saguaro's importer names,
and run.c's file layout."""
import struct
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Dims:
    dim: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    seq: int


def layer_tensors(d):
    """(name, shape) of one layer's tensors, in run.c's order."""
    kv = d.kv_heads * d.dim // d.heads
    return [("attention_norm", (d.dim,)), ("wq", (d.dim, d.dim)), ("wk", (kv, d.dim)), ("wv", (kv, d.dim)),
            ("wo", (d.dim, d.dim)), ("ffn_norm", (d.dim,)), ("w1", (d.hidden, d.dim)), ("w2", (d.dim, d.hidden)),
            ("w3", (d.hidden, d.dim))]


def random_weights(d, seed):
    """Norm weights near 1, matrices N(0, 0.3/sqrt(K)), the embedding N(0, 0.5)."""
    rng = np.random.default_rng(seed)
    w = {"tok_embeddings": rng.normal(0, 0.5, (d.vocab, d.dim)).astype(np.float32)}
    for l in range(d.layers):
        for name, shape in layer_tensors(d):
            scale = 1.0 if len(shape) == 1 else 0.3 / np.sqrt(shape[1])
            mean = 1.0 if len(shape) == 1 else 0.0
            w[f"layers.{l}.{name}"] = rng.normal(mean, scale, shape).astype(np.float32)
    w["norm"] = rng.normal(1.0, 0.1, (d.dim,)).astype(np.float32)
    return w


def write_checkpoint(path, w, d):
    """run.c's order: header, embeddings, each per-layer kind stacked over layers, final norm, RoPE tables."""
    parts = [w["tok_embeddings"]]
    for name, _ in layer_tensors(d):
        parts += [w[f"layers.{l}.{name}"] for l in range(d.layers)]
    parts += [w["norm"], np.zeros(d.seq * (d.dim // d.heads), np.float32)]
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", d.dim, d.hidden, d.layers, d.heads, d.kv_heads, d.vocab, d.seq))
        for p in parts:
            f.write(np.ascontiguousarray(p, np.float32).tobytes())
