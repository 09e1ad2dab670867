"""Independent numpy forward pass of the Gemma 4 text decoder: Gemma4ForCausalLM (model_type gemma4_text, tensors
under model.) and the language model of Gemma4ForConditionalGeneration (gemma4, nested text_config, tensors under
model.language_model.).

Usage: gemma4_reference.py MODEL_DIR --token-ids FILE -o OUT.npy [--dtype float64|float32] [--kv-cache f32|f16]
                           [--weights f32|f16] [--hidden-layer L]

Follows transformers' models/gemma4 (docs/gemma4.md lists every rule and where it is read): a full causal prefill
from position 0, logits [T, vocab]. Weights stored as BF16/F16 are widened and everything is computed in --dtype; only
the two embedding scales are rounded to the stored dtype, as Gemma4TextScaledWordEmbedding rounds them.
"""
import json
import math
import os
import sys

import numpy as np

import reference_cli
import hf_reference
from hf_reference import apply_rope  # rotate_half RoPE, the same rule in Gemma 4
from safetensors_io import bf16_bits_to_f32, f32_to_bf16_bits, read_model_dtypes, read_model_weights

SLIDING, FULL = "sliding_attention", "full_attention"

# Gemma4TextConfig's defaults (configuration_gemma4.py) for the fields a config.json may omit. An explicit null in
# config.json stays None, as the dataclass keeps it.
_TEXT_DEFAULTS = {
    "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6, "tie_word_embeddings": True, "pad_token_id": 0,
    "head_dim": 256, "global_head_dim": 512, "num_global_key_value_heads": None, "sliding_window": 512,
    "layer_types": None, "final_logit_softcapping": None, "use_bidirectional_attention": None,
    "vocab_size_per_layer_input": 262144, "hidden_size_per_layer_input": 256, "attention_k_eq_v": False,
    "num_kv_shared_layers": 0, "enable_moe_block": False, "use_double_wide_mlp": False, "attention_bias": False,
    "rope_parameters": None,
}
# Gemma4TextConfig.__post_init__'s rope_parameters when config.json has none.
_DEFAULT_ROPE = {
    SLIDING: {"rope_type": "default", "rope_theta": 10000.0},
    FULL: {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
}
# Gemma4Config's multimodal placeholder ids: Gemma4Model.forward embeds them (and looks up their per-layer rows) as
# the pad token; a tower would then overwrite the main embedding, which a text-only forward never does.
_PLACEHOLDER_DEFAULTS = {"image_token_id": 258880, "video_token_id": 258884, "audio_token_id": 258881}


class TextConfig:
    """The text decoder's config.json with defaults, per-layer geometry and transformers' refusals resolved."""

    def __init__(self, raw, where="config.json"):
        """Resolves a config.json dict; raises ValueError with one line naming `where` and the problem."""
        self.where = where
        kind = raw.get("model_type")
        self.conditional = kind == "gemma4"
        if self.conditional:
            text = raw.get("text_config") or {}
            self.prefix = "model.language_model."
            self.placeholders = {raw.get(k, v) for k, v in _PLACEHOLDER_DEFAULTS.items()} - {None}
            self.image_token_id = raw.get("image_token_id", _PLACEHOLDER_DEFAULTS["image_token_id"])
            outer_tie, inner_tie = raw.get("tie_word_embeddings"), text.get("tie_word_embeddings")
            if outer_tie is not None and inner_tie is not None and outer_tie != inner_tie:
                self._refuse("tie_word_embeddings differs between the outer config and text_config")
            tie = outer_tie if outer_tie is not None else inner_tie
        elif kind == "gemma4_text":
            text, self.prefix, self.placeholders, tie = raw, "model.", set(), raw.get("tie_word_embeddings")
            self.image_token_id = None
        else:
            self._refuse(f"model_type {kind!r} is not gemma4 or gemma4_text")
        c = dict(_TEXT_DEFAULTS, **text)
        for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                    "num_key_value_heads", "vocab_size"):
            if not c.get(key):
                self._refuse(f"{key} is missing")  # the released configs all name the shapes
        self._refuse_unsupported(c)
        if not c["head_dim"]:
            self._refuse("head_dim is null or 0")
        self.hidden = c["hidden_size"]
        self.layers = c["num_hidden_layers"]
        self.heads = c["num_attention_heads"]
        self.vocab = c["vocab_size"]
        self.eps = c["rms_norm_eps"]
        self.tied = True if tie is None else bool(tie)
        self.final_softcap = c["final_logit_softcapping"]
        self.pad_id = c["pad_token_id"] or 0
        # "vision" (26B, 31B) lets image tokens see each other on sliding layers; text alone stays causal.
        self.bidirectional_images = c["use_bidirectional_attention"] == "vision"
        self.window = c["sliding_window"]
        self.ple_dim = c["hidden_size_per_layer_input"] or 0
        self.ple_vocab = c["vocab_size_per_layer_input"]
        self.layer_types = self._layer_types(c)
        if SLIDING in self.layer_types and not (self.window and self.window > 0):
            self._refuse(f"sliding_window {self.window!r} with sliding_attention layers")
        self.shared_source = self._shared_sources(c)
        self.head_dim, self.kv_heads, self.k_eq_v, self.mlp_width, self.inv_freq = [], [], [], [], []
        rope = c["rope_parameters"] or _DEFAULT_ROPE
        first_shared = self.layers - c["num_kv_shared_layers"]
        for i, kind in enumerate(self.layer_types):
            full = kind == FULL
            # Gemma4TextAttention: full layers take global_head_dim when it is set (not null or 0).
            hd = c["global_head_dim"] if full and c["global_head_dim"] else c["head_dim"]
            k_eq_v = bool(c["attention_k_eq_v"]) and full
            kv = (c["num_global_key_value_heads"] or c["num_key_value_heads"]) if k_eq_v else c["num_key_value_heads"]
            if hd % 2 or self.heads % kv:
                self._refuse(f"layer {i}: head_dim {hd} is odd or {self.heads} heads do not split over {kv} KV heads")
            self.head_dim.append(hd)
            self.kv_heads.append(kv)
            self.k_eq_v.append(k_eq_v)
            # Gemma4TextMLP: double width only on KV-shared layers (and only when some layers are shared).
            wide = c["use_double_wide_mlp"] and i >= first_shared > 0
            self.mlp_width.append(c["intermediate_size"] * (2 if wide else 1))
            self.inv_freq.append(self._rope_for(c, rope, kind, hd, i))

    def _refuse(self, problem):
        """Raises the one-line error every refusal uses."""
        raise ValueError(f"{self.where}: {problem}")

    def _refuse_unsupported(self, c):
        """Refuses what this forward does not implement (the MoE model, bidirectional text, biases, activations)."""
        if c["enable_moe_block"]:
            self._refuse("enable_moe_block (mixture-of-experts layers) is not supported")
        if c["use_bidirectional_attention"] == "all":
            self._refuse("use_bidirectional_attention 'all' is not supported")
        if c["attention_bias"]:
            self._refuse("attention_bias true is not supported")
        if c["hidden_activation"] != "gelu_pytorch_tanh":
            self._refuse(f"hidden_activation {c['hidden_activation']!r} is not supported")

    def _layer_types(self, c):
        """layer_types, or the 5:1 sliding/full default; the last layer is forced to full_attention."""
        types = list(c["layer_types"] or [SLIDING if (i + 1) % 6 else FULL for i in range(c["num_hidden_layers"])])
        if len(types) != self.layers or set(types) - {SLIDING, FULL}:
            self._refuse(f"layer_types must name {self.layers} layers, each {SLIDING} or {FULL}")
        if types[-1] != FULL:  # Gemma4TextConfig.__post_init__ does the same, with a warning
            print(f"gemma4_reference: {self.where}: last layer forced to {FULL}", file=sys.stderr)
            types[-1] = FULL
        return types

    def _shared_sources(self, c):
        """Per layer: None when it computes its own K/V, else the layer whose K/V it reads — the last layer of the
        same type before the first KV-shared layer."""
        shared = c["num_kv_shared_layers"] or 0
        if not 0 <= shared < self.layers:
            self._refuse(f"num_kv_shared_layers {shared} must be at least 0 and below {self.layers} layers")
        first = self.layers - shared
        sources = []
        for i, kind in enumerate(self.layer_types):
            if i < first:
                sources.append(None)
                continue
            owners = [j for j in range(first) if self.layer_types[j] == kind]
            if not owners:
                self._refuse(f"KV-shared layer {i} ({kind}) has no earlier {kind} layer to read K/V from")
            sources.append(owners[-1])
        return sources

    def _rope_for(self, c, rope, kind, head_dim, i):
        """The layer's inverse frequencies [head_dim/2]; refuses a type transformers would not run for this head."""
        params = rope.get(kind)
        if params is None:
            self._refuse(f"rope_parameters has no entry for {kind}")
        rope_type = params.get("rope_type", "default")
        if rope_type not in ("default", "proportional"):
            self._refuse(f"rope_type {rope_type!r} ({kind}) is not supported")
        # Gemma4TextRotaryEmbedding sizes the tables from head_dim, or from global_head_dim for proportional RoPE
        # on full layers; a mismatch with the layer's head dim fails there, so it is refused here.
        key = "global_head_dim" if kind == FULL and rope_type == "proportional" else "head_dim"
        rope_dim = c[key] or self.hidden // self.heads
        if rope_dim != head_dim:
            self._refuse(f"layer {i}: {rope_type} RoPE over {key}={rope_dim} but the layer's head dim is {head_dim}")
        return rope_inv_freq(rope_type, params, head_dim)

    def tensor_shapes(self):
        """{name: shape} of every tensor the forward reads (layer_scalar apart: it may be absent, see load_weights)."""
        p, H, n, D = self.prefix, self.hidden, self.layers, self.ple_dim
        shapes = {p + "embed_tokens.weight": (self.vocab, H), p + "norm.weight": (H,)}
        if D:
            shapes.update({p + "embed_tokens_per_layer.weight": (self.ple_vocab, n * D),
                           p + "per_layer_model_projection.weight": (n * D, H),
                           p + "per_layer_projection_norm.weight": (D,)})
        for i in range(n):
            lp, hd, kv, width = f"{p}layers.{i}.", self.head_dim[i], self.kv_heads[i], self.mlp_width[i]
            shapes.update({lp + name + ".weight": (H,) for name in (
                "input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                "post_feedforward_layernorm")})
            shapes.update({lp + "self_attn.q_proj.weight": (self.heads * hd, H), lp + "self_attn.q_norm.weight": (hd,),
                           lp + "self_attn.o_proj.weight": (H, self.heads * hd),
                           lp + "mlp.gate_proj.weight": (width, H), lp + "mlp.up_proj.weight": (width, H),
                           lp + "mlp.down_proj.weight": (H, width)})
            if self.shared_source[i] is None:
                shapes.update({lp + "self_attn.k_proj.weight": (kv * hd, H), lp + "self_attn.k_norm.weight": (hd,)})
                if not self.k_eq_v[i]:
                    shapes[lp + "self_attn.v_proj.weight"] = (kv * hd, H)
            if D:
                shapes.update({lp + "per_layer_input_gate.weight": (D, H), lp + "per_layer_projection.weight": (H, D),
                               lp + "post_per_layer_input_norm.weight": (H,)})
        if not self.tied:
            shapes["lm_head.weight"] = (self.vocab, H)
        return shapes


def rope_inv_freq(rope_type, params, head_dim):
    """Inverse frequencies [head_dim/2] pairing dims (j, j + head_dim/2). "default": theta^(-2j/head_dim) for every
    pair (partial_rotary_factor and factor unused). "proportional": the first int(partial_rotary_factor * head_dim
    // 2) pairs get theta^(-2j/head_dim) — the exponent over the whole head dim — and the others 0, so they are left
    as they are; all divided by factor (default 1)."""
    theta = params["rope_theta"]
    j = np.arange(head_dim // 2, dtype=np.float64)
    inv_freq = theta ** (-2.0 * j / head_dim)
    if rope_type == "default":
        return inv_freq
    rotated = int(params.get("partial_rotary_factor", 1.0) * head_dim // 2)
    inv_freq[rotated:] = 0.0
    return inv_freq / params.get("factor", 1.0)


def rms_norm(x, w, eps):
    """Gemma4RMSNorm over the last axis: x / sqrt(mean(x²) + eps), times w itself (not 1 + w); w None: no scale."""
    normed = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return normed if w is None else normed * w


def gelu_tanh(g):
    """gelu_pytorch_tanh: 0.5·g·(1 + tanh(sqrt(2/π)·(g + 0.044715·g³)))."""
    return 0.5 * g * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (g + 0.044715 * g ** 3)))


def attention(q, k, v, window):
    """Causal GQA attention of q[T,H,hd] over k,v[T,KVH,hd] with scale 1.0 (Gemma 4's scaling) and no soft-cap; key
    t is visible from p iff t <= p and, on a sliding layer, p - t < window."""
    return hf_reference.attention(q, k, v, 1.0, window, 0.0)


def round_to_stored(value, stored, dtype):
    """value rounded to a tensor's stored dtype ("F32", "F16", "BF16"), as scale.to(weight.dtype) rounds it."""
    f32 = np.float32(value)
    if stored == "BF16":
        f32 = bf16_bits_to_f32(f32_to_bf16_bits(np.array([f32])))[0]
    elif stored == "F16":
        f32 = np.float32(np.float16(f32))
    return np.asarray(f32, dtype=dtype)


def load_weights(model_dir, cfg, dtype, weights):
    """Returns (tensors the forward reads in dtype, stored dtypes, names of the tensors it does not read).
    Raises ValueError naming the first missing tensor. weights "f16" rounds every 2-D tensor to binary16 first."""
    stored = read_model_dtypes(model_dir)
    shapes = cfg.tensor_shapes()
    missing = [n for n in shapes if n not in stored]
    if missing:
        raise ValueError(f"{model_dir}: tensor {missing[0]} is missing ({len(missing)} missing in all)")
    scalars = {f"{cfg.prefix}layers.{i}.layer_scalar": (1,) for i in range(cfg.layers)}
    shapes.update({n: shape for n, shape in scalars.items() if n in stored})
    raw = read_model_weights(model_dir)
    for name, shape in shapes.items():
        if raw[name].shape != shape:
            raise ValueError(f"{model_dir}: tensor {name} has shape {list(raw[name].shape)}, the config says "
                             f"{list(shape)}")

    def widen(t):
        return (t.astype(np.float16) if weights == "f16" and t.ndim == 2 else t).astype(dtype)

    w = {name: widen(raw[name]) for name in shapes}
    # A checkpoint without layer_scalar loads in transformers with the buffer's initial value, 1.
    for name in scalars:
        w.setdefault(name, np.ones(1, dtype=dtype))
    return w, stored, sorted(set(raw) - set(shapes))


def per_layer_inputs(cfg, w, stored, ids, x):
    """PLE inputs [T, layers, ple_dim]: (norm(x·W_proj^T / sqrt(hidden)) + table[ids]·sqrt(ple_dim)) / sqrt(2),
    x being the scaled token embeddings (Gemma4TextModel.get_per_layer_inputs / project_per_layer_inputs)."""
    p, T = cfg.prefix, len(ids)
    table_name = p + "embed_tokens_per_layer.weight"
    scale = round_to_stored(math.sqrt(cfg.ple_dim), stored[table_name], x.dtype)
    token_part = (w[table_name][ids] * scale).reshape(T, cfg.layers, cfg.ple_dim)
    projected = (x @ w[p + "per_layer_model_projection.weight"].T) * (cfg.hidden ** -0.5)
    projected = rms_norm(projected.reshape(T, cfg.layers, cfg.ple_dim), w[p + "per_layer_projection_norm.weight"],
                         cfg.eps)
    return (projected + token_part) * (2.0 ** -0.5)


def self_attention(cfg, w, i, h, kv, kv_cache):
    """Attention block of layer i on normed input h[T, hidden]. A layer that owns K/V stores (K after k_norm and
    RoPE, V after the weightless v_norm) in kv[i]; a KV-shared layer reads kv[its source] instead."""
    lp = f"{cfg.prefix}layers.{i}.self_attn."
    T, hd, inv_freq = h.shape[0], cfg.head_dim[i], cfg.inv_freq[i]
    q = (h @ w[lp + "q_proj.weight"].T).reshape(T, cfg.heads, hd)
    q = apply_rope(rms_norm(q, w[lp + "q_norm.weight"], cfg.eps), inv_freq)
    source = cfg.shared_source[i]
    if source is None:
        k = (h @ w[lp + "k_proj.weight"].T).reshape(T, cfg.kv_heads[i], hd)
        # attention_k_eq_v: V is the raw key projection, taken before k_norm and RoPE.
        v = k if cfg.k_eq_v[i] else (h @ w[lp + "v_proj.weight"].T).reshape(T, cfg.kv_heads[i], hd)
        k = apply_rope(rms_norm(k, w[lp + "k_norm.weight"], cfg.eps), inv_freq)
        v = rms_norm(v, None, cfg.eps)
        if kv_cache == "f16":
            k, v = k.astype(np.float16).astype(h.dtype), v.astype(np.float16).astype(h.dtype)
        kv[i] = (k, v)
        source = i
    window = cfg.window if cfg.layer_types[i] == SLIDING else None
    out = attention(q, *kv[source], window).reshape(T, cfg.heads * hd)
    return out @ w[lp + "o_proj.weight"].T


def decoder_layer(cfg, w, i, x, ple, kv, kv_cache):
    """Gemma4TextDecoderLayer i on the residual stream x[T, hidden]; ple[T, ple_dim] is its per-layer input."""
    lp = f"{cfg.prefix}layers.{i}."

    def norm(y, name):
        return rms_norm(y, w[lp + name + ".weight"], cfg.eps)

    x = x + norm(self_attention(cfg, w, i, norm(x, "input_layernorm"), kv, kv_cache), "post_attention_layernorm")
    h = norm(x, "pre_feedforward_layernorm")
    h = (gelu_tanh(h @ w[lp + "mlp.gate_proj.weight"].T) * (h @ w[lp + "mlp.up_proj.weight"].T))
    x = x + norm(h @ w[lp + "mlp.down_proj.weight"].T, "post_feedforward_layernorm")
    if ple is not None:
        g = gelu_tanh(x @ w[lp + "per_layer_input_gate.weight"].T) * ple
        x = x + norm(g @ w[lp + "per_layer_projection.weight"].T, "post_per_layer_input_norm")
    return x * w[lp + "layer_scalar"]  # scales the whole stream, residual included


def read_config(model_dir):
    """TextConfig of MODEL_DIR/config.json."""
    path = os.path.join(model_dir, "config.json")
    with open(path) as f:
        return TextConfig(json.load(f), path)


def place_soft_tokens(cfg, model_dir, x, image_rows, soft_tokens):
    """x with its image placeholder rows replaced, in order, by the rows of soft_tokens [n, hidden] — as they are:
    Gemma4Model.forward scatters them over the already scaled embeddings and scales them no further."""
    soft_tokens = np.asarray(soft_tokens)
    if cfg.image_token_id is None:
        raise ValueError(f"{model_dir}: soft tokens need the gemma4 layout (a gemma4_text model has no image slots)")
    if cfg.bidirectional_images:
        raise ValueError(f"{model_dir}: use_bidirectional_attention 'vision' (image tokens attending both ways) is "
                         "not supported with soft tokens")
    if soft_tokens.ndim != 2 or soft_tokens.shape[1] != cfg.hidden or len(soft_tokens) != image_rows.sum():
        raise ValueError(f"{model_dir}: {int(image_rows.sum())} image placeholders in the prompt but soft tokens of "
                         f"shape {list(soft_tokens.shape)} (hidden {cfg.hidden})")
    x = x.copy()
    x[image_rows] = soft_tokens.astype(x.dtype)
    return x


def forward(model_dir, ids, dtype=np.float64, hidden_layer=None, kv_cache="f32", weights="f32", unused=None,
            soft_tokens=None, soft_token_id=None):
    """Logits [T, vocab] of a full causal prefill of ids, computed in dtype; with hidden_layer L, the residual
    stream after L decoder layers instead. kv_cache "f16" rounds K and V to binary16 where they are made (a shared
    layer reads the rounded values); weights "f16" rounds every 2-D tensor to binary16. A list passed as `unused`
    receives the names of the tensors in the files that the forward does not read. soft_tokens [n, hidden] (the
    gemma4 layout): the embedding rows of the n image placeholders (soft_token_id's, e.g. the audio placeholder, when
    given), in order; the per-layer inputs then read the pad token's table row there and project the merged
    embeddings."""
    cfg = read_config(model_dir)
    w, stored, not_read = load_weights(model_dir, cfg, dtype, weights)
    if unused is not None:
        unused.extend(not_read)
    ids = np.asarray(ids, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= cfg.vocab or (cfg.ple_dim and ids.max() >= cfg.ple_vocab)):
        raise ValueError(f"{model_dir}: a token id is outside the vocabulary")
    image_rows = ids == (cfg.image_token_id if soft_token_id is None else soft_token_id)
    if cfg.placeholders:
        ids = np.where(np.isin(ids, list(cfg.placeholders)), cfg.pad_id, ids)
    embed_name = cfg.prefix + "embed_tokens.weight"
    embed = w[embed_name]
    x = embed[ids] * round_to_stored(math.sqrt(cfg.hidden), stored[embed_name], dtype)
    if soft_tokens is not None:
        x = place_soft_tokens(cfg, model_dir, x, image_rows, soft_tokens)
    ple = per_layer_inputs(cfg, w, stored, ids, x) if cfg.ple_dim else None
    kv = {}
    for i in range(cfg.layers):
        x = decoder_layer(cfg, w, i, x, None if ple is None else ple[:, i], kv, kv_cache)
        if hidden_layer == i + 1:
            return x
    x = rms_norm(x, w[cfg.prefix + "norm.weight"], cfg.eps)
    logits = x @ (embed if cfg.tied else w["lm_head.weight"]).T
    if cfg.final_softcap:
        logits = cfg.final_softcap * np.tanh(logits / cfg.final_softcap)
    return logits


def main():
    """CLI entry point."""
    def forward_reporting_unused(*args):
        unused = []
        out = forward(*args, unused)
        if unused:
            print(f"gemma4_reference: {len(unused)} tensors in the files are not read by the text decoder",
                  file=sys.stderr)
        return out
    return reference_cli.run(__doc__.splitlines()[0], "gemma4_reference", forward_reporting_unused)


if __name__ == "__main__":
    sys.exit(main())
