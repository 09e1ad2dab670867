"""Writes a tiny random-weight Gemma 4 text model in Hugging Face format (config.json + safetensors) for tests.

Usage: make_random_gemma4.py --variant full|plain -o DIR [--seed S] [--conditional [--audio]] [--dtype f32|bf16|f16]
                             [--shards N] [--sliding-window W] [--final-softcap C] [--no-tie]
                             [--vision clipped|standardize]

full: every feature at once — 8 layers [s s F s s F s F] (s sliding, F full), the last 4 reading K/V of layers 3
(sliding) and 2 (full); double-wide MLPs on those 4; attention_k_eq_v with one KV head on full layers and two on
sliding ones; head dim 16 on sliding layers, 32 on full ones with proportional RoPE (4 of 16 pairs rotate);
per-layer embeddings of width 8; random layer_scalar; final soft-cap; sliding window 8 (test with 20+ tokens).
plain: 4 layers [s F s F], one head dim and KV-head count, default RoPE everywhere, no PLE, no sharing, no k_eq_v,
no soft-cap, layer_scalar 1. Hidden 48 in both, so sqrt(hidden) is not exact in bfloat16.

Default: Gemma4ForCausalLM (gemma4_text, tensors under model.), float32, one file. --conditional:
Gemma4ForConditionalGeneration (gemma4, nested text_config, tensors under model.language_model.), bfloat16 over 2
shards with model.safetensors.index.json, plus what a released file carries that the text decoder does not read:
K/V projections and k_norm on KV-shared layers, and a stub audio tower (a few tensors with the real names, tiny
shapes matching the tiny audio_config); no vision tower. The same seed gives the same text weights in every form.
--vision (with --conditional) adds a whole vision tower and its vision_config (random_gemma4_vision.py) and moves the
image placeholder ids into the tiny vocabulary; --audio (with --conditional) replaces the stub audio tower
by a whole one (random_gemma4_audio.py), its ids inside the tiny vocabulary too.
"""
import argparse
import sys

import numpy as np

from make_random_hf import write_model
import random_gemma4_vision
from random_gemma4_audio import add_audio_tower

SLIDING, FULL = "sliding_attention", "full_attention"
_S, _F = SLIDING, FULL

