"""Checks gemma4_vision_reference.py on tiny models from make_random_gemma4.py --vision: against a second, torch-based
formulation that follows transformers' modules literally, and against invariants of the rules themselves.

Usage: check_gemma4_vision_reference.py [--workdir DIR]   (exit 0 iff every check passes)

The torch side shares no code with the reference: it parses config.json itself, reads the safetensors with
torch.frombuffer, patchifies as the processor does (reshape / permute of a [C, H, W] image, positions from a meshgrid),
pads each image to max_soft_tokens · 9 patches with zero pixels and position (-1, -1), runs the whole padded batch —
one-hot position lookup, additive bidirectional padding mask, cos/sin tables split per axis, pooling as a one-hot
matrix product, the pooler's mask selecting the real tokens — and merges soft tokens into
check_gemma4_reference.py's token-by-token decoder. The reference computes each image's own patches alone, in its own
way (a scatter into the patch grid and a block mean for the pooling). Without torch the invariants still run and the
cross-check is reported as skipped.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import gemma4_reference as text
import gemma4_vision_reference as ref
from check_gemma4_reference import Checker, max_diff, torch_decode, with_config
from safetensors_io import read_model_weights, write_safetensors
from token_ids import read_token_ids

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = [
    ("clipped", ["--variant", "full", "--seed", "4", "--conditional", "--vision", "clipped"]),
    ("standardize", ["--variant", "plain", "--seed", "5", "--conditional", "--vision", "standardize", "--dtype",
                     "f32"]),
]
# (name, height, width, budget): the sizes Gemma4ImageProcessor's aspect-ratio-preserving resize gives at
# patch 4 and pooling 3 — 1000×1000, 480×640 and 640×480 at 280 soft tokens (2520 patches), 1000×1000 and 480×640
# at 70 (630) — so each is a whole number of 12-pixel blocks and within the budget.
IMAGES = [
    ("square", 192, 192, 280),
    ("landscape", 168, 228, 280),
    ("portrait", 228, 168, 280),
    ("grayscale", 192, 192, 280),
    ("square-70", 96, 96, 70),
    ("landscape-70", 84, 108, 70),
]
# The torch side's batches: (max_soft_tokens, images); two at a time, so that the batch's soft tokens are read in
# order, image after image, while the padded [2, heads, 2520, 2520] attention stays small.
BATCHES = [(280, ["square", "landscape"]), (280, ["portrait", "grayscale"]), (70, ["square-70", "landscape-70"])]


def make_pixels(name, height, width, seed):
    """A resized test image: smooth colour ramps plus noise, uint8; grayscale repeats one channel three times (PIL's
    convert("RGB") of an "L" image); the -70 ones as float in [0, 1], the other form the reference accepts."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    ramps = np.stack([x / width, y / height, (x + y) / (width + height)], axis=-1) * 160.0
    pixels = np.clip(ramps + rng.normal(0.0, 40.0, (height, width, 3)), 0, 255).astype(np.uint8)
    if name == "grayscale":
        pixels = np.repeat(pixels[..., :1], 3, axis=2)
    return pixels.astype(np.float64) / 255.0 if name.endswith("-70") else pixels


