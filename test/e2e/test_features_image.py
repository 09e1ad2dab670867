"""`saguaro features image` (issue 8, acceptance 3 and 4):
  - decode: the shared PNG bit-exact with Pillow's reference hash, the shared JPEGs within 1 of
    Pillow's per-channel means, crafted PNGs of every colour type equal to Pillow's convert("RGB");
  - resize + normalize: the CLI's features equal the numpy oracle test/reference/image_reference.py
    within 1e-4 for bilinear and bicubic, up- and downscaling and several sizes, and every fixture
    config; Pillow's Image.resize serves as a second oracle for the uint8 resize;
  - bad inputs: one line naming the file and the problem, exit 1, no output, small peak memory."""
import hashlib
import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
from PIL import Image

import common

TOLERANCE = 1e-4


def features(args, image, out, *flags, check=True):
    return common.run([args.saguaro, "features", "image", image, *flags, "-o", out], args, check=check)


def decode(args, image):
    out = os.path.join(args.work_dir, "decoded.npy")
    features(args, image, out, "--decode-only")
    return np.load(out)


def check_decoding(args, images):
    ref = json.load(open(os.path.join(images, "decode_reference_pillow.json")))
    by_name = {key.split("/")[-1]: value for key, value in ref.items() if isinstance(value, dict)}
    png = decode(args, os.path.join(images, "phototest.derived.png"))
    want = by_name["phototest.derived.png"]
    if png.dtype != np.uint8 or png.shape != (want["height"], want["width"], 3):
        raise SystemExit(f"FAIL: phototest.derived.png decoded to {png.dtype} {png.shape}")
    got = hashlib.sha256(png.tobytes()).hexdigest()
    if got != want["rgb_sha256"]:
        raise SystemExit(f"FAIL: phototest.derived.png sha256 {got} != Pillow's {want['rgb_sha256']}")
    print(f"phototest.derived.png: sha256 of the RGB bytes equals Pillow's ({got[:16]}...)")
    for name in ("dog.jpg", "person.jpg"):
        pixels = decode(args, os.path.join(images, name))
        means = pixels.reshape(-1, 3).mean(axis=0)
        diff = means - np.array(by_name[name]["rgb_mean"])
        pil = np.asarray(Image.open(os.path.join(images, name)).convert("RGB")).astype(int)
        delta = np.abs(pixels.astype(int) - pil)
        print(f"{name}: channel mean differences from Pillow {np.round(diff, 4).tolist()}; per pixel: max "
              f"{delta.max()}, mean {delta.mean():.3f}, {100 * (delta > 0).mean():.1f}% of values differ")
        if np.abs(diff).max() >= 1.0:
            raise SystemExit(f"FAIL: {name} channel means differ from Pillow's by {diff}")


def png_bytes(width, height, color_type, depth, rows, extra=b""):
    """A PNG written by hand (Pillow cannot write 16-bit RGB)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(rows)) +
            chunk(b"IEND", b""))


def check_colour_types(args):
    """Every PNG colour type decodes to what Pillow's convert("RGB") gives."""
    rng = np.random.default_rng(8)
    rgb = rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    w = args.work_dir
    made = {
        "L": Image.fromarray(rgb[..., 0]),
        "LA": Image.fromarray(np.dstack([rgb[..., 0], rgb[..., 1]]), "LA"),
        "RGBA": Image.fromarray(np.dstack([rgb, rgb[..., :1]]), "RGBA"),
        "P": Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=16),
        "1": Image.fromarray(rgb[..., 0] > 128),
        "I16": Image.fromarray((rgb[..., 0].astype(np.uint16) * 97)),
    }
    paths = {}
    for mode, im in made.items():
        paths[mode] = os.path.join(w, f"mode-{mode}.png")
        im.save(paths[mode], **({"transparency": 3} if mode == "P" else {}))
    rows16 = b"".join(b"\0" + (rgb[y].astype(">u2") * 257 + 3).tobytes() for y in range(rgb.shape[0]))
    paths["RGB16"] = os.path.join(w, "mode-RGB16.png")
    open(paths["RGB16"], "wb").write(png_bytes(7, 9, 2, 16, rows16))
    for mode, path in paths.items():
        want = np.asarray(Image.open(path).convert("RGB"))
        got = decode(args, path)
        if not np.array_equal(got, want):
            raise SystemExit(f"FAIL: PNG mode {mode} decodes differently from Pillow's convert('RGB')")
    print(f"PNG colour types {sorted(paths)}: identical to Pillow's convert('RGB')")


