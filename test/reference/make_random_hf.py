"""Writes a small random-weight Hugging Face model directory (config.json + safetensors) for tests.

Usage: make_random_hf.py --arch llama|qwen3|gemma3 -o DIR [--seed S] [--layers N] [--hidden H] [--vocab V]
                         [--sliding-window W] [--attn-softcap C] [--dtype f32|bf16|f16] [--shards N] ...
"""
import argparse
import json
import os
import sys

import numpy as np

from safetensors_io import write_safetensors

_ARCH_DEFAULTS = {
    "llama": dict(layers=2, hidden=64, heads=4, kv_heads=2, head_dim=None, intermediate=160, vocab=256,
                  tie=False, rope_theta=10000.0),
    "qwen3": dict(layers=2, hidden=64, heads=4, kv_heads=2, head_dim=32, intermediate=160, vocab=256,
                  tie=True, rope_theta=1000000.0),
    # 4 layers with pattern 3: sliding, sliding, global, sliding.
    "gemma3": dict(layers=4, hidden=64, heads=4, kv_heads=1, head_dim=32, intermediate=192, vocab=256,
                   tie=True, rope_theta=1000000.0),
}
_DTYPES = {"f32": ("F32", "float32"), "bf16": ("BF16", "bfloat16"), "f16": ("F16", "float16")}


def make_config(a):
    """Returns the config.json dict for the parsed arguments, with HF's field names."""
    arch = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM", "gemma3": "Gemma3ForCausalLM"}[a.arch]
    cfg = {
        "architectures": [arch],
        "model_type": "gemma3_text" if a.arch == "gemma3" else a.arch,
        "hidden_size": a.hidden,
        "intermediate_size": a.intermediate,
        "num_hidden_layers": a.layers,
        "num_attention_heads": a.heads,
        "num_key_value_heads": a.kv_heads,
        "rms_norm_eps": 1e-6 if a.arch != "llama" else 1e-5,
        "rope_theta": a.rope_theta,
        "vocab_size": a.vocab,
        "max_position_embeddings": 512,
        "tie_word_embeddings": a.tie,
        "torch_dtype": _DTYPES[a.dtype][1],
        "attention_bias": False,
        "bos_token_id": 1,
        "eos_token_id": 2,
    }
    if a.head_dim:
        cfg["head_dim"] = a.head_dim
    if a.arch in ("llama", "qwen3"):
        cfg["hidden_act"] = "silu"
    if a.arch == "llama" and a.llama3_rope:
        cfg["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0, "original_max_position_embeddings": 32}
    if a.arch == "gemma3":
        cfg.update({
            "hidden_activation": "gelu_pytorch_tanh",
            "query_pre_attn_scalar": a.query_pre_attn_scalar,
            "sliding_window": a.sliding_window,
            "sliding_window_pattern": a.sliding_window_pattern,
            "rope_local_base_freq": 10000.0,
            "rope_scaling": {"rope_type": "linear", "factor": a.rope_scaling_factor},
            "final_logit_softcapping": a.final_softcap,
            "attn_logit_softcapping": a.attn_softcap,
        })
    return cfg


def make_weights(a, rng):
    """Returns {HF tensor name: float32 array} scaled so activations stay O(1)."""
    hd = a.head_dim or a.hidden // a.heads
    gemma = a.arch == "gemma3"

    def linear(out_f, in_f):
        return (rng.standard_normal((out_f, in_f)) / np.sqrt(in_f)).astype(np.float32)

    def norm(n):
        # Gemma stores the norm weight as an offset from 1.
        return ((0.0 if gemma else 1.0) + 0.1 * rng.standard_normal(n)).astype(np.float32)

    # Gemma multiplies the embedding by sqrt(hidden): a smaller table keeps the residual stream O(1).
    embed_std = 0.25 if gemma else 0.5
    w = {"model.embed_tokens.weight": (rng.standard_normal((a.vocab, a.hidden)) * embed_std).astype(np.float32)}
    for i in range(a.layers):
        p = f"model.layers.{i}."
        w[p + "self_attn.q_proj.weight"] = linear(a.heads * hd, a.hidden)
        w[p + "self_attn.k_proj.weight"] = linear(a.kv_heads * hd, a.hidden)
        w[p + "self_attn.v_proj.weight"] = linear(a.kv_heads * hd, a.hidden)
        w[p + "self_attn.o_proj.weight"] = linear(a.hidden, a.heads * hd)
        w[p + "mlp.gate_proj.weight"] = linear(a.intermediate, a.hidden)
        w[p + "mlp.up_proj.weight"] = linear(a.intermediate, a.hidden)
        w[p + "mlp.down_proj.weight"] = linear(a.hidden, a.intermediate)
        w[p + "input_layernorm.weight"] = norm(a.hidden)
        w[p + "post_attention_layernorm.weight"] = norm(a.hidden)
        if a.arch in ("qwen3", "gemma3"):
            w[p + "self_attn.q_norm.weight"] = norm(hd)
            w[p + "self_attn.k_norm.weight"] = norm(hd)
        if gemma:
            w[p + "pre_feedforward_layernorm.weight"] = norm(a.hidden)
            w[p + "post_feedforward_layernorm.weight"] = norm(a.hidden)
    w["model.norm.weight"] = norm(a.hidden)
    if not a.tie:
        w["lm_head.weight"] = linear(a.vocab, a.hidden) * np.float32(2.0)
    return w


def write_model(out_dir, cfg, weights, dtype, shards):
    """Writes config.json and model.safetensors, or `shards` files plus model.safetensors.index.json."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    if shards <= 1:
        write_safetensors(os.path.join(out_dir, "model.safetensors"), weights, dtype)
        return
    names = sorted(weights)
    weight_map = {}
    for s in range(shards):
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: weights[n] for n in names[s::shards]}
        write_safetensors(os.path.join(out_dir, fname), part, dtype)
        weight_map.update({n: fname for n in part})
    with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=2)


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=sorted(_ARCH_DEFAULTS), required=True)
    ap.add_argument("-o", "--output", required=True, help="model directory to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--kv-heads", type=int)
    ap.add_argument("--head-dim", type=int, help="head_dim field (llama default: omitted, hidden/heads)")
    ap.add_argument("--intermediate", type=int)
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--rope-theta", type=float)
    ap.add_argument("--tie", dest="tie", action="store_true", default=None)
    ap.add_argument("--no-tie", dest="tie", action="store_false")
    ap.add_argument("--llama3-rope", action="store_true", help="llama: add llama3 rope_scaling")
    ap.add_argument("--sliding-window", type=int, default=8)
    ap.add_argument("--sliding-window-pattern", type=int, default=3)
    ap.add_argument("--query-pre-attn-scalar", type=float, default=24.0)
    ap.add_argument("--rope-scaling-factor", type=float, default=8.0, help="gemma3: linear factor on globals")
    ap.add_argument("--attn-softcap", type=float, default=None, help="gemma3: attn_logit_softcapping")
    ap.add_argument("--final-softcap", type=float, default=30.0, help="gemma3: final_logit_softcapping")
    ap.add_argument("--dtype", choices=sorted(_DTYPES), default="f32")
    ap.add_argument("--shards", type=int, default=1, help="split weights over N files with an index")
    a = ap.parse_args()
    for key, value in _ARCH_DEFAULTS[a.arch].items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    if a.final_softcap is not None and a.final_softcap <= 0:
        a.final_softcap = None
    rng = np.random.default_rng(a.seed)
    write_model(a.output, make_config(a), make_weights(a, rng), _DTYPES[a.dtype][0], a.shards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