class TorchTower:
    """The tower and embed_vision as transformers' Gemma4VisionModel / Gemma4MultimodalEmbedder compute them, on a
    padded batch, in float64; counts the clamped elements of the real patches."""

    def __init__(self, model_dir):
        from torch_safetensors import load_safetensors_torch
        top = json.load(open(os.path.join(model_dir, "config.json")))
        self.c = top["vision_config"]
        self.W, _ = load_safetensors_torch(model_dir)
        self.clamped = {}  # (linear, "input" / "output") -> [elements clamped, elements seen]

    def processor(self, images, max_soft_tokens):
        """(pixel_values [B, max_patches, 3·p·p], position ids [B, max_patches, 2]), padded as Gemma4ImageProcessor
        pads them."""
        import torch
        p, k = self.c["patch_size"], self.c["pooling_kernel_size"]
        max_patches = max_soft_tokens * k * k
        values, positions = [], []
        for image in images:
            img = torch.from_numpy(np.ascontiguousarray(image))
            img = img.double() / 255.0 if img.dtype == torch.uint8 else img.double()
            chw = img.permute(2, 0, 1)
            C, H, W = chw.shape
            nH, nW = H // p, W // p
            patches = chw.reshape(C, nH, p, nW, p).permute(1, 3, 2, 4, 0).reshape(nH * nW, p * p * C)
            gx, gy = torch.meshgrid(torch.arange(nW), torch.arange(nH), indexing="xy")
            pos = torch.stack([gx, gy], dim=-1).reshape(nH * nW, 2)
            pad = max_patches - nH * nW
            values.append(torch.cat([patches, torch.zeros(pad, p * p * C, dtype=torch.float64)]))
            positions.append(torch.cat([pos, torch.full((pad, 2), -1, dtype=torch.long)]))
        return torch.stack(values), torch.stack(positions)

    def rms(self, x, w=None):
        import torch
        y = x * torch.pow(x.pow(2).mean(-1, keepdim=True) + self.c["rms_norm_eps"], -0.5)
        return y if w is None else y * w

    def linear(self, name, x, valid):
        """Gemma4ClippableLinear; counts the clamped elements in the rows of real patches."""
        if self.c["use_clipped_linears"]:
            x = self.clamp(name, "input", x, valid)
        y = x @ self.W[name + ".linear.weight"].T
        return self.clamp(name, "output", y, valid) if self.c["use_clipped_linears"] else y

    def clamp(self, name, side, x, valid):
        """x clamped to the linear's input or output bounds, counting the real patches' elements it moves."""
        import torch
        lo, hi = self.W[f"{name}.{side}_min"], self.W[f"{name}.{side}_max"]
        count = self.clamped.setdefault((name, side), [0, 0])
        count[0] += int(((x < lo) | (x > hi))[valid].sum())
        count[1] += x[valid].numel()
        return torch.clamp(x, lo, hi)

    def rope_tables(self, position_ids):
        """Gemma4VisionRotaryEmbedding: cos, sin [B, L, head_dim], the x half then the y half."""
        import torch
        hd = self.c["head_dim"]
        spatial = hd // 2
        theta = self.c["rope_parameters"]["rope_theta"]
        inv_freq = 1.0 / theta ** (torch.arange(0, spatial, 2, dtype=torch.float64) / spatial)
        cos, sin = [], []
        for i in range(2):
            freqs = position_ids[:, :, i, None].double() * inv_freq
            emb = torch.cat([freqs, freqs], dim=-1)
            cos.append(emb.cos())
            sin.append(emb.sin())
        return torch.cat(cos, dim=-1), torch.cat(sin, dim=-1)

    @staticmethod
    def multidimensional_rope(x, cos, sin):
        """apply_multidimensional_rope with two axes: x [B, L, heads, d]."""
        import torch
        n = 2 * (x.shape[-1] // 4)
        out = []
        for xp, cp, sp in zip(torch.split(x, n, -1), torch.split(cos, n, -1), torch.split(sin, n, -1)):
            cp, sp = cp.unsqueeze(2), sp.unsqueeze(2)
            half = xp.shape[-1] // 2
            rotated = torch.cat([-xp[..., half:], xp[..., :half]], dim=-1)
            out.append(xp * cp + rotated * sp)
        return torch.cat(out, dim=-1)

    def forward(self, images, max_soft_tokens):
        """Soft tokens [sum of n_soft, text hidden] of a batch of resized images."""
        import torch
        import torch.nn.functional as F
        c, W, pre = self.c, self.W, "model.vision_tower."
        pixel_values, position_ids = self.processor(images, max_soft_tokens)
        B, L, _ = pixel_values.shape
        k = c["pooling_kernel_size"]
        output_length = L // (k * k)
        padding = (position_ids == -1).all(dim=-1)
        valid = ~padding
        # Gemma4VisionPatchEmbedder
        h = (2 * (pixel_values - 0.5)) @ W[pre + "patch_embedder.input_proj.weight"].T
        one_hot = F.one_hot(position_ids.clamp(min=0), num_classes=c["position_embedding_size"])
        one_hot = one_hot.permute(0, 2, 1, 3).double()
        pe = (one_hot @ W[pre + "patch_embedder.position_embedding_table"]).sum(dim=1)
        h = h + pe.masked_fill(padding.unsqueeze(-1), 0.0)
        # Gemma4VisionEncoder: bidirectional mask over the real keys
        mask = torch.zeros(B, 1, 1, L, dtype=torch.float64).masked_fill(~valid[:, None, None, :],
                                                                         torch.finfo(torch.float64).min)
        cos, sin = self.rope_tables(position_ids)
        heads, kvh, hd = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        for i in range(c["num_hidden_layers"]):
            p = f"{pre}encoder.layers.{i}."
            r = h
            x = self.rms(h, W[p + "input_layernorm.weight"])
            q = self.rms(self.linear(p + "self_attn.q_proj", x, valid).view(B, L, heads, hd),
                         W[p + "self_attn.q_norm.weight"])
            kk = self.rms(self.linear(p + "self_attn.k_proj", x, valid).view(B, L, kvh, hd),
                          W[p + "self_attn.k_norm.weight"])
            v = self.rms(self.linear(p + "self_attn.v_proj", x, valid).view(B, L, kvh, hd))
            q = self.multidimensional_rope(q, cos, sin).transpose(1, 2)
            kk = self.multidimensional_rope(kk, cos, sin).transpose(1, 2).repeat_interleave(heads // kvh, dim=1)
            v = v.transpose(1, 2).repeat_interleave(heads // kvh, dim=1)
            probs = torch.softmax(q @ kk.transpose(2, 3) * 1.0 + mask, dim=-1)
            o = (probs @ v).transpose(1, 2).reshape(B, L, heads * hd)
            h = r + self.rms(self.linear(p + "self_attn.o_proj", o, valid), W[p + "post_attention_layernorm.weight"])
            r = h
            x = self.rms(h, W[p + "pre_feedforward_layernorm.weight"])
            m = F.gelu(self.linear(p + "mlp.gate_proj", x, valid), approximate="tanh") * \
                self.linear(p + "mlp.up_proj", x, valid)
            h = r + self.rms(self.linear(p + "mlp.down_proj", m, valid), W[p + "post_feedforward_layernorm.weight"])
        # Gemma4VisionPooler
        h = h.masked_fill(padding.unsqueeze(-1), 0.0)
        kp = int((L // output_length) ** 0.5)
        clamped = position_ids.clamp(min=0)
        max_x = clamped[..., 0].max(dim=-1, keepdim=True)[0] + 1
        idx = torch.div(clamped, kp, rounding_mode="floor")
        idx = idx[..., 0] + (max_x // kp) * idx[..., 1]
        weights = F.one_hot(idx.long(), output_length).double() / kp ** 2
        h = weights.transpose(1, 2) @ h
        pooler_mask = torch.logical_not((weights == 0).all(dim=1))
        h = h * c["hidden_size"] ** 0.5
        h = h[pooler_mask]
        if c["standardize"]:
            h = (h - W[pre + "std_bias"]) * W[pre + "std_scale"]
        # Gemma4MultimodalEmbedder
        return (self.rms(h) @ W["model.embed_vision.embedding_projection.weight"].T).numpy()


def check_torch(chk, models, images):
    """Batches of images through the padded torch formulation against the reference image by image, to 1e-9 of the
    soft tokens' scale; the merged prompt's logits against the token-by-token torch decoder."""
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP torch cross-check: torch is not importable")
        return
    for model_name, model in models.items():
        tower = ref.VisionTower(model)
        torch_tower = TorchTower(model)
        for budget, names in BATCHES:
            theirs = torch_tower.forward([images[n] for n in names], budget)
            ours = np.concatenate([ref.soft_tokens(tower, images[n]) for n in names])
            scale = float(np.max(np.abs(theirs)))
            chk.check(f"torch {model_name}: {' + '.join(names)} padded to {budget * 9} patches",
                      max_diff(ours, theirs) <= 1e-9 * scale,
                      f"{len(theirs)} soft tokens, max|x|={scale:.3f} max_abs_diff={max_diff(ours, theirs):.2e}")
        if tower.cfg.clipped:
            counts = torch_tower.clamped
            idle = [f"{name.split('layers.')[1]} {side}" for (name, side), (n, _) in counts.items() if n == 0]
            least = min(n / total for n, total in counts.values())
            share = sum(n for n, _ in counts.values()) / sum(total for _, total in counts.values())
            chk.check(f"torch {model_name}: every clamp of every linear clips", len(counts) == 28 and not idle,
                      f"{len(counts)} clamps, {share:.1%} of their elements in the real patches clamped, the least "
                      f"active {least:.2%}" + (f"; idle: {', '.join(idle)}" if idle else ""))
        # One image padded to another budget's patch count gives the same tokens.
        small = images["square-70"]
        a, b = torch_tower.forward([small], 70), torch_tower.forward([small], 280)
        chk.check(f"torch {model_name}: padding to 630 or 2520 patches agrees", max_diff(a, b) <= 1e-12,
                  f"max_abs_diff={max_diff(a, b):.2e}")
        ids, soft = prompt(model, tower, [images["landscape-70"], images["grayscale"]])
        ours = ref.merged_logits(model, ids, soft)
        theirs = torch_decode(model, ids, False, torch_tower.forward([images["landscape-70"]], 70).tolist() +
                              torch_tower.forward([images["grayscale"]], 280).tolist())
        scale = max(1.0, float(np.max(np.abs(theirs))))
        chk.check(f"torch {model_name}: logits of a prompt with two images", max_diff(ours, theirs) <= 1e-9 * scale,
                  f"{len(ids)} tokens, max|logit|={scale:.3f} max_abs_diff={max_diff(ours, theirs):.2e}")


def prompt(model, tower, pixels):
    """(expanded ids, soft tokens) of a short prompt with one placeholder per image between text ids."""
    image = ref.image_token_ids(model)[1]
    ids = [2, 5, 40, 41, 42]
    for _ in pixels:
        ids += [108, image, 108, 60, 61]
    soft = [ref.soft_tokens(tower, px) for px in pixels]
    return ref.expand_image_tokens(ids + [6, 5, 70], [len(s) for s in soft], ref.image_token_ids(model)), \
        np.concatenate(soft)


def check_invariants(chk, models, images, work):
    """Properties the rules imply, on the reference alone."""
    clipped = models["clipped"]
    tower = ref.VisionTower(clipped)
    pixels = images["landscape"]
    patches, positions = ref.patches_from_pixels(pixels, tower.cfg.patch, tower.cfg.pooling)
    pooled = ref.vision_tower(tower, patches, positions)
    order = np.random.default_rng(7).permutation(len(patches))
    err = max_diff(ref.vision_tower(tower, patches[order], positions[order]), pooled)
    chk.check("patch order does not matter, only positions", err <= 1e-12, f"max_abs_diff={err:.2e}")

    as_float = ref.soft_tokens(tower, pixels.astype(np.float64) / 255.0)
    err = max_diff(as_float, ref.soft_tokens(tower, pixels))
    chk.check("uint8 pixels equal pixels / 255 as floats", err <= 1e-12, f"max_abs_diff={err:.2e}")

    # The patch layout: a pixel at (row, col, channel) lands in patch (row/p, col/p), feature (dy·p + dx)·3 + c.
    p = tower.cfg.patch
    marked = np.zeros((24, 36, 3), dtype=np.uint8)
    marked[13, 29, 2] = 255
    got, pos = ref.patches_from_pixels(marked, p, tower.cfg.pooling)
    hit = np.argwhere(got)
    chk.check("patch layout (dy, dx, c) and positions (x, y)",
              hit.tolist() == [[(13 // p) * (36 // p) + 29 // p, ((13 % p) * p + 29 % p) * 3 + 2]] and
              pos[hit[0][0]].tolist() == [29 // p, 13 // p], f"pixel (13, 29, blue) -> patch/feature {hit.tolist()}")

    # The same model with every scalar bound stored as [1] (and in float32, which holds the bfloat16 values).
    bounds_1 = os.path.join(work, "clipped-bounds-1")
    os.makedirs(bounds_1)
    shutil.copy(os.path.join(clipped, "config.json"), bounds_1)
    write_safetensors(os.path.join(bounds_1, "model.safetensors"),
                      {n: t.reshape(1) if t.ndim == 0 else t for n, t in read_model_weights(clipped).items()})
    err = max_diff(ref.soft_tokens(bounds_1, pixels), ref.soft_tokens(tower, pixels))
    chk.check("clip bounds stored as [1] read as the scalars", err == 0.0, f"max_abs_diff={err:.2e}")

    unclipped = with_config(clipped, os.path.join(work, "clipped-off"),
                            lambda c: c["vision_config"].update(use_clipped_linears=False))
    moved = max_diff(ref.soft_tokens(unclipped, pixels), ref.soft_tokens(tower, pixels))
    chk.check("clipping changes the soft tokens", moved > 1e-2, f"max_abs_diff with the bounds ignored {moved:.2e}")

    # Soft tokens equal to the pad token's scaled embedding give the prompt with pad ids in the image slots.
    ids, soft = prompt(clipped, tower, [images["square-70"]])
    image = ref.image_token_ids(clipped)[1]
    embed = read_model_weights(clipped)["model.language_model.embed_tokens.weight"].astype(np.float64)
    pad_rows = np.repeat(embed[:1] * text.round_to_stored(math.sqrt(48), "BF16", np.float64), len(soft), axis=0)
    padded = [0 if t == image else t for t in ids]
    err = max_diff(ref.merged_logits(clipped, ids, pad_rows), text.forward(clipped, padded))
    chk.check("soft tokens replace the scaled rows and the PLE reads the pad id", err <= 1e-12,
              f"max_abs_diff={err:.2e}")
    merged, plain = ref.merged_logits(clipped, ids, soft), text.forward(clipped, ids)
    first = ids.index(image)
    before, after = max_diff(merged[:first], plain[:first]), float(np.max(np.abs(merged[first:] - plain[first:])))
    chk.check("soft tokens change only the rows from the first image slot on", before <= 1e-12 < 1e-3 < after,
              f"rows before: {before:.2e}; rows from it: {after:.2e}")
    expanded = ref.expand_image_tokens([5, 19, 6, 19], [2, 3], (17, 19, 18))
    chk.check("expand_image_tokens", expanded == [5, 17, 19, 19, 18, 6, 17, 19, 19, 19, 18], str(expanded))


def check_refusals(chk, models, work):
    """Bad inputs fail with one line naming the problem, and the CLI writes nothing."""
    tower = ref.VisionTower(models["clipped"])
    cases = [
        ("pixels not a multiple of 12", np.zeros((24, 30, 3), np.uint8), "multiples of 12"),
        ("pixels without 3 channels", np.zeros((24, 24), np.uint8), "not [H, W, 3]"),
        ("float pixels above 1", np.full((24, 24, 3), 2.0), "[0, 1]"),
        ("int32 pixels", np.zeros((24, 24, 3), np.int32), "dtype int32"),
        ("an image wider than the position table", np.zeros((12, 12 * 22, 3), np.uint8), "position table"),
    ]
    for name, pixels, phrase in cases:
        try:
            ref.soft_tokens(tower, pixels)
            chk.check(f"refuses {name}", False, "accepted")
        except ValueError as e:
            chk.check(f"refuses {name}", phrase in str(e), str(e))
    patches, positions = ref.patches_from_pixels(np.zeros((24, 24, 3), np.uint8), 4, 3)
    try:
        ref.vision_tower(tower, patches[1:], positions[1:])
        chk.check("refuses a grid with a missing patch", False, "accepted")
    except ValueError as e:
        chk.check("refuses a grid with a missing patch", "grid" in str(e), str(e))
    ids, soft = prompt(models["clipped"], tower, [np.zeros((24, 24, 3), np.uint8)])
    both_ways = with_config(models["clipped"], os.path.join(work, "bidirectional-vision"),
                            lambda c: c["text_config"].update(use_bidirectional_attention="vision"))
    for name, args, phrase in (("soft tokens with use_bidirectional_attention 'vision'", (both_ways, ids, soft),
                                "'vision'"),
                               ("fewer soft tokens than image slots", (models["clipped"], ids, soft[1:]),
                                "4 image placeholders")):
        try:
            ref.merged_logits(*args)
            chk.check(f"refuses {name}", False, "accepted")
        except ValueError as e:
            chk.check(f"refuses {name}", phrase in str(e), str(e))

    work_pixels = os.path.join(work, "pixels.npy")
    np.save(work_pixels, np.zeros((24, 24, 3), np.uint8))
    odd_pixels = os.path.join(work, "odd.npy")
    np.save(odd_pixels, np.zeros((20, 24, 3), np.uint8))
    text_only = os.path.join(work, "text-only")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain", "-o",
                    text_only], check=True)
    stub = os.path.join(work, "stub-vision")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain",
                    "--conditional", "-o", stub], check=True)
    ids_path = os.path.join(work, "ids.txt")
    open(ids_path, "w").write("2 5 19 19 6\n")
    script = os.path.join(HERE, "gemma4_vision_reference.py")
    runs = [
        ("a gemma4_text model", ["soft-tokens", "--model", text_only, "--pixels", work_pixels], "not gemma4"),
        ("a model whose tower is incomplete", ["soft-tokens", "--model", stub, "--pixels", work_pixels],
         "is missing"),
        ("pixels of the wrong size", ["soft-tokens", "--model", models["clipped"], "--pixels", odd_pixels],
         odd_pixels + ": pixels are 20x24"),
        ("a .npy that is not one", ["soft-tokens", "--model", models["clipped"], "--pixels", ids_path],
         ids_path + ": "),
        ("more placeholders than images", ["logits", "--model", models["clipped"], "--tokens", ids_path, "--pixels",
                                           work_pixels], ids_path + ": 2 image placeholders in the prompt, 1 images given"),
    ]
    for name, argv, phrase in runs:
        out = os.path.join(work, "bad.npy")
        run = subprocess.run([sys.executable, script] + argv + ["-o", out], capture_output=True, text=True)
        lines = run.stderr.strip().splitlines()
        ok = run.returncode == 1 and len(lines) == 1 and phrase in lines[0] and not os.path.exists(out)
        chk.check(f"CLI refuses {name}", ok, lines[0] if lines else "(no message)")


def check_cli(chk, models, images, work):
    """The two commands write what the module functions return."""
    script = os.path.join(HERE, "gemma4_vision_reference.py")
    model = models["standardize"]
    pixels = os.path.join(work, "square-70.npy")
    np.save(pixels, images["square-70"])
    out = os.path.join(work, "soft.npy")
    subprocess.run([sys.executable, script, "soft-tokens", "--model", model, "--pixels", pixels, "-o", out],
                   check=True)
    err = max_diff(np.load(out), ref.soft_tokens(model, images["square-70"]))
    chk.check("CLI soft-tokens", err == 0.0, f"{list(np.load(out).shape)}, max_abs_diff={err:.2e}")
    ids_path, expanded_path = os.path.join(work, "prompt.txt"), os.path.join(work, "expanded.txt")
    open(ids_path, "w").write("2 5 108 19 108 60 6\n")
    subprocess.run([sys.executable, script, "logits", "--model", model, "--tokens", ids_path, "--pixels", pixels,
                    "-o", out, "--write-ids", expanded_path], check=True)
    ids = read_token_ids(expanded_path)
    want = ref.merged_logits(model, ids, ref.soft_tokens(model, images["square-70"]))
    err = max_diff(np.load(out), want)
    chk.check("CLI logits", err == 0.0 and len(ids) == 7 + 1 + 64, f"{len(ids)} expanded ids, max_abs_diff={err:.2e}")


def main():
    """Builds the models, runs every check, prints a verdict."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=None, help="where the models go (emptied first; default: a new temp dir)")
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="gemma4visionref_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    models = {}
    for name, gen_args in MODELS:
        models[name] = os.path.join(work, name)
        subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "-o", models[name]] + gen_args,
                       check=True)
    images = {name: make_pixels(name, h, w, seed) for seed, (name, h, w, _) in enumerate(IMAGES)}
    chk = Checker()
    check_torch(chk, models, images)
    check_invariants(chk, models, images, work)
    check_refusals(chk, models, work)
    check_cli(chk, models, images, work)
    print("OK" if not chk.failed else f"FAILED: {', '.join(chk.failed)}")
    return 0 if not chk.failed else 1


if __name__ == "__main__":
    sys.exit(main())