def reference():
    import image_reference
    return image_reference


def pillow_features(pixels, width, height, resample, cfg):
    """The second oracle: Pillow's own resize, then transformers' rescale and normalize."""
    resized = np.asarray(Image.fromarray(pixels).resize((width, height), resample))
    x = resized.astype(np.float32)
    if cfg.get("do_rescale", True):
        x = (resized.astype(np.float64) * cfg.get("rescale_factor", 1 / 255)).astype(np.float32)
    if cfg.get("do_normalize", True):
        x = (x - np.float32(0.5)) / np.float32(0.5)
    return x.transpose(2, 0, 1)[None]


def check_resize(args, images, oracle):
    w = args.work_dir
    sizes = [(224, 224), (896, 896), (100, 37), (37, 300), (1000, 700), (768, 577)]
    worst_oracle = worst_pillow = worst_uint8 = 0.0
    runs = 0
    for name in ("dog.jpg", "person.jpg", "phototest.derived.png"):
        path = os.path.join(images, name)
        pixels = decode(args, path)
        for resample in (2, 3):
            for width, height in sizes:
                for normalize in (True, False):
                    cfg = {"image_processor_type": "SiglipImageProcessor", "size": {"height": height, "width": width},
                           "resample": resample, "do_rescale": normalize, "do_normalize": normalize}
                    cfg_path = os.path.join(w, "config.json")
                    json.dump(cfg, open(cfg_path, "w"))
                    out = os.path.join(w, "features.npy")
                    features(args, path, out, "--config", cfg_path)
                    got = np.load(out)
                    want = oracle.preprocess(pixels, cfg)
                    pil = pillow_features(pixels, width, height, resample, cfg)
                    if got.shape != want.shape or got.dtype != np.float32:
                        raise SystemExit(f"FAIL: {name} {cfg}: shape {got.shape} {got.dtype}, oracle {want.shape}")
                    err = float(np.abs(got - want).max())
                    perr = float(np.abs(got - pil).max())
                    if normalize:
                        worst_oracle, worst_pillow = max(worst_oracle, err), max(worst_pillow, perr)
                    else:
                        worst_uint8 = max(worst_uint8, perr)
                    runs += 1
                    if err > TOLERANCE:
                        raise SystemExit(f"FAIL: {name} {cfg}: max error {err} against the numpy oracle")
    print(f"resize + normalize, {runs} runs (3 images x bilinear/bicubic x {len(sizes)} sizes x normalized/raw): "
          f"max |error| vs numpy oracle {worst_oracle:.3g}; vs Pillow resize + HF normalize {worst_pillow:.3g}; "
          f"uint8 resize vs Pillow Image.resize max difference {worst_uint8:.0f} LSB")
    if worst_uint8 > 0 or worst_pillow > TOLERANCE:
        raise SystemExit("FAIL: the uint8 resize differs from Pillow's")


