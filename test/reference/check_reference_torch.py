"""Cross-checks hf_reference.py against a second, torch-based formulation on random models of each variant.

Usage: check_reference_torch.py [--workdir DIR] [--tokens T]   (exit 0 iff every variant agrees to 1e-9)

The torch side shares no code with hf_reference.py: it parses safetensors with torch.frombuffer, rotates with
complex multiplication, masks with triu/tril, and keeps GQA as a grouped broadcast instead of repeating heads.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

from torch_safetensors import load_safetensors_torch

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, make_random_hf.py arguments)
VARIANTS = [
    ("llama-f32-untied", ["--arch", "llama"]),
    ("llama-llama3rope-bf16-sharded", ["--arch", "llama", "--llama3-rope", "--dtype", "bf16", "--shards", "3",
                                       "--seed", "1", "--kv-heads", "1"]),
    ("qwen3-f16-tied", ["--arch", "qwen3", "--dtype", "f16", "--seed", "2"]),
    ("qwen3-untied-gqa1", ["--arch", "qwen3", "--no-tie", "--kv-heads", "4", "--seed", "3"]),
    ("gemma3-default", ["--arch", "gemma3", "--seed", "4"]),
    ("gemma3-attn-softcap", ["--arch", "gemma3", "--attn-softcap", "1.5", "--final-softcap", "8.0",
                             "--kv-heads", "2", "--sliding-window", "5", "--layers", "5", "--seed", "5"]),
    ("gemma3-bf16-pattern2", ["--arch", "gemma3", "--dtype", "bf16", "--sliding-window-pattern", "2",
                              "--final-softcap", "0", "--seed", "6"]),
]


def inv_freq_torch(hd, theta, scaling):
    """Inverse RoPE frequencies with default, linear or llama3 scaling, one frequency at a time."""
    freqs = []
    for i in range(hd // 2):
        f = theta ** (-2.0 * i / hd)
        kind = scaling.get("rope_type") if scaling else None
        if kind == "linear":
            f /= scaling["factor"]
        elif kind == "llama3":
            wl = 2 * math.pi / f
            lo_wl = scaling["original_max_position_embeddings"] / scaling["low_freq_factor"]
            hi_wl = scaling["original_max_position_embeddings"] / scaling["high_freq_factor"]
            if wl > lo_wl:
                f /= scaling["factor"]
            elif wl >= hi_wl:
                s = (scaling["original_max_position_embeddings"] / wl - scaling["low_freq_factor"]) / (
                    scaling["high_freq_factor"] - scaling["low_freq_factor"])
                f = (1 - s) * f / scaling["factor"] + s * f
        freqs.append(f)
    return torch.tensor(freqs, dtype=torch.float64)


def rope_complex(x, inv_freq):
    """Rotates halves (i, i+hd/2) of x[heads, T, hd] as complex numbers x_i + j·x_{i+hd/2}."""
    half = x.shape[-1] // 2
    angles = torch.arange(x.shape[1], dtype=torch.float64)[:, None] * inv_freq[None, :]
    z = torch.complex(x[..., :half], x[..., half:]) * torch.polar(torch.ones_like(angles), angles)
    return torch.cat([z.real, z.imag], dim=-1)


def rmsnorm_torch(x, w, eps, gemma):
    """RMSNorm via rsqrt; Gemma's weight is 1 + w."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1 + w if gemma else w)


