"""Independent numpy forward pass of HF LlamaForCausalLM, Qwen3ForCausalLM and Gemma3ForCausalLM (text).

Usage: hf_reference.py MODEL_DIR --token-ids FILE -o OUT.npy [--dtype float64|float32]

Follows transformers' semantics: full causal prefill from position 0, logits [T, vocab]. Weights stored as
F16/BF16 are widened and everything is computed in --dtype (HF would compute in the stored dtype).
"""
import json
import math
import os
import sys

import numpy as np

import reference_cli
from safetensors_io import read_model_weights

# Per-architecture config defaults (transformers' config classes) for fields a config.json may omit.
_DEFAULTS = {
    "llama": {"rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu"},
    "qwen3": {"rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu"},
    "gemma3_text": {
        "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True,
        "hidden_activation": "gelu_pytorch_tanh", "rope_local_base_freq": 10000.0, "sliding_window": 4096,
        "sliding_window_pattern": 6, "query_pre_attn_scalar": 256, "head_dim": 256,
        "final_logit_softcapping": None, "attn_logit_softcapping": None,
    },
}


class ModelConfig:
    """The fields of config.json the forward pass needs, with defaults and derived values resolved."""

    def __init__(self, raw):
        """Resolves a config.json dict."""
        self.arch = raw.get("model_type", "llama")
        if self.arch == "gemma3":  # multimodal wrapper: take the text part
            raw = dict(raw["text_config"], model_type="gemma3_text")
            self.arch = "gemma3_text"
        if self.arch not in _DEFAULTS:
            raise ValueError(f"unsupported model_type {self.arch!r}")
        cfg = dict(_DEFAULTS[self.arch], **{k: v for k, v in raw.items() if v is not None or k.endswith("capping")})
        self.gemma = self.arch == "gemma3_text"
        self.hidden = cfg["hidden_size"]
        self.layers = cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]
        self.kv_heads = cfg.get("num_key_value_heads") or self.heads
        self.head_dim = cfg.get("head_dim") or self.hidden // self.heads
        self.eps = cfg["rms_norm_eps"]
        self.tied = cfg["tie_word_embeddings"]
        self.act = cfg.get("hidden_activation") or cfg.get("hidden_act", "silu")
        self.attn_softcap = cfg.get("attn_logit_softcapping")
        self.final_softcap = cfg.get("final_logit_softcapping")
        scalar = cfg["query_pre_attn_scalar"] if self.gemma else self.head_dim
        self.attn_scale = scalar ** -0.5
        self.sliding = self._sliding_layers(cfg)
        self.window = cfg.get("sliding_window")
        self.rope_global, self.rope_local = self._rope(cfg)
        if self.attn_bias(cfg):
            raise ValueError("attention_bias / mlp_bias true is not supported")

    def _sliding_layers(self, cfg):
        """Per layer: True when the layer uses sliding-window attention."""
        if cfg.get("layer_types"):
            return [t == "sliding_attention" for t in cfg["layer_types"]]
        if self.gemma:
            pattern = cfg["sliding_window_pattern"]
            return [(i + 1) % pattern != 0 for i in range(self.layers)]
        return [False] * self.layers

    def _rope(self, cfg):
        """(theta, scaling) for global and for sliding layers, from rope_* fields or rope_parameters."""
        params = cfg.get("rope_parameters")
        if params and "full_attention" in params:  # newer transformers: one dict per layer type
            full = params["full_attention"]
            local = params.get("sliding_attention", full)
            return (full["rope_theta"], full), (local["rope_theta"], local)
        if params:
            return (params["rope_theta"], params), (params["rope_theta"], params)
        rope_global = (cfg["rope_theta"], cfg.get("rope_scaling"))
        # Gemma 3 sliding layers use the local base frequency without scaling.
        return rope_global, ((cfg["rope_local_base_freq"], None) if self.gemma else rope_global)

    @staticmethod
    def attn_bias(cfg):
        """True when the config asks for projection biases."""
        return bool(cfg.get("attention_bias")) or bool(cfg.get("mlp_bias"))


def rope_inv_freq(head_dim, theta, scaling):
    """HF inverse frequencies theta^(-2i/d), adjusted for rope_scaling types default, linear and llama3."""
    inv_freq = 1.0 / theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    kind = (scaling or {}).get("rope_type", (scaling or {}).get("type", "default"))
    if kind == "default":
        return inv_freq
    if kind == "linear":
        return inv_freq / scaling["factor"]
    if kind == "llama3":
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old_len = scaling["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv_freq
        low_wavelen, high_wavelen = old_len / low, old_len / high
        scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
        smooth = (old_len / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
        return np.where(medium, smoothed, scaled)
    raise ValueError(f"unsupported rope_scaling type {kind!r}")


def apply_rope(x, inv_freq):
    """rotate_half RoPE on x[T, heads, hd] at positions 0..T-1: x·cos + rotate_half(x)·sin."""
    T, half = x.shape[0], x.shape[-1] // 2
    ang = np.arange(T, dtype=np.float64)[:, None] * inv_freq[None, :]
    cos = np.cos(np.concatenate([ang, ang], -1)).astype(x.dtype)[:, None, :]
    sin = np.sin(np.concatenate([ang, ang], -1)).astype(x.dtype)[:, None, :]
    rotated = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


def rms_norm(x, w, eps, add_one):
    """RMSNorm over the last axis; Gemma scales by (1 + w)."""
    normed = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return normed * ((1.0 + w) if add_one else w)


def activation(name, g):
    """SiLU or GELU (tanh approximation) of g."""
    if name == "silu":
        return g / (1.0 + np.exp(-g))
    if name in ("gelu_pytorch_tanh", "gelu_tanh"):
        return 0.5 * g * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (g + 0.044715 * g ** 3)))
    raise ValueError(f"unsupported activation {name!r}")


