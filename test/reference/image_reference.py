"""Independent numpy oracle for the image front-end (runtime-min/frontends/image).

Written from Pillow's and transformers' definitions, not from the C++:
  - resize: Pillow 9.4's Image.resize as dense [out, in] integer matrices, one per axis, applied
    with a matrix product (the C++ walks per-output tap windows instead);
  - rescale / normalize: transformers' rescale() (float64 product cast to float32) and
    normalize() (float32 arithmetic);
  - patches: transformers' Qwen2-VL reshape/transpose formula (the C++ copies rows in loops);
  - smart_resize and pan_and_scan: transcribed from transformers' Python.

Usable as a module (`preprocess(pixels, config_dict)`) or from the command line:
  image_reference.py PIXELS.npy CONFIG.json OUT.npy
"""
import json
import math
import sys

import numpy as np

PRECISION_BITS = 22  # Pillow: 32 - 8 (uint8) - 2 (headroom)
OPENAI_CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
OPENAI_CLIP_STD = [0.26862954, 0.26130258, 0.27577711]


def kernel(kind, x):
    """Pillow's bilinear (triangle) or bicubic (Keys, a = -0.5) filter, elementwise."""
    x = np.abs(x)
    if kind == 2:
        return np.where(x < 1.0, 1.0 - x, 0.0)
    a = -0.5
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def resample_matrix(in_size, out_size, kind):
    """Integer [out_size, in_size] matrix W such that output = clip((W @ input + 2^21) >> 22)."""
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = (1.0 if kind == 2 else 2.0) * filterscale
    centers = (np.arange(out_size) + 0.5) * scale
    first = np.maximum(np.trunc(centers - support + 0.5), 0)
    last = np.minimum(np.trunc(centers + support + 0.5), in_size)
    j = np.arange(in_size, dtype=np.float64)[None, :]
    inside = (j >= first[:, None]) & (j < last[:, None])
    w = np.where(inside, kernel(kind, (j - centers[:, None] + 0.5) * (1.0 / filterscale)), 0.0)
    # Pillow sums the window left to right; cumsum is sequential too, and the zeros outside the
    # window add nothing, so the total is the same double.
    total = np.cumsum(w, axis=1)[:, -1:]
    w = np.where(total != 0.0, w / np.where(total != 0.0, total, 1.0), w)
    fixed = np.trunc(np.where(w < 0, -0.5 + w * (1 << PRECISION_BITS), 0.5 + w * (1 << PRECISION_BITS)))
    return fixed.astype(np.int64)


def apply_axis(pixels, matrix, axis):
    """Filters uint8 pixels [H, W, 3] along axis 0 (rows) or 1 (columns)."""
    # Every product and sum is an integer below 2^53, so float64 (fast BLAS) is exact here, and
    # dividing by 2^22 then flooring equals Pillow's arithmetic shift.
    moved = np.moveaxis(pixels.astype(np.float64), axis, 0)  # [n_in, other, 3]
    acc = np.tensordot(matrix.astype(np.float64), moved, axes=([1], [0])) + (1 << (PRECISION_BITS - 1))
    out = np.clip(np.floor(acc / (1 << PRECISION_BITS)), 0, 255).astype(np.uint8)
    return np.moveaxis(out, 0, axis)


def resize(pixels, width, height, kind):
    """Pillow's Image.resize((width, height), kind) of an RGB image: columns first, then rows."""
    h, w, _ = pixels.shape
    out = pixels
    if width != w:
        out = apply_axis(out, resample_matrix(w, width, kind), 1)
    if height != h:
        out = apply_axis(out, resample_matrix(h, height, kind), 0)
    return out


def rescale_normalize(pixels, cfg):
    """[H, W, 3] uint8 -> [3, H, W] float32 as transformers' rescale() then normalize()."""
    x = pixels.astype(np.float32)
    if cfg["do_rescale"]:
        x = (pixels.astype(np.float64) * cfg["rescale_factor"]).astype(np.float32)
    if cfg["do_normalize"]:
        mean = np.array(cfg["image_mean"], dtype=np.float32)
        std = np.array(cfg["image_std"], dtype=np.float32)
        x = (x - mean) / std
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def smart_resize(height, width, factor, min_pixels, max_pixels):
    """transformers' Qwen2-VL smart_resize."""
    if height < factor or width < factor:
        raise ValueError(f"height:{height} or width:{width} must be larger than factor:{factor}")
    if max(height, width) / min(height, width) > 200:
        raise ValueError("absolute aspect ratio must be smaller than 200")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = math.floor(height / beta / factor) * factor
        w_bar = math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def pan_and_scan(pixels, min_crop_size, max_num_crops, min_ratio):
    """transformers' Gemma3ImageProcessor.pan_and_scan on an [H, W, 3] array. transformers writes the
    landscape and portrait branches out; they are one rule along the long axis."""
    height, width = pixels.shape[:2]
    landscape = width >= height
    long, short = (width, height) if landscape else (height, width)
    if long / short < min_ratio:
        return []
    num = int(math.floor(long / short + 0.5))
    num = min(int(math.floor(long / min_crop_size)), num)
    num = min(max_num_crops, max(2, num))
    num_w, num_h = (num, 1) if landscape else (1, num)
    crop_w = int(math.ceil(width / num_w))
    crop_h = int(math.ceil(height / num_h))
    if min(crop_w, crop_h) < min_crop_size:
        return []
    return [pixels[y:y + crop_h, x:x + crop_w] for y in range(0, crop_h * num_h, crop_h)
            for x in range(0, crop_w * num_w, crop_w)]


