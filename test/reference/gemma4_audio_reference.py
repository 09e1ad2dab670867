"""Independent float64 numpy forward of Gemma 4's audio tower (Gemma4AudioModel) and its embedder (embed_audio).

Usage: gemma4_audio_reference.py soft-tokens --model DIR --features F.npy [--mask M.npy] -o OUT.npy
       gemma4_audio_reference.py tower --model DIR --features F.npy [--mask M.npy] -o OUT.npy
       gemma4_audio_reference.py logits --model DIR --features F.npy [--mask M.npy] --tokens IDS -o OUT.npy
                                 [--write-ids EXPANDED]

F.npy holds Gemma4AudioFeatureExtractor's input_features of one clip, [frames, mel]; M.npy its input_features_mask,
[frames] (default: every frame valid). soft-tokens writes embed_audio(tower) [n_soft, text hidden], the rows that
replace the audio placeholders; tower writes output_proj's rows [n_soft, output_proj_dims]. n_soft =
audio_token_count(valid frames). logits writes the text decoder's logits [T, vocab] (gemma4_reference.py) of the
prompt IDS with its one audio placeholder expanded to boa, n_soft placeholders, eoa and the clip's soft tokens in
their place; --write-ids writes the expanded ids. A refused config, a missing tensor or a malformed input is one line on stderr, exit 1
and no output file.

docs/gemma4-audio.md lists every rule and the transformers class it is read from. This file computes attention
densely over [frames, frames] with an explicit distance mask and a relative-position table indexed by distance; the
torch check (check_gemma4_audio_reference.py) follows transformers' blocked layout instead.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

import gemma4_reference as text
import reference_cli
from safetensors_io import read_model_dtypes, read_model_weights
from token_ids import read_token_ids, write_token_ids

TOWER = "model.audio_tower."
EMBEDDER = "model.embed_audio.embedding_projection.weight"
# Gemma4AudioConfig's defaults (configuration_gemma4.py), for the fields an audio_config may omit.
_AUDIO_DEFAULTS = {
    "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8, "hidden_act": "silu",
    "subsampling_conv_channels": [128, 32], "conv_kernel_size": 5, "residual_weight": 0.5,
    "attention_chunk_size": 12, "attention_context_left": 13, "attention_context_right": 0,
    "attention_logit_cap": 50.0, "attention_invalid_logits_value": -1.0e9, "use_clipped_linears": True,
    "rms_norm_eps": 1e-6, "gradient_clipping": 1e10, "output_proj_dims": 1536,
}
# Gemma4Config's audio token ids; the end id is spelled eoa_token_index there.
_TOKEN_DEFAULTS = {"boa_token_id": 256000, "audio_token_id": 258881, "eoa_token_index": 258883}
_CLIPPED = ["feed_forward1.ffw_layer_1", "feed_forward1.ffw_layer_2", "feed_forward2.ffw_layer_1",
            "feed_forward2.ffw_layer_2", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.post",
            "lconv1d.linear_start", "lconv1d.linear_end"]
_BOUNDS = ("input_min", "input_max", "output_min", "output_max")
# torch.finfo(dtype).max of the stored weight dtypes.
_DTYPE_MAX = {"F32": (2 - 2 ** -23) * 2.0 ** 127, "BF16": (2 - 2 ** -7) * 2.0 ** 127, "F16": 65504.0}
DEFAULT_NORM_EPS = 1e-6  # Gemma4RMSNorm's default, which the FFN norms and the layer norms keep


class AudioConfig:
    """config.json's audio_config with defaults and derived geometry; refuses what the forward does not implement."""

    def __init__(self, raw, where="config.json"):
        """Raises ValueError with one line naming `where` and the problem."""
        self.where = where
        if raw.get("model_type") != "gemma4" or not raw.get("audio_config"):
            self._refuse("no audio_config: the model has no audio tower")
        text = raw.get("text_config") or {}
        if not text.get("hidden_size"):
            self._refuse("text_config.hidden_size is missing")
        c = dict(_AUDIO_DEFAULTS, **raw["audio_config"])
        self.text_hidden = text["hidden_size"]
        self.tokens = {k: raw.get(k, v) for k, v in _TOKEN_DEFAULTS.items()}
        self.hidden, self.layers, self.heads = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
        if c["hidden_act"] != "silu":
            self._refuse(f"audio_config.hidden_act {c['hidden_act']!r} is not supported")
        if self.heads < 1 or self.hidden % self.heads or self.hidden % 2:
            self._refuse(f"audio_config.hidden_size {self.hidden} is odd or does not split over {self.heads} heads")
        channels = c["subsampling_conv_channels"]
        if len(channels) != 2 or min(channels) < 1:
            self._refuse(f"audio_config.subsampling_conv_channels {channels} must be two positive widths")
        self.c0, self.c1 = channels
        self.head_dim = self.hidden // self.heads
        self.kernel = c["conv_kernel_size"]
        self.chunk = c["attention_chunk_size"]
        self.max_past = c["attention_context_left"] - 1     # Gemma4AudioAttention.max_past_horizon
        self.max_future = c["attention_context_right"]      # Gemma4AudioAttention.max_future_horizon
        if self.kernel < 1 or self.chunk < 1 or self.max_past < 1 or self.max_future < 0:
            self._refuse("audio_config needs conv_kernel_size, attention_chunk_size >= 1, attention_context_left "
                         ">= 2 and attention_context_right >= 0")
        # The relative table has rows for positions C//2 .. 0, C the blocked context width.
        self.half_context = (self.chunk + self.max_past + self.max_future) // 2
        self.cap = c["attention_logit_cap"]
        self.residual_weight = c["residual_weight"]
        self.clipped = bool(c["use_clipped_linears"])
        self.eps = c["rms_norm_eps"]
        self.gradient_clipping = c["gradient_clipping"]
        self.out_dims = c["output_proj_dims"]

    def _refuse(self, problem):
        raise ValueError(f"{self.where}: {problem}")

    def tensor_shapes(self):
        """{name: shape} of every tensor the forward reads (the optional clip bounds apart)."""
        h, s = self.hidden, TOWER + "subsample_conv_projection."
        shapes = {s + "layer0.conv.weight": (self.c0, 1, 3, 3), s + "layer0.norm.weight": (self.c0,),
                  s + "layer1.conv.weight": (self.c1, self.c0, 3, 3), s + "layer1.norm.weight": (self.c1,),
                  s + "input_proj_linear.weight": (h, (self.c0 // 4) * self.c1),
                  TOWER + "output_proj.weight": (self.out_dims, h), TOWER + "output_proj.bias": (self.out_dims,),
                  EMBEDDER: (self.text_hidden, self.out_dims)}
        widths = {"ffw_layer_1": (4 * h, h), "ffw_layer_2": (h, 4 * h), "linear_start": (2 * h, h)}
        for i in range(self.layers):
            p = f"{TOWER}layers.{i}."
            for name in _CLIPPED:
                shapes[p + name + ".linear.weight"] = widths.get(name.split(".")[-1], (h, h))
            for name in ("feed_forward1.pre_layer_norm", "feed_forward1.post_layer_norm",
                         "feed_forward2.pre_layer_norm", "feed_forward2.post_layer_norm", "norm_pre_attn",
                         "norm_post_attn", "norm_out", "lconv1d.pre_layer_norm", "lconv1d.conv_norm"):
                shapes[p + name + ".weight"] = (h,)
            shapes[p + "self_attn.relative_k_proj.weight"] = (h, h)
            shapes[p + "self_attn.per_dim_scale"] = (self.head_dim,)
            shapes[p + "lconv1d.depthwise_conv1d.weight"] = (h, 1, self.kernel)
        return shapes


class AudioModel:
    """A loaded audio tower: config, float64 weights, clip bounds, and the gradient_clipping value per module."""

    def __init__(self, model_dir):
        """Reads MODEL_DIR/config.json and the tensors; raises ValueError/OSError with one line."""
        path = os.path.join(model_dir, "config.json")
        with open(path) as f:
            self.cfg = AudioConfig(json.load(f), path)
        stored = read_model_dtypes(model_dir)
        shapes = self.cfg.tensor_shapes()
        missing = [n for n in shapes if n not in stored]
        if missing:
            raise ValueError(f"{model_dir}: tensor {missing[0]} is missing ({len(missing)} missing in all)")
        raw = read_model_weights(model_dir)
        for name, shape in shapes.items():
            if raw[name].shape != shape:
                raise ValueError(f"{model_dir}: tensor {name} has shape {list(raw[name].shape)}, the config says "
                                 f"{list(shape)}")
        self.w = {name: raw[name].astype(np.float64) for name in shapes}
        # A bound absent from the files keeps the buffer's initial value, ±inf; use_clipped_linears false has none.
        self.bounds = {}
        for i in range(self.cfg.layers):
            for name in _CLIPPED:
                p = f"{TOWER}layers.{i}.{name}."
                bad = [p + k for k in _BOUNDS if p + k in raw and raw[p + k].size != 1]
                if bad:
                    raise ValueError(f"{model_dir}: tensor {bad[0]} has shape {list(raw[bad[0]].shape)}, not a scalar")
                self.bounds[p] = [float(raw[p + k].reshape(-1)[0]) if self.cfg.clipped and p + k in raw else default
                                  for k, default in zip(_BOUNDS, (-math.inf, math.inf, -math.inf, math.inf))]
        # gradient_clipping, per module prefix, capped by the largest value of the dtype the module's weight is
        # stored in (the FFNs read ffw_layer_1's, the light conv linear_start's, the layer norm_pre_attn's).
        self.grad_clip = {}
        for i in range(self.cfg.layers):
            p = f"{TOWER}layers.{i}."
            for module, weight in (("feed_forward1.", "feed_forward1.ffw_layer_1.linear.weight"),
                                   ("feed_forward2.", "feed_forward2.ffw_layer_1.linear.weight"),
                                   ("lconv1d.", "lconv1d.linear_start.linear.weight"), ("", "norm_pre_attn.weight")):
                self.grad_clip[p + module] = min(self.cfg.gradient_clipping, _DTYPE_MAX[stored[p + weight]])


def rms_norm(x, w, eps):
    """Gemma4RMSNorm: x · (mean(x²) + eps)^-½, times w itself when given."""
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return y if w is None else y * w


def silu(x):
    """x · sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


def softplus(x):
    """log(1 + e^x), without overflow."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


def check_input(cfg, features, mask):
    """Features [frames, mel] as float64 and the mask as bool; refuses a shape, value or mask the tower cannot take."""
    features = np.asarray(features, dtype=np.float64)
    if features.ndim != 2 or features.shape[0] < 1:
        raise ValueError(f"features must be [frames, mel] with at least one frame, got shape {list(features.shape)}")
    mel = features.shape[1]
    if (mel + 3) // 4 != cfg.c0 // 4:
        raise ValueError(f"features have {mel} mel bins, {(mel + 3) // 4} after two stride-2 convolutions; "
                         f"input_proj_linear expects subsampling_conv_channels[0] // 4 = {cfg.c0 // 4}")
    if not np.all(np.isfinite(features)):
        raise ValueError("features contain NaN or infinity")
    mask = np.ones(len(features), dtype=bool) if mask is None else np.asarray(mask)
    if mask.shape != (len(features),):
        raise ValueError(f"mask has shape {list(mask.shape)}, the features have {len(features)} frames")
    mask = mask.astype(bool)
    n = int(mask.sum())
    if not mask[:n].all():
        raise ValueError("mask is not a prefix of valid frames followed by padding")
    return features, mask


def conv2d_stride2(x, w):
    """x [T, F, Cin], w [Cout, Cin, 3, 3] (dims 2, 3 = time, mel) -> [ceil(T/2), ceil(F/2), Cout]: a 3x3 kernel at
    stride 2 over one zero row and column on each side, one product per kernel tap."""
    t_out, f_out = (x.shape[0] + 1) // 2, (x.shape[1] + 1) // 2
    padded = np.pad(x, ((1, 2), (1, 2), (0, 0)))
    out = np.zeros((t_out, f_out, w.shape[0]))
    for dt in range(3):
        for df in range(3):
            out += padded[dt:dt + 2 * t_out:2, df:df + 2 * f_out:2] @ w[:, :, dt, df].T
    return out


def subsample(model, features, mask):
    """Gemma4AudioSubSampleConvProjection: two (mask, conv, channel LayerNorm, ReLU, halve the mask) stages, then the
    (mel, channel) flatten and input_proj_linear. Returns ([T2, hidden], mask [T2])."""
    w, s, eps = model.w, TOWER + "subsample_conv_projection.", model.cfg.eps
    x = features[:, :, None]
    for layer in ("layer0", "layer1"):
        y = conv2d_stride2(x * mask[:, None, None], w[s + layer + ".conv.weight"])
        centred = y - y.mean(axis=-1, keepdims=True)
        y = centred / np.sqrt(np.mean(centred ** 2, axis=-1, keepdims=True) + eps) * w[s + layer + ".norm.weight"]
        x, mask = np.maximum(y, 0.0), mask[::2]
    x = x.reshape(len(x), -1)  # feature index f·C1 + c
    return x @ w[s + "input_proj_linear.weight"].T, mask


def clipped_linear(model, prefix, x, stats):
    """Gemma4ClippableLinear: clamp the input, multiply, clamp the output; stats (a dict) counts clamped values per
    linear ("layer.module") as [clamped inputs, inputs, clamped outputs, outputs]."""
    lo_in, hi_in, lo_out, hi_out = model.bounds[prefix]
    y = np.clip(x, lo_in, hi_in) @ model.w[prefix + "linear.weight"].T
    out = np.clip(y, lo_out, hi_out)
    if stats is not None:
        counts = stats.setdefault(prefix[len(TOWER + "layers."):-1], [0, 0, 0, 0])
        counts[0] += int(np.sum((x < lo_in) | (x > hi_in)))
        counts[1] += x.size
        counts[2] += int(np.sum((y < lo_out) | (y > hi_out)))
        counts[3] += y.size
    return out


def relative_keys(model, p):
    """relative_k_proj of the sinusoid of every table position P = 0 .. C//2: [P, heads, head_dim]. The sinusoid is
    [sin(P·τ), cos(P·τ)], τ_i = exp(-i·ln(10⁴) / max(hidden/2 - 1, 1)), i < hidden/2."""
    cfg = model.cfg
    half = cfg.hidden // 2
    inv = np.exp(-np.arange(half) * math.log(1.0e4) / max(half - 1, 1))
    angle = np.arange(cfg.half_context + 1)[:, None] * inv[None, :]
    table = np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)
    return (table @ model.w[p + "relative_k_proj.weight"].T).reshape(-1, cfg.heads, cfg.head_dim)


def attention(model, p, x, stats):
    """Gemma4AudioAttention over the valid frames, densely. Query q attends key k iff d = q - k lies in
    [0, max_past) or in (-max_future, 0); the logit is q̂·k̂ + q̂·rel[C//2 - max_past + d] (no term where that table
    position is negative), soft-capped."""
    cfg = model.cfg
    n, heads, dim = len(x), cfg.heads, cfg.head_dim
    q = clipped_linear(model, p + "q_proj.", x, stats).reshape(n, heads, dim)
    k = clipped_linear(model, p + "k_proj.", x, stats).reshape(n, heads, dim)
    v = clipped_linear(model, p + "v_proj.", x, stats).reshape(n, heads, dim)
    q = q * (dim ** -0.5 / math.log(2.0)) * softplus(model.w[p + "per_dim_scale"])
    k = k * (math.log(1.0 + math.e) / math.log(2.0))
    d = np.arange(n)[:, None] - np.arange(n)[None, :]
    allowed = ((d >= 0) & (d < cfg.max_past)) | ((d < 0) & (-d < cfg.max_future))
    position = cfg.half_context - cfg.max_past + d
    has_position = (position >= 0) & (position <= cfg.half_context)
    by_position = np.einsum("qhd,phd->hqp", q, relative_keys(model, p))  # [heads, n, C//2 + 1]
    index = np.broadcast_to(np.clip(position, 0, cfg.half_context), (heads, n, n))
    rel = np.take_along_axis(by_position, index, axis=2)
    logits = np.einsum("qhd,khd->hqk", q, k) + np.where(has_position, rel, 0.0)
    logits = cfg.cap * np.tanh(logits / cfg.cap)
    # Every query sees itself, so exp(-1e9 - max) of a masked key is exactly 0: leaving masked keys out is the same.
    logits = np.where(allowed, logits, -np.inf)
    probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    out = np.einsum("hqk,khd->qhd", probs, v).reshape(n, heads * dim)
    return clipped_linear(model, p + "post.", out, stats)


def feed_forward(model, p, x, stats):
    """Gemma4AudioFeedForward: x + residual_weight · norm(clip(ffw_2(silu(ffw_1(norm(clip(x))))))), clip = ±g."""
    g, w = model.grad_clip[p], model.w
    h = rms_norm(np.clip(x, -g, g), w[p + "pre_layer_norm.weight"], DEFAULT_NORM_EPS)
    h = clipped_linear(model, p + "ffw_layer_2.", silu(clipped_linear(model, p + "ffw_layer_1.", h, stats)), stats)
    h = rms_norm(np.clip(h, -g, g), w[p + "post_layer_norm.weight"], DEFAULT_NORM_EPS)
    return x + model.cfg.residual_weight * h


def light_conv(model, p, x, stats):
    """Gemma4AudioLightConv1d: x + linear_end(silu(conv_norm(clip(causal depthwise conv(glu(linear_start(
    pre_layer_norm(x)))))))); the conv at time t reads t - K + 1 .. t, zeros before the start."""
    cfg, w, g = model.cfg, model.w, model.grad_clip[p]
    y = clipped_linear(model, p + "linear_start.", rms_norm(x, w[p + "pre_layer_norm.weight"], cfg.eps), stats)
    y = y[:, :cfg.hidden] / (1.0 + np.exp(-y[:, cfg.hidden:]))
    kernel = w[p + "depthwise_conv1d.weight"][:, 0, :]  # [hidden, K]
    padded = np.pad(y, ((cfg.kernel - 1, 0), (0, 0)))
    conv = sum(padded[j:j + len(y)] * kernel[:, j] for j in range(cfg.kernel))
    conv = rms_norm(np.clip(conv, -g, g), w[p + "conv_norm.weight"], cfg.eps)
    return x + clipped_linear(model, p + "linear_end.", silu(conv), stats)


def conformer_layer(model, i, x, stats):
    """Gemma4AudioLayer: FFN half, attention block, light conv, FFN half, norm_out."""
    p, w = f"{TOWER}layers.{i}.", model.w
    g = model.grad_clip[p]
    x = feed_forward(model, p + "feed_forward1.", x, stats)
    a = attention(model, p + "self_attn.", rms_norm(np.clip(x, -g, g), w[p + "norm_pre_attn.weight"],
                                                    DEFAULT_NORM_EPS), stats)
    x = x + rms_norm(np.clip(a, -g, g), w[p + "norm_post_attn.weight"], DEFAULT_NORM_EPS)
    x = light_conv(model, p + "lconv1d.", x, stats)
    x = feed_forward(model, p + "feed_forward2.", x, stats)
    return rms_norm(np.clip(x, -g, g), w[p + "norm_out.weight"], DEFAULT_NORM_EPS)


def _loaded(model):
    """model itself when it is an AudioModel, else the AudioModel of that directory."""
    return model if isinstance(model, AudioModel) else AudioModel(model)


def audio_tower(model, features, mask=None, stats=None):
    """output_proj rows of the valid encoder frames, [n_soft, output_proj_dims]. model: a model directory or an
    AudioModel; features [frames, mel]; mask [frames] (None: all valid). Frames past the valid prefix are dropped
    after subsampling: attention never reads them as keys and the light conv is causal, so no valid row depends on
    them."""
    model = _loaded(model)
    features, mask = check_input(model.cfg, features, mask)
    x, mask = subsample(model, features, mask)
    x = x[:int(mask.sum())]
    if not len(x):
        return np.zeros((0, model.cfg.out_dims))
    for i in range(model.cfg.layers):
        x = conformer_layer(model, i, x, stats)
    return x @ model.w[TOWER + "output_proj.weight"].T + model.w[TOWER + "output_proj.bias"]


def soft_tokens(model, features, mask=None):
    """The rows that replace the audio placeholders: embed_audio(audio_tower) = RMS(x) (no weight) · W^T,
    [n_soft, text hidden]."""
    model = _loaded(model)
    x = rms_norm(audio_tower(model, features, mask), None, model.cfg.eps)
    return x @ model.w[EMBEDDER].T


def audio_token_count(n_frames):
    """Soft tokens of a clip with n_frames valid mel frames: the mask halved twice (Gemma4Processor
    .replace_audio_token), ceil(n_frames / 4)."""
    return (n_frames + 3) // 4


def expand_audio_tokens(ids, counts, config):
    """ids with the i-th audio_token_id replaced by boa, counts[i] audio_token_ids, eoa (Gemma4Processor
    .replace_audio_token). config: config.json's dict. Raises ValueError when the placeholders and counts differ."""
    boa, audio, eoa = (config.get(k, v) for k, v in _TOKEN_DEFAULTS.items())
    places = sum(1 for t in ids if t == audio)
    if places != len(counts):
        raise ValueError(f"{places} audio placeholders in the prompt but {len(counts)} clips")
    out, clips = [], iter(counts)
    for t in ids:
        out.extend([boa] + [audio] * next(clips) + [eoa] if t == audio else [t])
    return out


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(prog="gemma4_audio_reference", description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("soft-tokens", "tower", "logits"))
    ap.add_argument("--model", required=True, help="Gemma4ForConditionalGeneration directory with an audio tower")
    ap.add_argument("--features", required=True, help="[frames, mel] .npy")
    ap.add_argument("--mask", help="[frames] .npy of the valid frames (default: all)")
    ap.add_argument("--tokens", help="logits: token-id file holding one audio placeholder")
    ap.add_argument("--write-ids", help="logits: also write the expanded token ids to this file")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if (a.what == "logits") != (a.tokens is not None):
        ap.error("--tokens goes with logits, and logits needs it")
    run = {"soft-tokens": soft_tokens, "tower": audio_tower, "logits": soft_tokens}[a.what]

    def compute():
        model = AudioModel(a.model)
        features = reference_cli.load_npy(a.features)
        mask = None if a.mask is None else reference_cli.load_npy(a.mask)
        try:
            check_input(model.cfg, features, mask)
        except ValueError as e:
            raise ValueError(f"{a.features if a.mask is None else a.features + ', ' + a.mask}: {e}") from None
        out = run(model, features, mask)
        if a.what != "logits":
            return out
        with open(os.path.join(a.model, "config.json")) as f:
            config = json.load(f)
        try:
            ids = expand_audio_tokens(read_token_ids(a.tokens), [len(out)], config)
        except ValueError as e:
            raise ValueError(f"{a.tokens}: {e}") from None
        audio = config.get("audio_token_id", _TOKEN_DEFAULTS["audio_token_id"])
        logits = text.forward(a.model, ids, soft_tokens=out, soft_token_id=audio)
        if a.write_ids:
            write_token_ids(a.write_ids, ids)
        return logits
    return reference_cli.write_or_fail("gemma4_audio_reference", a.output, compute)


if __name__ == "__main__":
    sys.exit(main())