def attention(q, k, v, scale, window, softcap):
    """Causal GQA attention of q[T,H,hd] over k,v[T,KVH,hd]; key t visible from p iff t<=p and p-t<window."""
    T, H, _ = q.shape
    rep = H // k.shape[1]
    k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)  # query head h uses KV head h // rep
    scores = np.einsum("thd,shd->hts", q, k) * scale
    if softcap:
        scores = softcap * np.tanh(scores / softcap)
    p, t = np.arange(T)[:, None], np.arange(T)[None, :]
    visible = (t <= p) & ((p - t < window) if window else True)
    scores = np.where(visible[None], scores, -np.inf)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    return np.einsum("hts,shd->thd", probs, v)


def decoder_layer(cfg, w, i, x, kv_cache="f32"):
    """One decoder layer on hidden states x[T, hidden]; w maps HF tensor names to arrays. With kv_cache "f16" the
    keys and values attention reads are rounded to IEEE binary16 first, as a half-precision KV cache stores them."""
    pre = f"model.layers.{i}."
    T, hd = x.shape[0], cfg.head_dim
    norm = lambda y, name: rms_norm(y, w[pre + name], cfg.eps, cfg.gemma)  # noqa: E731
    h = norm(x, "input_layernorm.weight")
    q = (h @ w[pre + "self_attn.q_proj.weight"].T).reshape(T, cfg.heads, hd)
    k = (h @ w[pre + "self_attn.k_proj.weight"].T).reshape(T, cfg.kv_heads, hd)
    v = (h @ w[pre + "self_attn.v_proj.weight"].T).reshape(T, cfg.kv_heads, hd)
    if pre + "self_attn.q_norm.weight" in w:  # Qwen3 and Gemma 3: per-head RMSNorm before RoPE
        q = norm(q, "self_attn.q_norm.weight")
        k = norm(k, "self_attn.k_norm.weight")
    theta, scaling = cfg.rope_local if cfg.sliding[i] else cfg.rope_global
    inv_freq = rope_inv_freq(hd, theta, scaling)
    q, k = apply_rope(q, inv_freq), apply_rope(k, inv_freq)
    if kv_cache == "f16":
        k, v = k.astype(np.float16).astype(x.dtype), v.astype(np.float16).astype(x.dtype)
    window = cfg.window if cfg.sliding[i] else None
    att = attention(q, k, v, cfg.attn_scale, window, cfg.attn_softcap).reshape(T, cfg.heads * hd)
    h = att @ w[pre + "self_attn.o_proj.weight"].T
    if cfg.gemma:  # sandwich norms
        x = x + norm(h, "post_attention_layernorm.weight")
        h = norm(x, "pre_feedforward_layernorm.weight")
    else:
        x = x + h
        h = norm(x, "post_attention_layernorm.weight")
    gate = h @ w[pre + "mlp.gate_proj.weight"].T
    up = h @ w[pre + "mlp.up_proj.weight"].T
    h = (activation(cfg.act, gate) * up) @ w[pre + "mlp.down_proj.weight"].T
    if cfg.gemma:
        h = norm(h, "post_feedforward_layernorm.weight")
    return x + h


def forward(model_dir, ids, dtype=np.float64, hidden_layer=None, kv_cache="f32", weights="f32"):
    """Logits [T, vocab] of a full causal prefill of ids, computed in dtype; with hidden_layer L, the residual
    stream after L decoder layers instead (Hugging Face's hidden_states[L], what llm.hidden_tap exposes).
    kv_cache "f16" rounds keys and values to binary16 (decoder_layer); weights "f16" rounds every weight matrix
    (the 2-D tensors: linears, embedding, output head) to binary16, as `saguaro compile --bits 16` stores them."""
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = ModelConfig(json.load(f))

    def stored(t):
        return t.astype(np.float16) if weights == "f16" and t.ndim == 2 else t

    w = {name: stored(t).astype(dtype) for name, t in read_model_weights(model_dir).items()}
    w = {name.replace("language_model.model.", "model."): t for name, t in w.items()}
    embed = w["model.embed_tokens.weight"]
    x = embed[np.asarray(ids)]
    if cfg.gemma:
        x = x * np.asarray(math.sqrt(cfg.hidden), dtype=dtype)
    for i in range(cfg.layers):
        x = decoder_layer(cfg, w, i, x, kv_cache)
        if hidden_layer == i + 1:
            return x
    x = rms_norm(x, w["model.norm.weight"], cfg.eps, cfg.gemma)
    head = embed if cfg.tied else w.get("lm_head.weight")
    if head is None:
        raise ValueError("tie_word_embeddings is false but lm_head.weight is missing")
    logits = x @ head.T
    if cfg.final_softcap:
        logits = cfg.final_softcap * np.tanh(logits / cfg.final_softcap)
    return logits


def main():
    """CLI entry point."""
    return reference_cli.run(__doc__.splitlines()[0], "hf_reference", forward)


if __name__ == "__main__":
    sys.exit(main())
