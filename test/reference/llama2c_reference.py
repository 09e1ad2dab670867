"""Independent numpy forward pass of a llama2.c legacy checkpoint (run.c semantics), as a test oracle.

Usage:
  llama2c_reference.py CHECKPOINT --token-ids FILE -o OUT.npy [--dtype float32|float64]
  llama2c_reference.py CHECKPOINT --check-trace TRACE.txt [--tol 1e-4]
  llama2c_reference.py CHECKPOINT --gram IDS_FILE -o DIR
      (one sequence per line; writes DIR/<weight>.npy = mean x xᵀ over the rows x each weight matrix
       multiplies, named as Saguaro names llama2.c weights: layers.L.wq ... layers.L.w2, the classifier)
"""
import argparse
import re
import struct
import sys

import numpy as np

from token_ids import read_token_ids

_HEADER_FIELDS = ("dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len")


def load_checkpoint(path):
    """Returns (config dict, weights dict) of a llama2.c legacy checkpoint (7 int32 header, float32 data)."""
    with open(path, "rb") as f:
        data = f.read()
    cfg = dict(zip(_HEADER_FIELDS, struct.unpack("<7i", data[:28])))
    shared = cfg["vocab_size"] > 0
    cfg["vocab_size"] = abs(cfg["vocab_size"])
    cfg["shared_classifier"] = shared
    floats = np.frombuffer(data, dtype="<f4", offset=28)
    dim, hid, L = cfg["dim"], cfg["hidden_dim"], cfg["n_layers"]
    hs = dim // cfg["n_heads"]
    kv_dim = cfg["n_kv_heads"] * hs
    # run.c's memory_map_weights order; matrices are [out][in].
    layout = [
        ("tok_emb", (cfg["vocab_size"], dim)),
        ("rms_att", (L, dim)),
        ("wq", (L, cfg["n_heads"] * hs, dim)),
        ("wk", (L, kv_dim, dim)),
        ("wv", (L, kv_dim, dim)),
        ("wo", (L, dim, cfg["n_heads"] * hs)),
        ("rms_ffn", (L, dim)),
        ("w1", (L, hid, dim)),
        ("w2", (L, dim, hid)),
        ("w3", (L, hid, dim)),
        ("rms_final", (dim,)),
    ]
    weights, pos = {}, 0
    for name, shape in layout:
        n = int(np.prod(shape))
        weights[name] = floats[pos:pos + n].reshape(shape)
        pos += n
    pos += cfg["seq_len"] * hs  # legacy freq_cis_real and freq_cis_imag, seq_len*hs/2 floats each
    if shared:
        weights["wcls"] = weights["tok_emb"]
    else:
        weights["wcls"] = floats[pos:pos + cfg["vocab_size"] * dim].reshape(cfg["vocab_size"], dim)
        pos += cfg["vocab_size"] * dim
    if pos > floats.size:
        raise ValueError(f"{path}: truncated checkpoint ({floats.size} floats, need {pos})")
    return cfg, weights


def rms_norm(x, w, eps=1e-5):
    """RMSNorm over the last axis: w * x / sqrt(mean(x²) + eps)."""
    return w * (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps))


