"""Issue 4, acceptance 1: logits of a compiled CQ model (1, 2, 3 and 4 bits, embeddings included) equal
those of the independent oracles: test/reference/cq_reference.py dequantizes the stored codes and norms
(computing its own codebook and rotation from docs/quantization.md), and llama2c_reference.py runs the
dequantized model; agreement within 1e-3 of the logits' scale. This checks the format, so the bundles use float
activations (--cq-activations f32); the int8 kernels are checked against the same oracle in i8 mode below, where
rounding each activation group to 8 bits and the codebook to [-64, 64] is the approximation (docs/quantization.md,
"Integer kernels")."""
import json
import os
import shutil

import numpy as np

import common
import llama2c_random

DIMS = llama2c_random.Dims(dim=96, hidden=200, layers=2, heads=4, kv_heads=2, vocab=80, seq=64)
# Int8 activations round each 8-bit step to ±1/254 of a group's range: a few 1e-3 of the logits' scale after
# two layers (measured 1.7e-3 to 4.3e-3 of the scale for CQ1-CQ4 here), far below the CQ error itself.
I8_RTOL = "2e-2"


def write_checkpoint(path, w):
    llama2c_random.write_checkpoint(path, w, DIMS)


def main():
    args = common.parse_args()
    w = llama2c_random.random_weights(DIMS, seed=11)
    model = os.path.join(args.work_dir, "model.bin")
    write_checkpoint(model, w)
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write(" ".join(str((5 * i + 3) % DIMS.vocab) for i in range(40)) + "\n")
    cq_ref, compare = common.reference_script(args, "cq_reference.py"), os.path.join(os.path.dirname(__file__),
                                                                                      "compare_logits.py")
    for bits in (4, 3, 2, 1):
        work = os.path.join(args.work_dir, f"b{bits}")
        bundle = os.path.join(work, "bundle")
        common.run([args.saguaro, "compile", model, "-o", bundle, "--bits", str(bits), "--prefill-chunk", "16",
                    "--cq-activations", "f32", "--kv-cache", "f32"], args)  # the exact format, float32 end to end
        quantized = json.load(open(os.path.join(bundle, "manifest.json")))["quantized"]
        if len(quantized) != 1 + 7 * DIMS.layers:
            raise SystemExit(f"FAIL: expected every matrix and the embedding quantized, got {len(quantized)}")
        deq = dict(w)
        for q in quantized:
            name = q["name"]
            files = {}
            for part in ("codes", "norms"):
                files[part] = os.path.join(work, f"{name}.{part}")
                common.run([args.saguaro, "inspect", bundle, "--tensor", f"{name}.{part}", "-o", files[part]], args)
            out = os.path.join(work, f"{name}.npy")
            common.run([common.python(), cq_ref, "dequantize", "--codes", files["codes"], "--norms", files["norms"],
                        "--bits", str(bits), "--k", str(w[name].shape[1]), "-o", out], args)
            deq[name] = np.load(out).astype(np.float32).reshape(w[name].shape)
        dequantized = os.path.join(work, "dequantized.bin")
        write_checkpoint(dequantized, deq)
        ours, ref = os.path.join(work, "ours.npy"), os.path.join(work, "ref.npy")
        common.run([args.saguaro, "logits", bundle, "--token-ids", ids, "-o", ours], args)
        common.run([common.python(), common.reference_script(args, "llama2c_reference.py"), dequantized,
                    "--token-ids", ids, "-o", ref], args)
        out = common.run([common.python(), compare, ours, ref, "--rtol-scale", "1e-3"], args)
        bpw = sorted({round(q["bits_per_weight"], 3) for q in quantized})
        print(f"CQ{bits}: {out.stdout.decode().strip()}; bits per weight {bpw}")
        # The integer kernels on the packed layout of an x86-avx2 bundle against the same oracle.
        i8_bundle, i8_ours = os.path.join(work, "bundle_i8"), os.path.join(work, "ours_i8.npy")
        common.run([args.saguaro, "compile", model, "-o", i8_bundle, "--bits", str(bits), "--prefill-chunk", "16",
                    "--cq-activations", "i8", "--target", "x86-avx2", "--kv-cache", "f32"], args)
        # kern-pack-weights: planar 8-row panels for every CQ tensor on x86-avx2, the format's order on generic.
        for b, want in ((i8_bundle, "cq-planar-panel8"), (bundle, "row-major")):
            layouts = {t["name"]: t["layout"] for t in json.load(open(os.path.join(b, "manifest.json")))["tensors"]}
            wrong = {n: l for n, l in layouts.items() if n.endswith((".codes", ".norms")) and l != want}
            if wrong:
                raise SystemExit(f"FAIL: {b}: expected layout {want}, got {wrong}")
        common.run([args.saguaro, "logits", i8_bundle, "--token-ids", ids, "-o", i8_ours], args)
        # The generic bundle's blob in the avx2 bundle: same names, dtypes and sizes, other layout -> refused.
        swapped = os.path.join(work, "swapped")
        shutil.copytree(i8_bundle, swapped, ignore=shutil.ignore_patterns("build", "weights.sgw"))
        shutil.copy(os.path.join(bundle, "weights.sgw"), os.path.join(swapped, "weights.sgw"))
        bad = common.run([args.saguaro, "logits", swapped, "--token-ids", ids, "-o", os.path.join(work, "bad.npy")],
                         args, check=False)
        err = [l for l in bad.stderr.decode().strip().splitlines() if not l.startswith("saguaro: building ")]
        if bad.returncode == 0 or len(err) != 1 or "cq-planar-panel8" not in err[0] or \
                os.path.exists(os.path.join(work, "bad.npy")):
            raise SystemExit(f"FAIL: a blob with another layout was not refused in one line: {err}")
        print(f"CQ{bits}: a generic blob in an x86-avx2 bundle is refused: {err[0]}")
        out = common.run([common.python(), compare, i8_ours, ref, "--rtol-scale", I8_RTOL], args)
        print(f"CQ{bits} int8 activations: {out.stdout.decode().strip()}")


if __name__ == "__main__":
    main()
