"""`saguaro features image` with Gemma 4's processor (issue 29, acceptance 2) against
test/reference/gemma4_image_reference.py, the released PIL-backend rules run by Pillow:
  - the resize alone (--resized-only) equals Pillow's Image.resize of the same decoded pixels,
    bit for bit, on every fixture;
  - starting from resized pixels (--pixels, uint8 or float32 in [0, 1]) gives the reference's patches
    and positions exactly;
  - patches and positions from the files equal the reference's exactly for PNG fixtures; for JPEG
    fixtures the reference decodes with libjpeg-turbo and Saguaro with stb_image, so they may differ
    by at most twice the largest decode difference (bicubic weights sum to 1 but have negative lobes);
  - bad input: an unsupported max_soft_tokens, a 20000x20000 image, a processor that is not Gemma 4
    given Gemma 4 options, options that contradict each other: one line naming the file (or the
    option), exit 1, nothing written."""
import json
import os

import numpy as np
from PIL import Image

import common
import gemma4_image_reference as reference

LSB = 1 / 255


def features(args, image, out, *flags):
    return common.run([args.saguaro, "features", "image", image, *flags, "-o", out], args)


def make_fixtures(args, images):
    """The images the test runs on, made from ../shared/data/images; PNGs are written losslessly."""
    w = args.work_dir
    dog = Image.open(os.path.join(images, "dog.jpg")).convert("RGB")  # 768 x 576
    person = Image.open(os.path.join(images, "person.jpg")).convert("RGB")  # 640 x 424
    made = {
        "square.png": dog.crop((96, 0, 672, 576)),
        "portrait.png": person.transpose(Image.Transpose.ROTATE_90),  # 424 x 640
        "small.png": dog.crop((300, 200, 340, 230)),  # 40 x 30: upscaled to 912 x 672
        "strip.png": dog.crop((0, 300, 700, 302)),  # 700 x 2: a side that rounds to 0
        "alpha.png": Image.merge("RGBA", (*person.crop((0, 0, 300, 200)).split(),
                                          Image.linear_gradient("L").resize((300, 200)))),
    }
    paths = {name: os.path.join(images, name) for name in ("dog.jpg", "person.jpg", "phototest.derived.png")}
    for name, im in made.items():
        paths[name] = os.path.join(w, name)
        im.save(paths[name])
    return paths


def run_case(args, path, config, flags, ref_tokens):
    """One fixture: Saguaro's resized pixels, patches and positions against the reference's."""
    w = args.work_dir
    out, pos, resized_out, decoded_out = (os.path.join(w, f) for f in ("p.npy", "pos.npy", "r.npy", "d.npy"))
    features(args, path, out, "--config", config, "--positions", pos, *flags)
    features(args, path, resized_out, "--config", config, "--resized-only", *flags)
    features(args, path, decoded_out, "--decode-only")
    raw = json.load(open(config))
    want_resized, want_patches, want_pos = reference.preprocess(Image.open(path), raw, ref_tokens)
    got, got_pos, got_resized = np.load(out), np.load(pos), np.load(resized_out)
    if got.dtype != np.float32 or got_pos.dtype != np.int32 or got_resized.dtype != np.uint8:
        raise SystemExit(f"FAIL: {path}: dtypes {got.dtype} {got_pos.dtype} {got_resized.dtype}")
    if got.shape != want_patches.shape or got_resized.shape != want_resized.shape:
        raise SystemExit(f"FAIL: {path}: shapes {got.shape} {got_resized.shape}, reference {want_patches.shape} "
                         f"{want_resized.shape}")
    if not np.array_equal(got_pos, want_pos):
        raise SystemExit(f"FAIL: {path}: positions differ from the reference's")
    # The resize alone: the reference's rules applied to the pixels Saguaro decoded.
    same_resized, same_patches, _ = reference.preprocess(Image.fromarray(np.load(decoded_out)), raw, ref_tokens)
    if not np.array_equal(got_resized, same_resized):
        raise SystemExit(f"FAIL: {path}: --resized-only differs from Pillow's resize of the same pixels")
    resize_only = float(np.abs(got - same_patches).max()) / LSB
    end_to_end = float(np.abs(got - want_patches).max()) / LSB
    decode = int(np.abs(np.load(decoded_out).astype(int) -
                        np.asarray(Image.open(path).convert("RGB")).astype(int)).max())
    return got_resized.shape, resize_only, end_to_end, decode


