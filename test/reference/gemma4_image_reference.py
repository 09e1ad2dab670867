"""Independent oracle for Gemma 4's image preprocessing (runtime-min/frontends/image, Gemma 4 mode).

Written from the rules of transformers' PIL backend, Gemma4ImageProcessorPil
(models/gemma4/image_processing_pil_gemma4.py, docs/image.md), not from the C++:
  - decode: Pillow's Image.open(path).convert("RGB") (transformers' convert_to_rgb);
  - size: get_aspect_ratio_preserving_size, in Python floats as transformers computes it;
  - resize: Pillow's own Image.resize(..., BICUBIC) of the uint8 image (the C++ reimplements it);
  - rescale: the float64 product cast to float32 (image_transforms.rescale); no normalize;
  - patches: the (C, H, W) reshape/transpose of convert_image_to_patches (the C++ copies HWC rows);
  - positions: the meshgrid (indexing "xy") stacked as [x, y]; no padding rows.

Usable as a module (`preprocess(image, config)`) or from the command line:
  gemma4_image_reference.py IMAGE CONFIG.json PATCHES.npy POSITIONS.npy [--max-soft-tokens N] [--resized OUT.npy]
"""
import argparse
import json
import math

import numpy as np
from PIL import Image

SUPPORTED_SOFT_TOKENS = (70, 140, 280, 560, 1120)
DEFAULTS = {"do_resize": True, "resample": 3, "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": False,
            "image_mean": [0.0, 0.0, 0.0], "image_std": [1.0, 1.0, 1.0], "patch_size": 16, "max_soft_tokens": 280,
            "pooling_kernel_size": 3}


def settings(raw):
    """Gemma4ImageProcessor's class defaults overridden by a preprocessor_config.json, or by the
    image_processor object of a processor_config.json."""
    raw = raw.get("image_processor", raw)
    cfg = dict(DEFAULTS)
    cfg.update({k: v for k, v in raw.items() if k in DEFAULTS and v is not None})
    return cfg


def resized_size(height, width, patch_size, max_soft_tokens, pooling_kernel_size):
    """get_aspect_ratio_preserving_size of the released processor, edge cases included."""
    if max_soft_tokens not in SUPPORTED_SOFT_TOKENS:
        raise ValueError(f"max_soft_tokens must be one of {SUPPORTED_SOFT_TOKENS}, got {max_soft_tokens}")
    max_patches = max_soft_tokens * pooling_kernel_size ** 2
    target_px = max_patches * patch_size ** 2
    factor = math.sqrt(target_px / (height * width))
    side = pooling_kernel_size * patch_size
    h = int(math.floor(factor * height / side)) * side
    w = int(math.floor(factor * width / side)) * side
    if h == 0 and w == 0:
        raise ValueError("resized to 0 x 0")
    longest = (max_patches // pooling_kernel_size ** 2) * side
    if h == 0:
        h, w = side, min(int(math.floor(width / height)) * side, longest)
    elif w == 0:
        h, w = min(int(math.floor(height / width)) * side, longest), side
    if h * w > target_px:
        raise ValueError(f"resizing {height}x{width} to {h}x{w} exceeds {max_patches} patches")
    return h, w


def resize(rgb, cfg):
    """The uint8 [H, W, 3] image at its Gemma 4 size, resized by Pillow (unchanged if already there)."""
    if not cfg["do_resize"]:
        return rgb
    h, w = resized_size(rgb.shape[0], rgb.shape[1], cfg["patch_size"], cfg["max_soft_tokens"],
                        cfg["pooling_kernel_size"])
    if (h, w) == rgb.shape[:2]:
        return rgb
    return np.asarray(Image.fromarray(rgb).resize((w, h), resample=cfg["resample"]))


def patches_and_positions(pixels_chw, patch):
    """convert_image_to_patches of a (C, H, W) float image, and the [x, y] position of each patch."""
    c, h, w = pixels_chw.shape
    rows, cols = h // patch, w // patch
    grid = pixels_chw.reshape(c, rows, patch, cols, patch).transpose(1, 3, 2, 4, 0)
    patches = grid.reshape(rows * cols, patch * patch * c)
    xs, ys = np.meshgrid(np.arange(cols), np.arange(rows), indexing="xy")
    positions = np.stack([xs, ys], axis=-1).reshape(rows * cols, 2).astype(np.int32)
    return patches, positions


def preprocess(image, raw_config, max_soft_tokens=None):
    """(resized uint8 [H', W', 3], patches float32 [n, 3·p²], positions int32 [n, 2]) of a PIL image."""
    cfg = settings(raw_config)
    if max_soft_tokens is not None:
        cfg["max_soft_tokens"] = max_soft_tokens
    resized = resize(np.asarray(image.convert("RGB")), cfg)
    chw = resized.transpose(2, 0, 1)
    x = (chw.astype(np.float64) * cfg["rescale_factor"]).astype(np.float32) if cfg["do_rescale"] \
        else chw.astype(np.float32)
    if cfg["do_normalize"]:
        mean = np.array(cfg["image_mean"], dtype=np.float32)[:, None, None]
        std = np.array(cfg["image_std"], dtype=np.float32)[:, None, None]
        x = (x - mean) / std
    patches, positions = patches_and_positions(x, cfg["patch_size"])
    return resized, patches, positions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("image")
    parser.add_argument("config")
    parser.add_argument("patches")
    parser.add_argument("positions")
    parser.add_argument("--max-soft-tokens", type=int)
    parser.add_argument("--resized")
    a = parser.parse_args()
    with open(a.config) as f:
        config = json.load(f)
    resized, patches, positions = preprocess(Image.open(a.image), config, a.max_soft_tokens)
    np.save(a.patches, patches)
    np.save(a.positions, positions)
    if a.resized:
        np.save(a.resized, resized)


if __name__ == "__main__":
    main()