def rope_interleaved(x, positions, theta=10000.0):
    """Rotates pairs (2i, 2i+1) of x[T, heads, hs] by angle pos * theta^(-2i/hs)."""
    hs = x.shape[-1]
    freq = 1.0 / theta ** (np.arange(0, hs, 2, dtype=x.dtype) / hs)
    ang = positions[:, None].astype(x.dtype) * freq[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


def forward(cfg, weights, ids, dtype=np.float64, inputs=None):
    """Full causal prefill of ids from position 0; returns logits [T, vocab] in dtype. When `inputs` is a
    dict, inputs[name] gets the list of activations [T, in] each weight matrix multiplied."""
    def seen(name, x):
        if inputs is not None:
            inputs.setdefault(name, []).append(x)
        return x

    w = {k: v.astype(dtype) for k, v in weights.items()}
    T, nh, nkv = len(ids), cfg["n_heads"], cfg["n_kv_heads"]
    hs = cfg["dim"] // nh
    positions = np.arange(T)
    mask = np.triu(np.full((T, T), -np.inf, dtype=dtype), k=1)
    x = w["tok_emb"][np.asarray(ids)]
    for l in range(cfg["n_layers"]):
        h = rms_norm(x, w["rms_att"][l])
        for name in ("wq", "wk", "wv"):
            seen(f"layers.{l}.{name}", h)
        q = rope_interleaved((h @ w["wq"][l].T).reshape(T, nh, hs), positions)
        k = rope_interleaved((h @ w["wk"][l].T).reshape(T, nkv, hs), positions)
        v = (h @ w["wv"][l].T).reshape(T, nkv, hs)
        k = np.repeat(k, nh // nkv, axis=1)  # query head j uses KV head j // (nh/nkv)
        v = np.repeat(v, nh // nkv, axis=1)
        scores = np.einsum("thd,shd->hts", q, k) / np.sqrt(hs) + mask
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        att = np.einsum("hts,shd->thd", probs, v).reshape(T, nh * hs)
        x = x + seen(f"layers.{l}.wo", att) @ w["wo"][l].T
        h = rms_norm(x, w["rms_ffn"][l])
        seen(f"layers.{l}.w1", h), seen(f"layers.{l}.w3", h)
        g, u = h @ w["w1"][l].T, h @ w["w3"][l].T
        x = x + seen(f"layers.{l}.w2", g / (1.0 + np.exp(-g)) * u) @ w["w2"][l].T
    final = rms_norm(x, w["rms_final"])
    seen("tok_embeddings" if cfg["shared_classifier"] else "output", final)
    return final @ w["wcls"].T


def gram(cfg, weights, sequences):
    """Mean x xᵀ over every row each weight matrix multiplies, summed over the sequences (float64)."""
    inputs = {}
    for ids in sequences:
        forward(cfg, weights, ids, np.float64, inputs)
    return {name: sum(x.T @ x for x in xs) / sum(len(x) for x in xs) for name, xs in inputs.items()}


def parse_trace(path):
    """Returns (fed token ids, {pos: logits}) from a run.c trace (PROMPT_IDS / LOGITS / NEXT lines)."""
    fed, logits = [], {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "PROMPT_IDS":
                prompt = [int(t) for t in parts[1:]]
                fed = prompt[:1]  # the first prompt id is fed at pos 0; NEXT lines give the rest in order
            elif parts[0] == "NEXT":
                fed.append(int(parts[1]))
            elif parts[0] == "LOGITS":
                pos = int(re.match(r"pos=(\d+)", parts[1]).group(1))
                token = int(re.match(r"token=(\d+)", parts[2]).group(1))
                if pos >= len(fed) or fed[pos] != token:
                    raise ValueError(f"{path}: LOGITS pos={pos} token={token} disagrees with the fed ids")
                logits[pos] = np.array([float(v) for v in parts[3:]])
    return fed, logits


def check_trace(checkpoint, trace, tol):
    """Compares reference logits with the trace's LOGITS lines; returns the process exit code."""
    cfg, weights = load_checkpoint(checkpoint)
    fed, want = parse_trace(trace)
    n = max(want) + 1
    got = forward(cfg, weights, fed[:n])
    worst = 0.0
    for pos, ref in sorted(want.items()):
        err = float(np.max(np.abs(got[pos] - ref)))
        worst = max(worst, err)
        print(f"pos={pos} token={fed[pos]} max_abs_err={err:.3e} argmax ours={got[pos].argmax()} ref={ref.argmax()}")
    print(f"max_abs_err={worst:.3e} tol={tol:g} positions={len(want)}")
    return 0 if worst <= tol else 1


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--token-ids", help="file of token ids fed from position 0")
    ap.add_argument("-o", "--output", help="where to write logits [T, vocab] as .npy")
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float64")
    ap.add_argument("--check-trace", help="run.c trace file to compare against")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--gram", help="file of sequences (one per line) whose weight-input Gram matrices to write")
    args = ap.parse_args()
    if args.check_trace:
        return check_trace(args.checkpoint, args.check_trace, args.tol)
    if args.gram:
        if not args.output:
            ap.error("--gram needs -o DIR")
        cfg, weights = load_checkpoint(args.checkpoint)
        sequences = [[int(t) for t in line.split()] for line in open(args.gram) if line.strip()]
        for name, g in gram(cfg, weights, sequences).items():
            np.save(f"{args.output}/{name}.npy", g)
        return 0
    if not (args.token_ids and args.output):
        ap.error("--token-ids and -o are required unless --check-trace is given")
    cfg, weights = load_checkpoint(args.checkpoint)
    logits = forward(cfg, weights, read_token_ids(args.token_ids), np.dtype(args.dtype))
    np.save(args.output, logits.astype(args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