def check_against_reference(args, images):
    paths = make_fixtures(args, images)
    fixtures = os.path.join(args.source_dir, "test", "fixtures", "image")
    e2b = os.path.join(fixtures, "gemma-4-e2b-it.json")
    nested = os.path.join(fixtures, "gemma-4-e2b-it-processor.json")  # max_soft_tokens 140
    cases = [  # (what, image, config, CLI flags, the reference's max_soft_tokens override)
        ("landscape JPEG", "dog.jpg", e2b, [], None),
        ("square", "square.png", e2b, [], None),
        ("portrait", "portrait.png", e2b, [], None),
        ("grayscale", "phototest.derived.png", e2b, [], None),
        ("small, upscaled", "small.png", e2b, [], None),
        ("700x2 strip", "strip.png", e2b, [], None),
        ("RGBA, alpha dropped", "alpha.png", e2b, [], None),
        ("max_soft_tokens 70", "dog.jpg", e2b, ["--max-soft-tokens", "70"], 70),
        ("max_soft_tokens 1120", "portrait.png", e2b, ["--max-soft-tokens", "1120"], 1120),
        ("processor_config.json, 140", "person.jpg", nested, [], None),
        ("strip at 70", "strip.png", e2b, ["--max-soft-tokens", "70"], 70),
    ]
    for what, name, config, flags, tokens in cases:
        shape, resize_only, end_to_end, decode = run_case(args, paths[name], config, flags, tokens)
        jpeg = name.endswith(".jpg")
        print(f"{what} ({name}) -> {shape[0]}x{shape[1]}, {shape[0] // 48 * (shape[1] // 48)} soft tokens: "
              f"from the same decoded pixels max |diff| {resize_only:.2f} LSB; from the file {end_to_end:.2f} LSB "
              f"(decode differs by up to {decode} LSB)")
        if resize_only != 0:
            raise SystemExit(f"FAIL: {name}: the resize differs from Pillow's by {resize_only} LSB")
        if (not jpeg and end_to_end != 0) or (jpeg and end_to_end > 2 * decode):
            raise SystemExit(f"FAIL: {name}: patches differ from the reference by {end_to_end} LSB")


def check_resized_pixels(args, images):
    """--pixels: the reference's resized image, as uint8 and as float32 in [0, 1], back to the same patches."""
    e2b = os.path.join(args.source_dir, "test", "fixtures", "image", "gemma-4-e2b-it.json")
    w = args.work_dir
    for name, tokens in (("dog.jpg", None), ("phototest.derived.png", 70)):
        resized, want_patches, want_pos = reference.preprocess(Image.open(os.path.join(images, name)), {}, tokens)
        flags = ["--max-soft-tokens", str(tokens)] if tokens else []
        for dtype, pixels in (("uint8", resized), ("float32", (resized.astype(np.float64) / 255).astype(np.float32))):
            path, out, pos = (os.path.join(w, f) for f in ("pixels.npy", "p.npy", "pos.npy"))
            np.save(path, pixels)
            common.run([args.saguaro, "features", "image", "--pixels", path, "--config", e2b, *flags, "-o", out,
                        "--positions", pos], args)
            if not (np.array_equal(np.load(out), want_patches) and np.array_equal(np.load(pos), want_pos)):
                raise SystemExit(f"FAIL: --pixels {dtype} of {name} differs from the reference")
            print(f"--pixels {dtype} [{pixels.shape[0]}, {pixels.shape[1]}, 3] of {name}: patches and positions "
                  f"equal the reference's")


