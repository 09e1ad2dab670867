"""The tiny random audio tower that `make_random_gemma4.py --conditional --audio` writes: Gemma4AudioModel's tensors
under their released names (model.audio_tower.*, model.embed_audio.*), its audio_config, and audio token ids inside
the tiny vocabulary.

The shapes are small but every rule of docs/gemma4-audio.md is live: 128 mel bins in (the input projection assumes
subsampling_conv_channels[0] // 4 == mel bins / 4, so channel 0 stays 128), chunks of 4 encoder frames (a 3 s clip
spans 19 of them), clip bounds that clamp some inputs and outputs of every clipped linear, a logit soft-cap of 3 that
bends the larger logits, and random per_dim_scale, norm weights and output bias.
"""
import numpy as np

# Gemma4AudioConfig fields (configuration_gemma4.py), tiny. output_proj_dims differs from hidden_size and from the
# text width, so a mixed-up axis fails on shape.
AUDIO_CONFIG = {
    "model_type": "gemma4_audio",
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "hidden_act": "silu",
    "subsampling_conv_channels": [128, 4],
    "conv_kernel_size": 5,
    "residual_weight": 0.5,
    "attention_chunk_size": 4,
    "attention_context_left": 5,
    "attention_context_right": 0,
    "attention_logit_cap": 3.0,
    "attention_invalid_logits_value": -1.0e9,
    "use_clipped_linears": True,
    "rms_norm_eps": 1e-6,
    "gradient_clipping": 1e10,
    "output_proj_dims": 24,
}
# Gemma4Config's audio ids moved inside the tiny vocabulary (256), away from the ids the text tests use.
AUDIO_TOKENS = {"boa_token_id": 244, "audio_token_id": 245, "eoa_token_index": 246, "eoa_token_id": 246}

TOWER = "model.audio_tower."
EMBEDDER = "model.embed_audio."
# Every Gemma4ClippableLinear of a conformer layer, with (in, out) widths in units of hidden_size.
CLIPPED_LINEARS = {
    "feed_forward1.ffw_layer_1": (1, 4), "feed_forward1.ffw_layer_2": (4, 1),
    "feed_forward2.ffw_layer_1": (1, 4), "feed_forward2.ffw_layer_2": (4, 1),
    "self_attn.q_proj": (1, 1), "self_attn.k_proj": (1, 1), "self_attn.v_proj": (1, 1), "self_attn.post": (1, 1),
    "lconv1d.linear_start": (1, 2), "lconv1d.linear_end": (1, 1),
}
LAYER_NORMS = ["feed_forward1.pre_layer_norm", "feed_forward1.post_layer_norm", "feed_forward2.pre_layer_norm",
               "feed_forward2.post_layer_norm", "norm_pre_attn", "norm_post_attn", "norm_out",
               "lconv1d.pre_layer_norm", "lconv1d.conv_norm"]


def clip_bounds(rng, name):
    """The four scalar buffers of one clipped linear, drawn so each clamps a few to a few tens of percent of its
    inputs and outputs on speech: most inputs are RMS-normed (unit scale) and outputs O(1); ffw_layer_2 reads silu
    outputs (never below -0.28) and post reads averages of v_proj's clamped outputs, so their input bounds sit closer
    in; ffw_layer_2's outputs are narrower than the others. min and max differ, so a swapped pair shows."""
    if name.endswith("ffw_layer_2"):
        low_in, high_in = -rng.uniform(0.1, 0.25), rng.uniform(1.0, 1.6)
    elif name.endswith("post"):
        low_in, high_in = -rng.uniform(0.3, 0.6), rng.uniform(0.3, 0.6)
    else:
        low_in, high_in = -rng.uniform(1.0, 1.6), rng.uniform(1.0, 1.6)
    out = (0.3, 0.6) if name.endswith("ffw_layer_2") else (0.7, 1.3)  # a sum of 4·hidden small silu terms
    return {"input_min": low_in, "input_max": high_in,
            "output_min": -rng.uniform(*out), "output_max": rng.uniform(*out)}


def audio_weights(rng, text_hidden):
    """{name: float32 array} of the audio tower and embed_audio, scaled so activations stay O(1)."""
    c = AUDIO_CONFIG
    h, c0, c1 = c["hidden_size"], *c["subsampling_conv_channels"]
    head_dim = h // c["num_attention_heads"]

    def rand(shape, fan_in):
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)

    def norm(size):
        return (1.0 + 0.1 * rng.standard_normal(size)).astype(np.float32)

    s = TOWER + "subsample_conv_projection."
    w = {s + "layer0.conv.weight": rand((c0, 1, 3, 3), 9), s + "layer0.norm.weight": norm(c0),
         s + "layer1.conv.weight": rand((c1, c0, 3, 3), 9 * c0), s + "layer1.norm.weight": norm(c1),
         s + "input_proj_linear.weight": rand((h, (c0 // 4) * c1), (c0 // 4) * c1)}
    for i in range(c["num_hidden_layers"]):
        p = f"{TOWER}layers.{i}."
        for name, (n_in, n_out) in CLIPPED_LINEARS.items():
            w[p + name + ".linear.weight"] = rand((n_out * h, n_in * h), n_in * h)
            w.update({f"{p}{name}.{k}": np.array(v, dtype=np.float32) for k, v in clip_bounds(rng, name).items()})
        w.update({p + name + ".weight": norm(h) for name in LAYER_NORMS})
        w[p + "self_attn.relative_k_proj.weight"] = rand((h, h), h)
        w[p + "self_attn.per_dim_scale"] = (0.5 * rng.standard_normal(head_dim)).astype(np.float32)
        w[p + "lconv1d.depthwise_conv1d.weight"] = rand((h, 1, c["conv_kernel_size"]), c["conv_kernel_size"])
    w[TOWER + "output_proj.weight"] = rand((c["output_proj_dims"], h), h)
    w[TOWER + "output_proj.bias"] = (0.1 * rng.standard_normal(c["output_proj_dims"])).astype(np.float32)
    w[EMBEDDER + "embedding_projection.weight"] = rand((text_hidden, c["output_proj_dims"]), c["output_proj_dims"])
    return w


def add_audio_tower(config, weights, rng):
    """Replaces the stub audio tower of a conditional model (config dict and weights, edited in place) with the tiny
    real one and moves the audio token ids into the vocabulary."""
    for name in [n for n in weights if n.startswith((TOWER, EMBEDDER))]:
        del weights[name]
    weights.update(audio_weights(rng, config["text_config"]["hidden_size"]))
    config["audio_config"] = dict(AUDIO_CONFIG)
    config.update(AUDIO_TOKENS)
