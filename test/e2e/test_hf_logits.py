"""Acceptance 2: a random-weight Hugging Face model of each architecture, compiled by Saguaro,
gives the logits of the independent numpy reference (test/reference/hf_reference.py) within
1e-4 relative to the logits' scale, over 56 positions (longer than the prefill chunk and, for
Gemma 3, than the sliding window), with a float32 and with a binary16 KV cache, and with the weight
matrices stored in binary16 (--bits 16) against a reference that rounds them the same way; the binary16 matrices
also in an x86-avx2 bundle, where kern-pack-weights stores them in three-row panels (issue 5, acceptance 3)."""
import json
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
        # A prefill chunk of 16 exercises chunked prefill over the 56 positions; the generic kernels, the
        # reference the ISA kernels are tested against.
        common.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", ours, "--prefill-chunk", "16",
                    "--kv-cache", kv, "--target", "generic"] + bits, args)
        common.run([common.python(), common.reference_script(args, "hf_reference.py"), model, "--token-ids", ids,
                    "-o", ref, "--kv-cache", kv, "--weights", weights], args)
        out = common.run([common.python(), os.path.join(args.source_dir, "test", "e2e", "compare_logits.py"), ours,
                          ref, "--rtol-scale", "1e-4"], args)
        print(f"kv-cache {kv}, weights {weights}:", out.stdout.decode().strip())
    # The same binary16 weights for x86-avx2: every matrix a product reads in dense-panel3 (K is a multiple of 8 in
    # these models), a tied embedding table too; an untied one, only gathered, stays row-major; the x86 kernels
    # read the panels to the same reference logits.
    bundle, ours = os.path.join(args.work_dir, "bundle-x86"), os.path.join(args.work_dir, "ours-x86-f16.npy")
    compiled = common.run([args.saguaro, "compile", model, "-o", bundle, "--bits", "16", "--kv-cache", "f32",
                           "--prefill-chunk", "16", "--target", "x86-avx2"], args)
    tensors = json.load(open(os.path.join(bundle, "manifest.json")))["tensors"]
    panels = [t for t in tensors if t["layout"] == "dense-panel3"]
    # The compile names the layouts it chose, counted, on stderr.
    logged = f"saguaro: weight layouts for x86-avx2: {len(panels)} dense-panel3, {len(tensors) - len(panels)} row-major"
    if logged not in compiled.stderr.decode():
        raise SystemExit(f"FAIL: the compile did not log {logged!r}: {compiled.stderr.decode()}")
    untied = any("lm_head" in t["name"] for t in tensors)
    wrong = [t["name"] for t in tensors if (t["layout"] == "dense-panel3") !=
             (len(t["shape"]) == 2 and not (untied and "embed_tokens" in t["name"]))]
    if not panels or wrong or any(t["shape"][1] % 8 for t in panels):
        raise SystemExit(f"FAIL: x86-avx2 --bits 16: expected every matrix in dense-panel3, not: {wrong}")
    common.run([args.saguaro, "logits", bundle, "--token-ids", ids, "-o", ours], args)
    out = common.run([common.python(), os.path.join(args.source_dir, "test", "e2e", "compare_logits.py"), ours,
                      os.path.join(args.work_dir, "ref-f32-f16.npy"), "--rtol-scale", "1e-4"], args)
    print(f"x86-avx2, binary16 weights in {len(panels)} panel tensors:", out.stdout.decode().strip())


if __name__ == "__main__":
    main()