def expect_error(args, source, must_say, *flags, out_name="bad.npy"):
    """`source`: the image file, or the words that name the input (["--pixels", PATH])."""
    out = os.path.join(args.work_dir, out_name)
    pos = os.path.join(args.work_dir, "bad-pos.npy")
    source = [source] if isinstance(source, str) else source
    proc = common.run([args.saguaro, "features", "image", *source, "-o", out, "--positions", pos, *flags], args,
                      check=False)
    lines = proc.stderr.decode(errors="replace").splitlines()
    if proc.returncode != 1 or len(lines) != 1 or must_say not in lines[0]:
        raise SystemExit(f"FAIL: {source} {flags}: exit {proc.returncode}, stderr {lines}; expected one line "
                         f"saying {must_say!r}")
    if any(os.path.exists(p) for p in (out, out + ".tmp", pos, pos + ".tmp")):
        raise SystemExit(f"FAIL: {source}: output left behind after the error")
    print(f"ok: {lines[0]}")


def check_bad_inputs(args, images):
    w = args.work_dir
    dog = os.path.join(images, "dog.jpg")
    e2b = os.path.join(args.source_dir, "test", "fixtures", "image", "gemma-4-e2b-it.json")
    expect_error(args, dog, f"{dog}: max_soft_tokens 100 is not supported (70, 140, 280, 560, 1120)",
                 "--config", e2b, "--max-soft-tokens", "100")
    bad_config = os.path.join(w, "processor_config.json")
    json.dump({"image_processor": {"image_processor_type": "Gemma4ImageProcessor", "max_soft_tokens": 256}},
              open(bad_config, "w"))
    expect_error(args, dog, f"{bad_config}: image_processor.max_soft_tokens: 256 is not supported", "--config",
                 bad_config)
    siglip = os.path.join(args.source_dir, "test", "fixtures", "image", "siglip-base-patch16-224.json")
    expect_error(args, dog, f"{siglip}: max_soft_tokens, patch positions and resized pixels belong to "
                 "Gemma4ImageProcessor", "--config", siglip)
    # A header claiming 20000 x 20000 pixels: the decoder's pixel limit refuses it before any allocation.
    huge = os.path.join(w, "huge.jpg")
    sof = bytes.fromhex("ffc0 0011 08 4e20 4e20 03 011100 021100 031100".replace(" ", ""))
    open(huge, "wb").write(b"\xff\xd8" + sof + b"\xff\xd9")
    expect_error(args, huge, f"{huge}: image is 20000x20000 = 400000000 pixels, above the limit of 67108864",
                 "--config", e2b)
    # Options that contradict each other.
    expect_error(args, dog, "--max-soft-tokens: expected a positive integer, got '280x'", "--config", e2b,
                 "--max-soft-tokens", "280x")
    expect_error(args, dog, "--resized-only writes no positions", "--config", e2b, "--resized-only")
    expect_error(args, dog, "bad-pos.npy: the positions and the patches need two different files", "--config", e2b,
                 out_name="bad-pos.npy")
    # Resized pixels that the resize cannot have produced, or that are not in [0, 1].
    for what, pixels, must_say in (
            ("off-grid", np.zeros((48, 100, 3), np.uint8), "image 100x48 is not a resized Gemma 4 image"),
            ("over budget", np.zeros((48 * 17, 48 * 17, 3), np.uint8),
             "image 816x816 makes 289 soft tokens, above max_soft_tokens 280"),
            ("255-scaled floats", np.full((48, 48, 3), 255, np.float32), "pixel value 255.000000 at row 0, column 0"),
            ("float64", np.zeros((48, 48, 3)), ".npy dtype '<f8' is not supported")):
        path = os.path.join(w, f"{what.replace(' ', '-')}.npy")
        np.save(path, pixels)
        expect_error(args, ["--pixels", path], f"{path}: {must_say}", "--config", e2b)


def main():
    args = common.parse_args()
    images = os.path.dirname(common.require_shared(args, "data", "images", "dog.jpg"))
    check_against_reference(args, images)
    check_resized_pixels(args, images)
    check_bad_inputs(args, images)


if __name__ == "__main__":
    main()
