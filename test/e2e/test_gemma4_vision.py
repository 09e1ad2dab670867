"""Issue 29, acceptance 1, 3 and 5: Gemma 4's vision tower compiled by Saguaro against the independent float64
numpy reference (test/reference/gemma4_vision_reference.py) on tiny random checkpoints
(make_random_gemma4.py --conditional --vision clipped|standardize: patch size 4, pooling 3, a 64-row position
table, 280 soft tokens per image compiled in).

- Soft tokens from given pixels (`saguaro encode --pixels`): square, landscape, portrait and grayscale images
  (uint8, and one as float32 in [0, 1]) and a reduced budget (--max-soft-tokens 70), on the generic target, equal
  the reference within 1e-3 of the soft tokens' scale (their largest magnitude), both variants.
- x86-avx2 (and x86-avx512vnni where the CPU has it) against generic within the ISA tolerance of the other logits
  tests, 1e-4 of the scale; the tower in binary16 (--bits 16) within the same 1e-3 (the tiny models' weights are
  bfloat16 values that binary16 holds exactly, so this checks the binary16 kernels, not rounding); and the tower
  quantized to CQ4 (--bits 4) runs: its soft tokens are finite and correlated with the reference (a smoke check
  of the integer path; its error is the quantization's).
- From an image file (`saguaro encode --image`, a PNG of ../shared/data, skipped without it) with the model's own
  preprocessor_config.json (budget 70): the soft tokens of the released processor's rules (Pillow resize,
  test/reference/gemma4_image_reference.py) through the reference tower, within the same 1e-3; the budget
  compiled in is the processor's.
- `saguaro run --image` of the same PNG with a prompt holding `<|image|>` (the chat-template fixture's tokenizer; the
  bundle program decodes and encodes the image itself):
  greedy, it writes the reference's continuation (each token the argmax of the reference's logits of the expanded
  prompt and the tokens before it, up to 8, a stop token or an id the tokenizer does not have), which must decode
  to some text; and so does the 280-token bundle given `--max-soft-tokens 70`.
- Logits of a prompt holding an image (the placeholder expanded to begin-image, n soft tokens, end-image; the soft
  tokens from `saguaro encode` injected by `saguaro logits --soft-tokens`) equal the reference's within 1e-3,
  with a float32 KV cache.
- Bad input, one line and exit 1, no output file: a truncated PNG, an image longer than the context (`run`), an
  image to a model without a vision tower (`run`, `encode`), a budget above the compiled one,
  pixels off the patch grid, an image wider than the position table, a soft-token count that does not match the
  placeholders, a file that is not .npy.
"""
import os

import numpy as np

import common

ATOL_SCALE = 1e-3  # soft tokens against the float64 reference, of their scale
ISA_RTOL = 1e-4    # ISA against generic, of the scale
LOGITS_ATOL = 1e-3
RUN_TOKENS = 8     # greedy tokens `run --image` is compared on
STOP_IDS = {1, 6}  # the chat-template fixture's eos_token_id (generation_config.json)
TOKENIZER_VOCAB = 225  # the fixture tokenizer's ids; the tiny models' vocabulary is 256