def qwen_patches(chw, patch, merge, temporal):
    """transformers' Qwen2-VL flattening of one [3, H, W] image (SigLIP order when merge = temporal = 1)."""
    frames = np.tile(chw[None], (temporal, 1, 1, 1))
    c, h, w = chw.shape
    gh, gw = h // patch, w // patch
    p = frames.reshape(1, temporal, c, gh // merge, merge, patch, gw // merge, merge, patch)
    p = p.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    return p.reshape(gh * gw, c * temporal * patch * patch)


def with_defaults(raw):
    """The settings each supported processor class uses when the file leaves them out."""
    kind = raw.get("image_processor_type") or raw.get("feature_extractor_type") or "SiglipImageProcessor"
    kind = kind.removesuffix("Fast").replace("FeatureExtractor", "ImageProcessor")
    cfg = {"kind": kind, "do_resize": True, "size": {"height": 224, "width": 224}, "resample": 3,
           "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
           "image_mean": [0.5] * 3, "image_std": [0.5] * 3, "patch_size": None, "merge_size": 1,
           "temporal_patch_size": 1, "do_center_crop": False, "crop_size": None, "do_pan_and_scan": False,
           "pan_and_scan_min_crop_size": 256, "pan_and_scan_max_num_crops": 4,
           "pan_and_scan_min_ratio_to_activate": 1.2}
    if kind == "Gemma3ImageProcessor":
        cfg["resample"] = 2
    if kind == "CLIPImageProcessor":
        cfg.update(size={"shortest_edge": 224}, do_center_crop=True, crop_size={"height": 224, "width": 224},
                   image_mean=OPENAI_CLIP_MEAN, image_std=OPENAI_CLIP_STD)
    if kind == "Qwen2VLImageProcessor":
        cfg.update(min_pixels=56 * 56, max_pixels=28 * 28 * 1280, patch_size=14, merge_size=2,
                   temporal_patch_size=2, image_mean=OPENAI_CLIP_MEAN, image_std=OPENAI_CLIP_STD)
        size = raw.get("size") or {}
        if "shortest_edge" in size:
            cfg["min_pixels"] = size["shortest_edge"]
            cfg["max_pixels"] = size.get("longest_edge", cfg["max_pixels"])
    for key, value in raw.items():
        if value is not None and not (kind == "Qwen2VLImageProcessor" and key == "size"):
            cfg[key] = value
    if kind == "CLIPImageProcessor" and isinstance(cfg["size"], int):
        cfg["size"] = {"shortest_edge": cfg["size"]}  # get_size_dict(default_to_square=False)
    if isinstance(cfg["crop_size"], int):
        cfg["crop_size"] = {"height": cfg["crop_size"], "width": cfg["crop_size"]}
    for key in ("image_mean", "image_std"):
        if not isinstance(cfg[key], list):
            cfg[key] = [cfg[key]] * 3
    return cfg


def resize_one(pixels, cfg):
    if not cfg["do_resize"]:
        return pixels
    h, w = pixels.shape[:2]
    if cfg["kind"] == "Qwen2VLImageProcessor":
        factor = cfg["patch_size"] * cfg["merge_size"]
        rh, rw = smart_resize(h, w, factor, cfg["min_pixels"], cfg["max_pixels"])
        return resize(pixels, rw, rh, cfg["resample"])
    size = cfg["size"]
    if isinstance(size, int):
        size = {"height": size, "width": size}
    if "shortest_edge" in size:
        edge = size["shortest_edge"]
        short, long = (w, h) if w <= h else (h, w)
        new_long = int(edge * long / short)
        rh, rw = (new_long, edge) if w <= h else (edge, new_long)
        out = resize(pixels, rw, rh, cfg["resample"])
        if cfg["do_center_crop"]:
            ch, cw = cfg["crop_size"]["height"], cfg["crop_size"]["width"]
            top, left = (rh - ch) // 2, (rw - cw) // 2
            out = out[top:top + ch, left:left + cw]
        return out
    return resize(pixels, size["width"], size["height"], cfg["resample"])


def preprocess(pixels, raw_config):
    """What `saguaro features image --config` writes for decoded pixels [H, W, 3] uint8."""
    cfg = with_defaults(raw_config)
    images = [pixels]
    if cfg["do_pan_and_scan"]:
        images += pan_and_scan(pixels, cfg["pan_and_scan_min_crop_size"], cfg["pan_and_scan_max_num_crops"],
                               cfg["pan_and_scan_min_ratio_to_activate"])
    planes = [rescale_normalize(resize_one(im, cfg), cfg) for im in images]
    if not cfg["patch_size"]:
        return np.stack(planes)
    return np.concatenate([qwen_patches(p, cfg["patch_size"], cfg["merge_size"], cfg["temporal_patch_size"])
                           for p in planes])


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: image_reference.py PIXELS.npy CONFIG.json OUT.npy")
    pixels = np.load(sys.argv[1])
    with open(sys.argv[2]) as f:
        config = json.load(f)
    np.save(sys.argv[3], preprocess(pixels, config))


if __name__ == "__main__":
    main()
