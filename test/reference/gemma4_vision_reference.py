"""Independent float64 numpy reference of Gemma 4's vision tower (Gemma4ForConditionalGeneration's vision_tower and
embed_vision) and of a prompt whose image placeholders hold its soft tokens.

Usage: gemma4_vision_reference.py soft-tokens --model DIR --pixels IMAGE.npy -o OUT.npy
       gemma4_vision_reference.py logits --model DIR --tokens IDS --pixels IMAGE.npy [--pixels ...] -o OUT.npy
                                  [--write-ids FILE]

IMAGE.npy is an image as the processor's resize leaves it: [H, W, 3] RGB, uint8 or float in [0, 1], H and W
multiples of patch_size · pooling_kernel_size. `soft-tokens` writes [H·W / (patch·pooling)², text hidden]. `logits`
reads IDS as the tokenizer gives a rendered prompt — one image placeholder (image_token_id) per --pixels file, in
order — expands each to begin-image, one placeholder per soft token and end-image (Gemma4Processor), and writes the
logits [T, vocab] of the expanded prompt with the soft tokens in place; --write-ids writes the expanded ids.

Follows transformers' models/gemma4 (docs/gemma4-vision.md lists every rule and where it is read), without padding:
only the image's own patches are computed, which equals the processor's padded batch (padding keys are masked,
padding rows are dropped). Weights stored as BF16/F16 are widened; everything is computed in float64.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

import gemma4_reference as text
import reference_cli
from safetensors_io import read_model_weights
from token_ids import read_token_ids, write_token_ids

# Gemma4VisionConfig's defaults (configuration_gemma4.py) for the fields a vision_config may omit.
_VISION_DEFAULTS = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16, "num_attention_heads": 12,
    "num_key_value_heads": 12, "head_dim": 64, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
    "attention_bias": False, "rope_parameters": None, "pooling_kernel_size": 3, "patch_size": 16,
    "position_embedding_size": 10 * 1024, "use_clipped_linears": False, "standardize": False,
}
# Gemma4Config's image marker ids when config.json leaves them out.
_IMAGE_TOKEN_DEFAULTS = {"boi_token_id": 255999, "image_token_id": 258880, "eoi_token_id": 258882}
_TOWER = "model.vision_tower."
_CLIPS = ("input_min", "input_max", "output_min", "output_max")


class VisionConfig:
    """config.json's vision_config with defaults, plus the text hidden size."""

    def __init__(self, raw, where="config.json"):
        """Resolves a config.json dict; raises ValueError with one line naming `where` and the problem."""
        self.where = where
        if raw.get("model_type") != "gemma4":
            self._refuse(f"model_type {raw.get('model_type')!r} is not gemma4 (a vision tower needs "
                         "Gemma4ForConditionalGeneration)")
        if not raw.get("vision_config"):
            self._refuse("vision_config is missing: the model has no vision tower")
        c = dict(_VISION_DEFAULTS, **raw["vision_config"])
        rope = c["rope_parameters"] or {"rope_type": "default", "rope_theta": 100.0}
        if rope.get("rope_type", "default") != "default":
            self._refuse(f"vision rope_type {rope.get('rope_type')!r} is not supported")
        if c["hidden_activation"] != "gelu_pytorch_tanh":
            self._refuse(f"vision hidden_activation {c['hidden_activation']!r} is not supported")
        if c["attention_bias"]:
            self._refuse("vision attention_bias true is not supported")
        self.hidden, self.intermediate = c["hidden_size"], c["intermediate_size"]
        self.layers, self.heads, self.kv_heads = c["num_hidden_layers"], c["num_attention_heads"], \
            c["num_key_value_heads"]
        self.head_dim, self.eps, self.theta = c["head_dim"], c["rms_norm_eps"], rope.get("rope_theta", 100.0)
        self.patch, self.pooling, self.positions = c["patch_size"], c["pooling_kernel_size"], \
            c["position_embedding_size"]
        self.clipped, self.standardize = bool(c["use_clipped_linears"]), bool(c["standardize"])
        # apply_multidimensional_rope splits the head into two halves (x, y) that each rotate as pairs.
        if self.head_dim % 4:
            self._refuse(f"vision head_dim {self.head_dim} is not a multiple of 4 (two rotated halves)")
        if self.heads % self.kv_heads:
            self._refuse(f"{self.heads} vision heads do not split over {self.kv_heads} KV heads")
        self.text_hidden = text.TextConfig(raw, where).hidden

    def _refuse(self, problem):
        """Raises the one-line error every refusal uses."""
        raise ValueError(f"{self.where}: {problem}")

    def tensor_shapes(self):
        """{name: shape} of every tensor the tower and embed_vision read."""
        D, I, inner, kv = self.hidden, self.intermediate, self.heads * self.head_dim, self.kv_heads * self.head_dim
        shapes = {_TOWER + "patch_embedder.input_proj.weight": (D, 3 * self.patch ** 2),
                  _TOWER + "patch_embedder.position_embedding_table": (2, self.positions, D),
                  "model.embed_vision.embedding_projection.weight": (self.text_hidden, D)}
        linear_shapes = {"self_attn.q_proj": (inner, D), "self_attn.k_proj": (kv, D), "self_attn.v_proj": (kv, D),
                         "self_attn.o_proj": (D, inner), "mlp.gate_proj": (I, D), "mlp.up_proj": (I, D),
                         "mlp.down_proj": (D, I)}
        for i in range(self.layers):
            p = f"{_TOWER}encoder.layers.{i}."
            for name, shape in linear_shapes.items():
                shapes[p + name + ".linear.weight"] = shape
                if self.clipped:
                    shapes.update({f"{p}{name}.{bound}": () for bound in _CLIPS})
            shapes.update({p + "self_attn.q_norm.weight": (self.head_dim,),
                           p + "self_attn.k_norm.weight": (self.head_dim,)})
            shapes.update({p + norm + ".weight": (D,) for norm in (
                "input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                "post_feedforward_layernorm")})
        if self.standardize:
            shapes.update({_TOWER + "std_bias": (D,), _TOWER + "std_scale": (D,)})
        return shapes


class VisionTower:
    """A model directory's vision config and its tower's tensors in float64, read once."""

    def __init__(self, model_dir):
        """Reads config.json and the tensors; raises ValueError naming the file and the first problem."""
        path = os.path.join(model_dir, "config.json")
        with open(path) as f:
            self.cfg = VisionConfig(json.load(f), path)
        raw = read_model_weights(model_dir)
        self.w = {}
        for name, shape in self.cfg.tensor_shapes().items():
            if name not in raw:
                raise ValueError(f"{model_dir}: tensor {name} is missing")
            # A scalar bound stored as [1] holds the same value as the 0-d buffer.
            t = raw[name].reshape(()) if shape == () and raw[name].size == 1 else raw[name]
            if t.shape != shape:
                raise ValueError(f"{model_dir}: tensor {name} has shape {list(t.shape)}, the config says "
                                 f"{list(shape)}")
            self.w[name] = t.astype(np.float64)


def _tower(model):
    """A VisionTower for a model directory, or the tower itself."""
    return model if isinstance(model, VisionTower) else VisionTower(model)


def patches_from_pixels(pixels, patch_size, pooling):
    """(patches [n, 3·p·p] in [0, 1], positions int [n, 2]) of a resized image [H, W, 3] (uint8, or float in [0, 1]).
    Patches run row by row; inside one the feature index is (dy·p + dx)·3 + c; a position is (x = column,
    y = row) in patches."""
    pixels = np.asarray(pixels)
    if pixels.ndim != 3 or pixels.shape[2] != 3:
        raise ValueError(f"pixels have shape {list(pixels.shape)}, not [H, W, 3]")
    side = patch_size * pooling
    H, W = pixels.shape[:2]
    if H == 0 or W == 0 or H % side or W % side:
        raise ValueError(f"pixels are {H}x{W}: both sides must be positive multiples of {side} "
                         f"(patch {patch_size} x pooling {pooling}), as the processor's resize makes them")
    if pixels.dtype == np.uint8:
        values = pixels.astype(np.float64) / 255.0
    elif np.issubdtype(pixels.dtype, np.floating):
        values = pixels.astype(np.float64)
        if not np.all((values >= 0.0) & (values <= 1.0)):
            raise ValueError("float pixels must lie in [0, 1]")
    else:
        raise ValueError(f"pixels have dtype {pixels.dtype}, not uint8 or float")
    nH, nW = H // patch_size, W // patch_size
    blocks = values.reshape(nH, patch_size, nW, patch_size, 3).transpose(0, 2, 1, 3, 4)  # [y, x, dy, dx, c]
    patches = blocks.reshape(nH * nW, 3 * patch_size * patch_size)
    ys, xs = np.divmod(np.arange(nH * nW), nW)
    return patches, np.stack([xs, ys], axis=1)


def _grid(cfg, patches, positions):
    """(columns, rows) of the patch grid the positions cover; refuses anything but each cell of a grid whose sides
    are multiples of the pooling once, within the position table."""
    positions = np.asarray(positions)
    if patches.ndim != 2 or patches.shape[1] != 3 * cfg.patch ** 2:
        raise ValueError(f"patches have shape {list(patches.shape)}, not [n, {3 * cfg.patch ** 2}]")
    if positions.shape != (len(patches), 2) or len(patches) == 0:
        raise ValueError(f"positions have shape {list(positions.shape)}, not [{len(patches)}, 2]")
    if positions.min() < 0 or positions.max() >= cfg.positions:
        raise ValueError(f"a patch position is outside the position table [0, {cfg.positions})")
    cols, rows = positions.max(axis=0) + 1
    cells = np.unique(positions[:, 1] * cols + positions[:, 0])
    if len(cells) != len(positions) or len(positions) != cols * rows or cols % cfg.pooling or rows % cfg.pooling:
        raise ValueError(f"positions do not cover a grid of whole {cfg.pooling}x{cfg.pooling} blocks once each")
    return int(cols), int(rows)


def rope_2d(x, positions, theta):
    """2-D RoPE of x [n, heads, d]: the first d/2 channels rotate by the column x, the last d/2 by the row y, each
    half as rotate_half pairs (j, j + d/4) at angle pos · theta^(−j / (d/4)), j < d/4 — x and y share the
    frequencies."""
    half = x.shape[-1] // 2
    quarter = half // 2
    inv_freq = theta ** (-np.arange(quarter, dtype=np.float64) / quarter)
    parts = []
    for axis in (0, 1):
        chunk = x[..., axis * half:(axis + 1) * half]
        angle = positions[:, axis, None].astype(np.float64) * inv_freq  # [n, d/4]
        cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
        a, b = chunk[..., :quarter], chunk[..., quarter:]
        parts += [a * cos - b * sin, b * cos + a * sin]
    return np.concatenate(parts, axis=-1)


def clipped_linear(tower, name, x):
    """x · W^T for linear `name`, its input and output clamped to the stored bounds when the tower clips."""
    w = tower.w
    if tower.cfg.clipped:
        x = np.clip(x, w[name + ".input_min"], w[name + ".input_max"])
    y = x @ w[name + ".linear.weight"].T
    return np.clip(y, w[name + ".output_min"], w[name + ".output_max"]) if tower.cfg.clipped else y


def _attention(tower, p, h, positions):
    """Bidirectional self-attention of layer prefix p over every patch: proj → RMS norm over the head → 2-D RoPE
    (q, k), weightless RMS norm (v), scale 1.0."""
    cfg, n = tower.cfg, len(h)
    q = clipped_linear(tower, p + "q_proj", h).reshape(n, cfg.heads, cfg.head_dim)
    k = clipped_linear(tower, p + "k_proj", h).reshape(n, cfg.kv_heads, cfg.head_dim)
    v = clipped_linear(tower, p + "v_proj", h).reshape(n, cfg.kv_heads, cfg.head_dim)
    q = rope_2d(text.rms_norm(q, tower.w[p + "q_norm.weight"], cfg.eps), positions, cfg.theta)
    k = rope_2d(text.rms_norm(k, tower.w[p + "k_norm.weight"], cfg.eps), positions, cfg.theta)
    v = text.rms_norm(v, None, cfg.eps)
    group = cfg.heads // cfg.kv_heads  # query head j reads KV head j // group
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = q.transpose(1, 0, 2) @ k.transpose(1, 2, 0)  # [heads, query, key]
    probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    out = (probs @ v.transpose(1, 0, 2)).transpose(1, 0, 2).reshape(n, cfg.heads * cfg.head_dim)
    return clipped_linear(tower, p + "o_proj", out)


def _encoder_layer(tower, i, h, positions):
    """Gemma4VisionEncoderLayer i: sandwich-normed attention and gated MLP, each added to the residual."""
    p, eps = f"{_TOWER}encoder.layers.{i}.", tower.cfg.eps

    def norm(y, name):
        return text.rms_norm(y, tower.w[p + name + ".weight"], eps)

    h = h + norm(_attention(tower, p + "self_attn.", norm(h, "input_layernorm"), positions),
                 "post_attention_layernorm")
    m = norm(h, "pre_feedforward_layernorm")
    m = text.gelu_tanh(clipped_linear(tower, p + "mlp.gate_proj", m)) * clipped_linear(tower, p + "mlp.up_proj", m)
    return h + norm(clipped_linear(tower, p + "mlp.down_proj", m), "post_feedforward_layernorm")


def vision_tower(model, patches, positions):
    """The tower's output [n / pooling², hidden] for patches [n, 3·p·p] (in [0, 1]) at positions [n, 2] (x, y): the
    pooled tokens in row-major order of the pooled grid, times √hidden, standardized when the config says so. The
    patch order is free; the positions must cover a whole grid (see _grid). model: a directory or a VisionTower."""
    tower = _tower(model)
    cfg, w = tower.cfg, tower.w
    patches = np.asarray(patches, dtype=np.float64)
    cols, rows = _grid(cfg, patches, positions)
    positions = np.asarray(positions, dtype=np.int64)
    table = w[_TOWER + "patch_embedder.position_embedding_table"]
    h = (2.0 * (patches - 0.5)) @ w[_TOWER + "patch_embedder.input_proj.weight"].T
    h = h + table[0, positions[:, 0]] + table[1, positions[:, 1]]
    for i in range(cfg.layers):
        h = _encoder_layer(tower, i, h, positions)
    k = cfg.pooling
    grid = np.empty((rows, cols, cfg.hidden))
    grid[positions[:, 1], positions[:, 0]] = h
    pooled = grid.reshape(rows // k, k, cols // k, k, cfg.hidden).mean(axis=(1, 3)).reshape(-1, cfg.hidden)
    pooled = pooled * math.sqrt(cfg.hidden)
    if cfg.standardize:
        pooled = (pooled - w[_TOWER + "std_bias"]) * w[_TOWER + "std_scale"]
    return pooled


def embed_vision(model, pooled):
    """Gemma4MultimodalEmbedder: a weightless RMS norm, then the projection into the text hidden size."""
    tower = _tower(model)
    normed = text.rms_norm(pooled, None, tower.cfg.eps)
    return normed @ tower.w["model.embed_vision.embedding_projection.weight"].T


def soft_tokens(model, pixels):
    """The soft tokens [n_soft, text hidden] of one resized image [H, W, 3]. model: a directory or a VisionTower."""
    tower = _tower(model)
    patches, positions = patches_from_pixels(pixels, tower.cfg.patch, tower.cfg.pooling)
    return embed_vision(tower, vision_tower(tower, patches, positions))


def image_token_ids(model_dir):
    """(boi, image, eoi) ids of the model's config.json."""
    with open(os.path.join(model_dir, "config.json")) as f:
        raw = json.load(f)
    return tuple(raw.get(k, v) for k, v in _IMAGE_TOKEN_DEFAULTS.items())


def expand_image_tokens(token_ids, n_soft, ids=tuple(_IMAGE_TOKEN_DEFAULTS.values())):
    """Gemma4Processor.replace_image_token on ids: the k-th image placeholder becomes boi, n_soft[k] placeholders,
    eoi. n_soft: one count per placeholder, or an int for all; ids: (boi, image, eoi), e.g. image_token_ids(DIR)."""
    boi, image, eoi = ids
    count = sum(1 for t in token_ids if t == image)
    counts = [n_soft] * count if isinstance(n_soft, int) else list(n_soft)
    if len(counts) != count:
        raise ValueError(f"{count} image placeholders in the prompt, {len(counts)} images given")
    out, images = [], iter(counts)
    for t in token_ids:
        out.extend([boi] + [image] * next(images) + [eoi] if t == image else [t])
    return out


def merged_logits(model_dir, token_ids, soft):
    """Logits [T, vocab] of the text decoder on token_ids (already expanded) with the rows soft [n, text hidden] in
    place of the n image placeholders, in order (gemma4_reference.forward's soft_tokens)."""
    return text.forward(model_dir, token_ids, soft_tokens=np.asarray(soft, dtype=np.float64))


def _prompt_logits(args):
    """The `logits` command: expand the prompt, compute each image's soft tokens, run the decoder."""
    tower = VisionTower(args.model)
    soft = [_file_soft_tokens(tower, path) for path in args.pixels]
    try:
        ids = expand_image_tokens(read_token_ids(args.tokens), [len(s) for s in soft], image_token_ids(args.model))
    except ValueError as e:
        raise ValueError(f"{args.tokens}: {e}") from None
    logits = merged_logits(args.model, ids, np.concatenate(soft))
    if args.write_ids:
        write_token_ids(args.write_ids, ids)
    return logits


def _file_soft_tokens(tower, path):
    """soft_tokens of the image in a .npy file; a bad file or image is refused in one line naming the file."""
    try:
        return soft_tokens(tower, np.load(path, allow_pickle=False))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def main():
    """CLI entry point."""
    ap = argparse.ArgumentParser(prog="gemma4_vision_reference", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    tokens = sub.add_parser("soft-tokens", help="one image's soft tokens [n, text hidden]")
    tokens.add_argument("--model", required=True, help="model directory (Gemma4ForConditionalGeneration)")
    tokens.add_argument("--pixels", required=True, help="resized image [H, W, 3] as .npy (uint8 or float in [0, 1])")
    tokens.add_argument("-o", "--output", required=True, help="where to write the soft tokens as .npy")
    logits = sub.add_parser("logits", help="logits of a prompt holding images")
    logits.add_argument("--model", required=True, help="model directory (Gemma4ForConditionalGeneration)")
    logits.add_argument("--tokens", required=True, help="token-id file with one image placeholder per image")
    logits.add_argument("--pixels", required=True, action="append", help="resized image .npy, once per image")
    logits.add_argument("-o", "--output", required=True, help="where to write the logits [T, vocab] as .npy")
    logits.add_argument("--write-ids", help="also write the expanded token ids to this file")
    args = ap.parse_args()
    if args.command == "soft-tokens":
        return reference_cli.write_or_fail(ap.prog, args.output,
                                           lambda: _file_soft_tokens(VisionTower(args.model), args.pixels))
    return reference_cli.write_or_fail(ap.prog, args.output, lambda: _prompt_logits(args))


if __name__ == "__main__":
    sys.exit(main())