_VARIANTS = {
    "full": dict(layer_types=[_S, _S, _F, _S, _S, _F, _S, _F], hidden=48, heads=4, kv_heads=2, head_dim=16,
                 global_head_dim=32, global_kv_heads=1, k_eq_v=True, shared=4, double_wide=True, intermediate=64,
                 ple_dim=8, vocab=256, final_softcap=10.0, random_layer_scalar=True,
                 full_rope={"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0}),
    "plain": dict(layer_types=[_S, _F, _S, _F], hidden=48, heads=4, kv_heads=2, head_dim=16, global_head_dim=16,
                  global_kv_heads=None, k_eq_v=False, shared=0, double_wide=False, intermediate=64, ple_dim=0,
                  vocab=256, final_softcap=None, random_layer_scalar=False,
                  full_rope={"rope_type": "default", "rope_theta": 1000000.0}),
}
_DTYPES = {"f32": ("F32", "float32"), "bf16": ("BF16", "bfloat16"), "f16": ("F16", "float16")}
# Gemma4Config's token ids, as the released configs carry them (outside the tiny vocabulary).
_MM_TOKENS = {"boi_token_id": 255999, "eoi_token_id": 258882, "image_token_id": 258880, "video_token_id": 258884,
              "boa_token_id": 256000, "eoa_token_id": 258883, "eoa_token_index": 258883, "audio_token_id": 258881}
_TOWER_WIDTH = 16


def text_config(v, a):
    """Gemma4TextConfig fields, spelled as configuration_gemma4.py spells them."""
    return {
        "model_type": "gemma4_text",
        "vocab_size": v["vocab"],
        "hidden_size": v["hidden"],
        "intermediate_size": v["intermediate"],
        "num_hidden_layers": len(v["layer_types"]),
        "num_attention_heads": v["heads"],
        "num_key_value_heads": v["kv_heads"],
        "head_dim": v["head_dim"],
        "global_head_dim": v["global_head_dim"],
        "num_global_key_value_heads": v["global_kv_heads"],
        "hidden_activation": "gelu_pytorch_tanh",
        "max_position_embeddings": 512,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": a.tie,
        "rope_parameters": {SLIDING: {"rope_type": "default", "rope_theta": 10000.0}, FULL: v["full_rope"]},
        "attention_bias": False,
        "attention_dropout": 0.0,
        "sliding_window": a.sliding_window,
        "layer_types": v["layer_types"],
        "final_logit_softcapping": a.final_softcap,
        "use_bidirectional_attention": None,
        "vocab_size_per_layer_input": v["vocab"],
        "hidden_size_per_layer_input": v["ple_dim"],
        "attention_k_eq_v": v["k_eq_v"],
        "num_kv_shared_layers": v["shared"],
        "enable_moe_block": False,
        "use_double_wide_mlp": v["double_wide"],
        "num_experts": None,
        "top_k_experts": None,
        "moe_intermediate_size": None,
        "pad_token_id": 0,
        "eos_token_id": 1,
        "bos_token_id": 2,
        "use_cache": True,
        "dtype": _DTYPES[a.dtype][1],
    }


def make_config(v, a):
    """config.json: the text config itself, or Gemma4Config wrapping it with a stub audio tower config and, with
    --vision, a whole vision tower's."""
    text = text_config(v, a)
    if not a.conditional:
        return dict(text, architectures=["Gemma4ForCausalLM"])
    audio = {"model_type": "gemma4_audio", "hidden_size": _TOWER_WIDTH, "num_hidden_layers": 1,
             "num_attention_heads": 2, "hidden_act": "silu", "subsampling_conv_channels": [8, 4],
             "conv_kernel_size": 5, "residual_weight": 0.5, "attention_chunk_size": 12, "attention_context_left": 13,
             "attention_context_right": 0, "attention_logit_cap": 50.0, "use_clipped_linears": True,
             "rms_norm_eps": 1e-6, "output_proj_dims": _TOWER_WIDTH}
    tokens = dict(_MM_TOKENS)
    towers = {"audio_config": audio}
    if a.vision:
        towers["vision_config"] = random_gemma4_vision.vision_config(a.vision)
        tokens.update(random_gemma4_vision.IMAGE_TOKEN_IDS)
    return dict({"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4", "text_config": text,
                 **towers, "tie_word_embeddings": a.tie, "initializer_range": 0.02, "dtype": _DTYPES[a.dtype][1]},
                **tokens)


def shared_layers(v):
    """Indices of the KV-shared layers."""
    n = len(v["layer_types"])
    return range(n - v["shared"], n)


def text_weights(v, a, rng, prefix):
    """{name: float32 array} of every tensor the text decoder reads, scaled so activations stay O(1)."""
    H, n = v["hidden"], len(v["layer_types"])

    def linear(out_f, in_f):
        return (rng.standard_normal((out_f, in_f)) / np.sqrt(in_f)).astype(np.float32)

    def norm(size, scale=1.0):
        # Gemma 4 multiplies by the weight itself, so it sits around 1 (Gemma 3 stored an offset from 1).
        return (scale * (1.0 + 0.1 * rng.standard_normal(size))).astype(np.float32)

    # The embedding is multiplied by sqrt(hidden) ≈ 6.9: rows of std 0.2 keep it near the layers' outputs, O(1).
    w = {prefix + "embed_tokens.weight": (0.2 * rng.standard_normal((v["vocab"], H))).astype(np.float32)}
    if v["ple_dim"]:
        w[prefix + "embed_tokens_per_layer.weight"] = (
            0.35 * rng.standard_normal((v["vocab"], n * v["ple_dim"]))).astype(np.float32)
        w[prefix + "per_layer_model_projection.weight"] = linear(n * v["ple_dim"], H)
        w[prefix + "per_layer_projection_norm.weight"] = norm(v["ple_dim"])
    shared = set(shared_layers(v))
    for i, kind in enumerate(v["layer_types"]):
        p = f"{prefix}layers.{i}."
        full = kind == FULL
        hd = v["global_head_dim"] if full else v["head_dim"]
        kv = v["global_kv_heads"] if full and v["k_eq_v"] else v["kv_heads"]
        # Attention runs with scale 1.0: q_norm and k_norm of hd^-1/4 give q·k a unit spread.
        w[p + "self_attn.q_proj.weight"] = linear(v["heads"] * hd, H)
        w[p + "self_attn.q_norm.weight"] = norm(hd, hd ** -0.25)
        if i not in shared:
            w[p + "self_attn.k_proj.weight"] = linear(kv * hd, H)
            w[p + "self_attn.k_norm.weight"] = norm(hd, hd ** -0.25)
            if not (full and v["k_eq_v"]):
                w[p + "self_attn.v_proj.weight"] = linear(kv * hd, H)
        w[p + "self_attn.o_proj.weight"] = linear(H, v["heads"] * hd)
        width = v["intermediate"] * (2 if v["double_wide"] and i in shared else 1)
        w[p + "mlp.gate_proj.weight"] = linear(width, H)
        w[p + "mlp.up_proj.weight"] = linear(width, H)
        w[p + "mlp.down_proj.weight"] = linear(H, width)
        for name in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                     "post_feedforward_layernorm"):
            w[p + name + ".weight"] = norm(H)
        if v["ple_dim"]:
            w[p + "per_layer_input_gate.weight"] = linear(v["ple_dim"], H)
            w[p + "per_layer_projection.weight"] = linear(H, v["ple_dim"])
            w[p + "post_per_layer_input_norm.weight"] = norm(H)
        scalar = rng.uniform(0.5, 1.5) if v["random_layer_scalar"] else 1.0
        w[p + "layer_scalar"] = np.array([scalar], dtype=np.float32)
    w[prefix + "norm.weight"] = norm(H)
    if not a.tie:
        w["lm_head.weight"] = 2.0 * linear(v["vocab"], H)
    return w


def unread_weights(v, rng, prefix):
    """What a released Gemma4ForConditionalGeneration file carries beyond the text decoder: K/V projections and
    k_norm on KV-shared layers, and a few tensors of each tower under their real names."""
    H, T = v["hidden"], _TOWER_WIDTH

    def rand(*shape):
        return (0.1 * rng.standard_normal(shape)).astype(np.float32)

    w = {}
    for i in shared_layers(v):
        full = v["layer_types"][i] == FULL
        hd = v["global_head_dim"] if full else v["head_dim"]
        kv = v["global_kv_heads"] if full and v["k_eq_v"] else v["kv_heads"]
        p = f"{prefix}layers.{i}.self_attn."
        w[p + "k_proj.weight"] = rand(kv * hd, H)
        w[p + "k_norm.weight"] = 1.0 + rand(hd)
        if not (full and v["k_eq_v"]):
            w[p + "v_proj.weight"] = rand(kv * hd, H)
    w["model.audio_tower.output_proj.weight"] = rand(T, T)
    w["model.audio_tower.output_proj.bias"] = rand(T)
    w["model.embed_audio.embedding_projection.weight"] = rand(H, T)
    return w


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=sorted(_VARIANTS), required=True)
    ap.add_argument("-o", "--output", required=True, help="model directory to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--conditional", action="store_true",
                    help="Gemma4ForConditionalGeneration layout (default then: --dtype bf16 --shards 2)")
    ap.add_argument("--audio", action="store_true", help="with --conditional: a real tiny audio tower, not the stub")
    ap.add_argument("--dtype", choices=sorted(_DTYPES), help="stored dtype (default f32, bf16 with --conditional)")
    ap.add_argument("--shards", type=int, help="split over N files with an index (default 1, 2 with --conditional)")
    ap.add_argument("--sliding-window", type=int, default=8)
    ap.add_argument("--final-softcap", type=float, help="final_logit_softcapping (0: none; default: the variant's)")
    ap.add_argument("--no-tie", dest="tie", action="store_false", help="write lm_head.weight, untied")
    ap.add_argument("--vision", choices=random_gemma4_vision.KINDS,
                    help="with --conditional: a whole vision tower, clipped linears or standardize")
    a = ap.parse_args()
    if a.vision and not a.conditional:
        ap.error("--vision needs --conditional (the tower lives in Gemma4ForConditionalGeneration)")
    if a.audio and not a.conditional:
        ap.error("--audio needs --conditional")
    v = _VARIANTS[a.variant]
    a.dtype = a.dtype or ("bf16" if a.conditional else "f32")
    a.shards = a.shards or (2 if a.conditional else 1)
    a.final_softcap = v["final_softcap"] if a.final_softcap is None else (a.final_softcap or None)
    prefix = "model.language_model." if a.conditional else "model."
    weights = text_weights(v, a, np.random.default_rng(a.seed), prefix)
    if a.conditional:  # a second stream, so the text weights stay those of the same seed without --conditional
        weights.update(unread_weights(v, np.random.default_rng([a.seed, 1]), prefix))
    if a.vision:
        weights.update(random_gemma4_vision.vision_weights(a.vision, v["hidden"], np.random.default_rng([a.seed, 2])))
    config = make_config(v, a)
    if a.audio:
        add_audio_tower(config, weights, np.random.default_rng([a.seed, 2]))
    write_model(a.output, config, weights, _DTYPES[a.dtype][0], a.shards)
    return 0


if __name__ == "__main__":
    sys.exit(main())