def main():
    args = common.parse_args()
    w = args.work_dir
    reference = common.reference_script(args, "gemma4_vision_reference.py")
    models = {kind: common.random_gemma4(args, os.path.join(w, kind), "full", "--conditional", "--vision", kind,
                                         "--seed", str(seed))
              for kind, seed in (("clipped", 3), ("standardize", 4))}
    text_only = common.random_gemma4(args, os.path.join(w, "text-only"), "plain", "--conditional")

    rng = np.random.default_rng(7)
    images = {
        "square": rng.integers(0, 256, (192, 192, 3), dtype=np.uint8),
        "landscape": rng.integers(0, 256, (144, 240, 3), dtype=np.uint8),
        "portrait": rng.integers(0, 256, (240, 144, 3), dtype=np.uint8),
        "grayscale": np.repeat(rng.integers(0, 256, (120, 168, 1), dtype=np.uint8), 3, axis=2),
        "float32": rng.random((96, 132, 3), dtype=np.float32),
        "budget-70": rng.integers(0, 256, (84, 108, 3), dtype=np.uint8),
    }
    pixels = {}
    for name, image in images.items():
        pixels[name] = os.path.join(w, f"{name}.npy")
        np.save(pixels[name], image)

    def encode(model, image, *flags, check=True):
        out = os.path.join(w, f"{os.path.basename(model)}-{image}-{'-'.join(flags) or 'generic'}.npy")
        budget = ["--max-soft-tokens", "70"] if image == "budget-70" else []
        proc = common.run([args.saguaro, "encode", model, "--pixels", pixels[image], "-o", out, *budget, *flags],
                          args, check=check)
        return out, proc

    def reference_soft_tokens(model, image):
        out = os.path.join(w, f"ref-{os.path.basename(model)}-{image}.npy")
        common.run([common.python(), reference, "soft-tokens", "--model", model, "--pixels", pixels[image], "-o", out],
                   args)
        return np.load(out)

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    targets = [t for t, needs in (("x86-avx2", {"avx2", "fma", "f16c"}),
                                  ("x86-avx512vnni", {"avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw",
                                                      "avx512_vnni"}))
               if needs <= common.cpu_flags()]
    for kind, model in models.items():
        for image in images:
            ref = reference_soft_tokens(model, image)
            generic, _ = encode(model, image, "--target", "generic")
            ours = np.load(generic)
            scale = float(np.abs(ref).max())
            err = float(np.abs(ours - ref).max()) if ours.shape == ref.shape else float("inf")
            check(f"{kind}, {image}: {ref.shape[0]} soft tokens", err <= ATOL_SCALE * scale,
                  f"max |ours - reference| {err:.3g}, scale {scale:.3g}")
            for target in targets if image in ("landscape", "budget-70") else []:
                isa = np.load(encode(model, image, "--target", target)[0])
                diff = float(np.abs(isa - ours).max())
                check(f"{kind}, {image}: {target} against generic", diff <= ISA_RTOL * scale,
                      f"max difference {diff:.3g}, scale {scale:.3g}")
        ref = reference_soft_tokens(model, "landscape")
        f16 = np.load(encode(model, "landscape", "--target", "generic", "--bits", "16")[0])
        err, scale = float(np.abs(f16 - ref).max()), float(np.abs(ref).max())
        check(f"{kind}, landscape, binary16 tower", err <= ATOL_SCALE * scale,
              f"max |ours - reference| {err:.3g}, scale {scale:.3g}")
        cq4 = np.load(encode(model, "landscape", "--target", "generic", "--bits", "4")[0])
        corr = float(np.corrcoef(cq4.ravel(), ref.ravel())[0, 1])
        check(f"{kind}, landscape, CQ4 tower", np.isfinite(cq4).all() and corr > 0.9,
              f"correlation with the reference {corr:.4f}, max |error| {float(np.abs(cq4 - ref).max()):.3g}")

    # From an image file, through the model's own image processor config (whose budget is compiled in).
    png = os.path.join(args.shared_dir, "data", "images", "phototest.derived.png")
    if os.path.exists(png):
        import json, shutil
        with_processor = os.path.join(w, "clipped-processor")
        shutil.copytree(models["clipped"], with_processor, dirs_exist_ok=True)
        config = {"image_processor_type": "Gemma4ImageProcessor", "patch_size": 4, "pooling_kernel_size": 3,
                  "max_soft_tokens": 70, "do_resize": True, "resample": 3, "do_rescale": True,
                  "rescale_factor": 1 / 255, "do_normalize": False, "do_convert_rgb": True}
        json.dump(config, open(os.path.join(with_processor, "preprocessor_config.json"), "w"))
        out = os.path.join(w, "from-png.npy")
        common.run([args.saguaro, "encode", with_processor, "--image", png, "-o", out, "--target", "generic"], args)
        resized = os.path.join(w, "png-resized.npy")
        common.run([common.python(), common.reference_script(args, "gemma4_image_reference.py"), png,
                    os.path.join(with_processor, "preprocessor_config.json"), os.path.join(w, "png-patches.npy"),
                    os.path.join(w, "png-positions.npy"), "--resized", resized], args)
        pixels["png"] = resized
        ref = reference_soft_tokens(with_processor, "png")
        ours = np.load(out)
        scale = float(np.abs(ref).max())
        err = float(np.abs(ours - ref).max()) if ours.shape == ref.shape else float("inf")
        check(f"--image {os.path.basename(png)}, budget 70: {ref.shape[0]} soft tokens", err <= ATOL_SCALE * scale,
              f"max |ours - reference| {err:.3g}, scale {scale:.3g}")

        # `saguaro run --image`: the prompt's <|image|> takes the image; greedy, the program writes the reference's
        # continuation (its next tokens, each the argmax of the reference's logits, until a stop token).
        tokenizer = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4", "tokenizer.json")
        text = "Look: <|image|> What is it?"
        ids = common.run([args.saguaro, "tokenize", tokenizer, text], args).stdout.decode().split()
        continuation, positions, expected = common.greedy_reference(
            args, [common.python(), reference, "logits", "--model", with_processor, "--pixels", resized], ids,
            RUN_TOKENS, STOP_IDS, TOKENIZER_VOCAB, tokenizer)
        out = common.run([args.saguaro, "run", with_processor, "--tokenizer", tokenizer, "-p", text, "--image", png,
                          "-n", str(positions + len(continuation)), "-t", "0", "--target", "generic", "--kv-cache", "f32",
                          "--max-seq", "128"], args).stdout.decode()
        check(f"run --image: {len(continuation)} greedy tokens after a {positions}-token prompt",
              out.rstrip("\n").endswith(expected), f"expected ...{expected!r}, the program printed ...{out.rstrip()[-60:]!r}")
        # A per-request budget: the 280-token bundle with --max-soft-tokens 70 makes the same prompt, so the same text.
        out = common.run([args.saguaro, "run", models["clipped"], "--tokenizer", tokenizer, "-p", text, "--image", png,
                          "--max-soft-tokens", "70", "-n", str(positions + len(continuation)), "-t", "0", "--target",
                          "generic", "--kv-cache", "f32", "--max-seq", "128"], args).stdout.decode()
        check("run --image --max-soft-tokens 70 on the 280-token bundle", out.rstrip("\n").endswith(expected),
              f"expected ...{expected!r}, the program printed ...{out.rstrip()[-60:]!r}")
        proc = common.run([args.saguaro, "run", models["clipped"], "--tokenizer", tokenizer, "-p", text, "--image",
                           png, "--max-soft-tokens", "560", "--target", "generic", "--kv-cache", "f32", "--max-seq",
                           "128"], args, check=False)
        said = proc.stderr.decode().strip().splitlines()
        check("refused: run --max-soft-tokens above the compiled budget", proc.returncode == 1 and said and
              "--max-soft-tokens 560 is above the 280 soft tokens" in said[-1], said[-1] if said else "")
        # A truncated image file: the decoder's one line, naming it.
        truncated = os.path.join(w, "truncated.png")
        open(truncated, "wb").write(open(png, "rb").read()[:2000])
        proc = common.run([args.saguaro, "encode", with_processor, "--image", truncated, "-o",
                           os.path.join(w, "x-truncated.npy"), "--target", "generic"], args, check=False)
        said = proc.stderr.decode().strip().splitlines()
        check("refused: a truncated PNG", proc.returncode == 1 and said and "truncated.png" in said[-1] and
              not os.path.exists(os.path.join(w, "x-truncated.npy")), said[-1] if said else "")
        # An image for a model without a vision tower: its program refuses it.
        proc = common.run([args.saguaro, "run", text_only, "--tokenizer", tokenizer, "-p", text, "--image", png,
                           "-t", "0", "--target", "generic"], args, check=False)
        said = proc.stderr.decode().strip().splitlines()
        check("refused: an image to a model without a vision tower", proc.returncode == 1 and said and
              said[-1].endswith(f"the model has no vision tower to take {png}"), said[-1] if said else "")
        # More image than the context holds: one line, exit 1.
        proc = common.run([args.saguaro, "run", with_processor, "--tokenizer", tokenizer, "-p", text, "--image", png,
                           "-t", "0", "--target", "generic", "--max-seq", "64"], args, check=False)
        said = proc.stderr.decode().strip().splitlines()
        check("refused: an image longer than the context", proc.returncode == 1 and said and
              f"prompt has {positions} tokens, the model's max_seq is 64" in said[-1], said[-1] if said else "")
    else:
        print(f"skipped --image: {png} is absent (../shared)")

    # A prompt holding an image: the reference expands the placeholder and computes its own soft tokens.
    model = models["clipped"]
    prompt, expanded = os.path.join(w, "prompt.txt"), os.path.join(w, "prompt-expanded.txt")
    open(prompt, "w").write("2 5 19 7 8 9\n")  # 19: the tiny models' image placeholder
    ref_logits = os.path.join(w, "ref-logits.npy")
    common.run([common.python(), reference, "logits", "--model", model, "--tokens", prompt, "--pixels",
                pixels["budget-70"], "-o", ref_logits, "--write-ids", expanded], args)
    soft, _ = encode(model, "budget-70", "--target", "generic")
    ours = os.path.join(w, "logits.npy")
    common.run([args.saguaro, "logits", model, "--token-ids", expanded, "--soft-tokens", soft, "-o", ours,
                "--target", "generic", "--kv-cache", "f32", "--max-seq", "128"], args)
    err = float(np.abs(np.load(ours) - np.load(ref_logits)).max())
    check(f"logits of a prompt holding an image ({len(open(expanded).read().split())} tokens)", err <= LOGITS_ATOL,
          f"max |ours - reference| {err:.3g}")

    # Bad input: one line naming the problem, exit 1, nothing written.
    def refused(what, cmd, expect):
        common.refused(args, what, cmd, expect)

    off_grid, wide, not_npy = (os.path.join(w, f) for f in ("off-grid.npy", "wide.npy", "not.npy"))
    np.save(off_grid, images["square"][:100, :100])
    np.save(wide, np.zeros((36, 264, 3), dtype=np.uint8))  # 66 patch columns, a table of 64
    open(not_npy, "w").write("not an array\n")
    generic = ["--target", "generic"]
    refused("a model without a vision tower",
            [args.saguaro, "encode", text_only, "--pixels", pixels["square"], "-o", os.path.join(w, "x1.npy"),
             *generic], "text-only: the model has no vision tower")
    refused("a budget above the compiled one",
            [args.saguaro, "encode", model, "--pixels", pixels["square"], "--max-soft-tokens", "560", "-o",
             os.path.join(w, "x2.npy"), *generic], "above the 280 soft tokens")
    refused("pixels off the patch grid",
            [args.saguaro, "encode", model, "--pixels", off_grid, "-o", os.path.join(w, "x3.npy"), *generic],
            "off-grid.npy")
    refused("an image wider than the position table",
            [args.saguaro, "encode", model, "--pixels", wide, "-o", os.path.join(w, "x4.npy"), *generic],
            "wide.npy: patch 64 at (64, 0) lies outside the position table")
    refused("not a .npy file",
            [args.saguaro, "encode", model, "--pixels", not_npy, "-o", os.path.join(w, "x5.npy"), *generic],
            "not.npy")
    refused("soft tokens that do not match the placeholders",
            [args.saguaro, "logits", model, "--token-ids", prompt, "--soft-tokens", soft, "-o",
             os.path.join(w, "x6.npy"), *generic, "--kv-cache", "f32", "--max-seq", "128"],
            "1 image placeholders but 63 soft tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
