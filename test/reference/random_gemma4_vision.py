"""The tiny random Gemma 4 vision tower that make_random_gemma4.py --vision writes: its vision_config and its tensors
under the real Hugging Face names (docs/gemma4-vision.md, "Tensors").

Two kinds: "clipped" (use_clipped_linears on, with bounds tight enough that some activations are really clipped;
standardize off) and "standardize" (no clip tensors; std_bias / std_scale on). Both: hidden 32, intermediate 64,
2 layers of 2 heads of 16, patch 4 (a patch vector of 48), 3×3 pooling, a 64-entry position table per axis.
"""
import numpy as np

KINDS = ("clipped", "standardize")
_SHAPE = dict(hidden=32, intermediate=64, layers=2, heads=2, head_dim=16, patch=4, pooling=3, positions=64)
# The placeholder ids of the chat-template fixture's tokenizer (test/fixtures/chat_templates/gemma4/tokenizer.json:
# <|image> 17, <image|> 18, <|image|> 19), inside the tiny models' vocabulary of 256.
IMAGE_TOKEN_IDS = {"boi_token_id": 17, "eoi_token_id": 18, "image_token_id": 19}
_TOWER = "model.vision_tower."
_CLIPPED_LINEARS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
                    "mlp.up_proj", "mlp.down_proj")


def vision_config(kind):
    """Gemma4VisionConfig fields, spelled as configuration_gemma4.py spells them."""
    s = _SHAPE
    return {"model_type": "gemma4_vision", "hidden_size": s["hidden"], "intermediate_size": s["intermediate"],
            "num_hidden_layers": s["layers"], "num_attention_heads": s["heads"], "num_key_value_heads": s["heads"],
            "head_dim": s["head_dim"], "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
            "max_position_embeddings": 131072, "attention_bias": False, "attention_dropout": 0.0,
            "rope_parameters": {"rope_type": "default", "rope_theta": 100.0}, "pooling_kernel_size": s["pooling"],
            "patch_size": s["patch"], "position_embedding_size": s["positions"],
            "use_clipped_linears": kind == "clipped", "standardize": kind == "standardize",
            "initializer_range": 0.02}


def vision_weights(kind, text_hidden, rng):
    """{name: float32 array} of the tower and of embed_vision's projection into text_hidden, scaled so that
    activations stay O(1)."""
    s = _SHAPE
    D, I, hd, inner = s["hidden"], s["intermediate"], s["head_dim"], s["heads"] * s["head_dim"]

    def linear(out_f, in_f):
        return (rng.standard_normal((out_f, in_f)) / np.sqrt(in_f)).astype(np.float32)

    def norm(size, scale=1.0):
        # Gemma4RMSNorm multiplies by the weight itself: it sits around its scale, not around 0.
        return (scale * (1.0 + 0.1 * rng.standard_normal(size))).astype(np.float32)

    w = {_TOWER + "patch_embedder.input_proj.weight": linear(D, 3 * s["patch"] ** 2),
         _TOWER + "patch_embedder.position_embedding_table":
             (0.5 * rng.standard_normal((2, s["positions"], D))).astype(np.float32),
         "model.embed_vision.embedding_projection.weight": linear(text_hidden, D)}
    for i in range(s["layers"]):
        p = f"{_TOWER}encoder.layers.{i}."
        shapes = {"self_attn.q_proj": (inner, D), "self_attn.k_proj": (inner, D), "self_attn.v_proj": (inner, D),
                  "self_attn.o_proj": (D, inner), "mlp.gate_proj": (I, D), "mlp.up_proj": (I, D),
                  "mlp.down_proj": (D, I)}
        for name in _CLIPPED_LINEARS:
            w[p + name + ".linear.weight"] = linear(*shapes[name])
            if kind == "clipped":
                # o_proj reads an attention average of unit-sized values, about half their size.
                w.update(clip_bounds(p + name, 0.5 if name == "self_attn.o_proj" else 1.0, rng))
        # Attention runs with scale 1.0: q_norm and k_norm of hd^-1/4 give q·k a unit spread.
        w[p + "self_attn.q_norm.weight"] = norm(hd, hd ** -0.25)
        w[p + "self_attn.k_norm.weight"] = norm(hd, hd ** -0.25)
        for name in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                     "post_feedforward_layernorm"):
            w[p + name + ".weight"] = norm(D)
    if kind == "standardize":
        # The pooled tokens are about 10 in size after ×√32: a bias of that order moves them, the scale shrinks them.
        w[_TOWER + "std_bias"] = (3.0 * rng.standard_normal(D)).astype(np.float32)
        w[_TOWER + "std_scale"] = rng.uniform(0.1, 0.3, D).astype(np.float32)
    return w


def clip_bounds(linear, size, rng):
    """The four scalar bounds (shape []) of one clipped linear whose inputs and outputs are about `size` in
    magnitude: bounds between 1 and 2.5 times that clip their tails — some elements of every linear, not all of any.
    Each linear gets its own bounds (the converter shares them between k and v and between gate and up), so that
    reading another linear's bounds changes the result."""
    lo_in, hi_in, lo_out, hi_out = size * rng.uniform(1.0, 2.5, 4)
    return {f"{linear}.input_min": np.float32(-lo_in), f"{linear}.input_max": np.float32(hi_in),
            f"{linear}.output_min": np.float32(-lo_out), f"{linear}.output_max": np.float32(hi_out)}