def torch_forward(model_dir, ids):
    """Logits [T, vocab] (float64) of the model, formulated in torch."""
    c = json.load(open(os.path.join(model_dir, "config.json")))
    W, _ = load_safetensors_torch(model_dir)
    gemma = c["model_type"] == "gemma3_text"
    H, KV, hid = c["num_attention_heads"], c["num_key_value_heads"], c["hidden_size"]
    hd = c.get("head_dim") or hid // H
    T = len(ids)
    x = W["model.embed_tokens.weight"][torch.tensor(ids)]
    if gemma:
        x = x * math.sqrt(hid)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        sliding = gemma and (i + 1) % c["sliding_window_pattern"] != 0
        nrm = lambda y, n: rmsnorm_torch(y, W[p + n], c["rms_norm_eps"], gemma)  # noqa: E731
        h = nrm(x, "input_layernorm.weight")
        q = F.linear(h, W[p + "self_attn.q_proj.weight"]).view(T, H, hd).transpose(0, 1)
        k = F.linear(h, W[p + "self_attn.k_proj.weight"]).view(T, KV, hd).transpose(0, 1)
        v = F.linear(h, W[p + "self_attn.v_proj.weight"]).view(T, KV, hd).transpose(0, 1)
        if p + "self_attn.q_norm.weight" in W:
            q, k = nrm(q, "self_attn.q_norm.weight"), nrm(k, "self_attn.k_norm.weight")
        if sliding:
            inv = inv_freq_torch(hd, c["rope_local_base_freq"], None)
        else:
            inv = inv_freq_torch(hd, c["rope_theta"], c.get("rope_scaling"))
        q, k = rope_complex(q, inv), rope_complex(k, inv)
        qg = q.view(KV, H // KV, T, hd)  # grouped: heads kv*rep .. kv*rep+rep-1 share KV head kv
        scale = c["query_pre_attn_scalar"] ** -0.5 if gemma else hd ** -0.5
        s = torch.matmul(qg, k[:, None].transpose(-1, -2)) * scale
        if gemma and c.get("attn_logit_softcapping"):
            s = torch.tanh(s / c["attn_logit_softcapping"]) * c["attn_logit_softcapping"]
        mask = causal & torch.ones(T, T, dtype=torch.bool).triu(-(c["sliding_window"] - 1)) if sliding else causal
        s = s.masked_fill(~mask, float("-inf"))
        o = torch.matmul(torch.softmax(s, -1), v[:, None]).reshape(H, T, hd).transpose(0, 1).reshape(T, H * hd)
        a = F.linear(o, W[p + "self_attn.o_proj.weight"])
        if gemma:
            x = x + nrm(a, "post_attention_layernorm.weight")
            h = nrm(x, "pre_feedforward_layernorm.weight")
        else:
            x = x + a
            h = nrm(x, "post_attention_layernorm.weight")
        g = F.linear(h, W[p + "mlp.gate_proj.weight"])
        g = F.gelu(g, approximate="tanh") if gemma else F.silu(g)
        m = F.linear(g * F.linear(h, W[p + "mlp.up_proj.weight"]), W[p + "mlp.down_proj.weight"])
        x = x + (nrm(m, "post_feedforward_layernorm.weight") if gemma else m)
    x = rmsnorm_torch(x, W["model.norm.weight"], c["rms_norm_eps"], gemma)
    head = W["model.embed_tokens.weight"] if c["tie_word_embeddings"] else W["lm_head.weight"]
    logits = F.linear(x, head)
    if gemma and c.get("final_logit_softcapping"):
        logits = torch.tanh(logits / c["final_logit_softcapping"]) * c["final_logit_softcapping"]
    return logits.numpy()


def main():
    """Builds each variant, runs both implementations, prints max differences."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--tokens", type=int, default=56)
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="hfref_")
    ids = [int(t) for t in np.random.default_rng(0).integers(0, 256, args.tokens)]
    ids_path = os.path.join(work, "ids.txt")
    os.makedirs(work, exist_ok=True)
    open(ids_path, "w").write(" ".join(map(str, ids)) + "\n")
    ok = True
    for name, gen_args in VARIANTS:
        mdir, out = os.path.join(work, name), os.path.join(work, name + ".npy")
        subprocess.run([sys.executable, os.path.join(HERE, "make_random_hf.py"), "-o", mdir] + gen_args, check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "hf_reference.py"), mdir, "--token-ids", ids_path,
                        "-o", out], check=True)
        ours, theirs = np.load(out), torch_forward(mdir, ids)
        err = float(np.max(np.abs(ours - theirs))) if ours.shape == theirs.shape else float("inf")
        scale = max(1.0, float(np.max(np.abs(theirs))))
        ok &= err <= 1e-9 * scale
        print(f"{name:32s} shape={ours.shape} max|logit|={scale:8.3f} max_abs_diff={err:.3e} "
              f"argmax_agree={np.mean(ours.argmax(-1) == theirs.argmax(-1)):.3f}")
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