def check_fixtures(args, images, oracle):
    fixtures = os.path.join(args.source_dir, "test", "fixtures", "image")
    report = []
    for config in sorted(f for f in os.listdir(fixtures) if f.endswith(".json")):
        cfg_path = os.path.join(fixtures, config)
        raw = json.load(open(cfg_path))
        if raw.get("image_processor", raw).get("image_processor_type", "").startswith("Gemma4"):
            continue  # e2e_gemma4_image checks these against test/reference/gemma4_image_reference.py
        for name in ("dog.jpg", "phototest.derived.png"):
            path = os.path.join(images, name)
            out = os.path.join(args.work_dir, "fixture.npy")
            features(args, path, out, "--config", cfg_path)
            got = np.load(out)
            want = oracle.preprocess(decode(args, path), json.load(open(cfg_path)))
            if got.shape != want.shape:
                raise SystemExit(f"FAIL: {config} on {name}: shape {got.shape}, oracle {want.shape}")
            err = float(np.abs(got - want).max())
            if err > TOLERANCE:
                raise SystemExit(f"FAIL: {config} on {name}: max error {err} against the numpy oracle")
            report.append(f"{config}/{name} {list(got.shape)} {err:.2g}")
    print("fixture configs vs numpy oracle (shape, max |error|): " + "; ".join(report))


def peak_rss_kib(cmd):
    """Runs cmd in a child and returns (CompletedProcess, the child's peak resident set in KiB)."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
             "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
             "sys.stderr.write(p.stderr.decode()); sys.exit(p.returncode)")
    proc = subprocess.run([common.python(), "-c", probe] + cmd, capture_output=True)
    return proc, int(proc.stdout or 0)


def expect_error(args, image, must_say, *flags):
    out = os.path.join(args.work_dir, "bad.npy")
    proc, rss = peak_rss_kib([args.saguaro, "features", "image", image, *flags, "-o", out])
    lines = proc.stderr.decode(errors="replace").splitlines()
    named = flags[-1] if flags else image
    if proc.returncode != 1 or len(lines) != 1 or named not in lines[0] or must_say not in lines[0]:
        raise SystemExit(f"FAIL: {image} {flags}: exit {proc.returncode}, stderr {lines}; expected one line "
                         f"naming {named!r} and saying {must_say!r}")
    if os.path.exists(out) or os.path.exists(out + ".tmp"):
        raise SystemExit(f"FAIL: {image}: output left behind after the error")
    if rss > 256 * 1024:
        raise SystemExit(f"FAIL: {image}: peak memory {rss} KiB")
    print(f"ok ({rss // 1024} MiB peak): {lines[0]}")


def check_bad_inputs(args, images):
    w = args.work_dir
    huge = os.path.join(w, "huge.png")
    open(huge, "wb").write(png_bytes(100000, 100000, 2, 8, b"\0" * 301))
    expect_error(args, huge, "100000x100000")
    png = open(os.path.join(images, "phototest.derived.png"), "rb").read()
    cut_png = os.path.join(w, "cut.png")
    open(cut_png, "wb").write(png[:len(png) // 2])
    expect_error(args, cut_png, "PNG is truncated")
    jpeg = open(os.path.join(images, "dog.jpg"), "rb").read()
    cut_jpeg = os.path.join(w, "cut.jpg")
    open(cut_jpeg, "wb").write(jpeg[:len(jpeg) * 2 // 3])
    expect_error(args, cut_jpeg, "JPEG is truncated")
    empty = os.path.join(w, "empty.png")
    open(empty, "wb").close()
    expect_error(args, empty, "empty file")
    text = os.path.join(w, "notes.jpg")
    open(text, "w").write("not an image\n")
    expect_error(args, text, "not a PNG or JPEG file")
    bad_config = os.path.join(w, "preprocessor_config.json")
    json.dump({"image_processor_type": "SiglipImageProcessor", "resample": 0}, open(bad_config, "w"))
    expect_error(args, os.path.join(images, "dog.jpg"), "resample: 0 is not supported", "--config", bad_config)


def main():
    args = common.parse_args()
    images = os.path.dirname(common.require_shared(args, "data", "images", "decode_reference_pillow.json"))
    oracle = reference()
    check_decoding(args, images)
    check_colour_types(args)
    check_resize(args, images, oracle)
    check_fixtures(args, images, oracle)
    check_bad_inputs(args, images)


if __name__ == "__main__":
    main()
