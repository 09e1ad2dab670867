"""Acceptance 2: a random-weight Hugging Face model of each architecture, compiled by Saguaro,
gives the logits of the independent numpy reference (test/reference/hf_reference.py) within
1e-4 relative to the logits' scale, over 56 positions (longer than the prefill chunk and, for
Gemma 3, than the sliding window), with a float32 and with a binary16 KV cache, and with the weight
matrices stored in binary16 (--bits 16) against a reference that rounds them the same way."""
import os

import common

TOKENS = 56


def main():
    args = common.parse_args({"--arch": dict(required=True), "--extra": dict(default="")})
    model = os.path.join(args.work_dir, "model")
    common.run([common.python(), common.reference_script(args, "make_random_hf.py"), "--arch", args.arch,
                "-o", model, "--seed", "7"] + args.extra.split(), args)
    ids = os.path.join(args.work_dir, "ids.txt")
    # Deterministic ids spread over the vocabulary.
    open(ids, "w").write(" ".join(str((i * 37 + 11) % 256) for i in range(TOKENS)) + "\n")
    # Both KV caches: float32, and binary16 (the default), against a reference that rounds K and V the same way;
    # then binary16 weights (--bits 16) against a reference that rounds the weight matrices.
    for kv, weights in (("f32", "f32"), ("f16", "f32"), ("f32", "f16")):
        ours, ref = (os.path.join(args.work_dir, f"{name}-{kv}-{weights}.npy") for name in ("ours", "ref"))
        bits = ["--bits", "16"] if weights == "f16" else []
        # A prefill chunk of 16 exercises chunked prefill over the 56 positions.
        common.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", ours, "--prefill-chunk", "16",
                    "--kv-cache", kv] + bits, args)
        common.run([common.python(), common.reference_script(args, "hf_reference.py"), model, "--token-ids", ids,
                    "-o", ref, "--kv-cache", kv, "--weights", weights], args)
        out = common.run([common.python(), os.path.join(args.source_dir, "test", "e2e", "compare_logits.py"), ours,
                          ref, "--rtol-scale", "1e-4"], args)
        print(f"kv-cache {kv}, weights {weights}:", out.stdout.decode().strip())


if __name__ == "__main__":
    main()
