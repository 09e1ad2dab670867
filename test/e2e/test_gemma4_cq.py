"""Issue 28, memory: Gemma 4's quantization recipe (examples/policies/gemma-4.json: linears and the tied embedding at
CQ4, the per-layer-embedding table at CQ2 through cq.gather) on the tiny `full` model (every feature; per-layer
embeddings of 8 layers × 8) equals the independent oracles: test/reference/cq_reference.py dequantizes the stored
codes and norms of every quantized tensor (with its own codebook and rotation, docs/quantization.md), and
gemma4_reference.py runs the dequantized model; agreement within 1e-3 of the logits' scale, with float activations
(--cq-activations f32) so that the format, not the int8 approximation, is what is checked. The manifest names the
recipe's bits per tensor, and the table's codes and norms are the only mapped tensors (the tied embedding, which
the logits also read, stays resident)."""
import json
import os
import shutil

import numpy as np

import common
import compare_logits
import cq_reference
import safetensors_io

TOKENS = 24


def main():
    args = common.parse_args()
    w = args.work_dir
    model = os.path.join(w, "model")
    common.random_gemma4(args, model, "full", "--seed", "5")
    ids = os.path.join(w, "ids.txt")
    open(ids, "w").write(" ".join(str((i * 37 + 11) % 256) for i in range(TOKENS)) + "\n")
    policy = os.path.join(args.source_dir, "examples", "policies", "gemma-4.json")
    bundle = os.path.join(w, "bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle, "--policy", policy, "--cq-activations", "f32",
                "--kv-cache", "f32", "--target", "generic"], args)

    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    bits = {q["name"]: q["bits"] for q in manifest["quantized"]}
    table, embedding = "model.embed_tokens_per_layer.weight", "model.embed_tokens.weight"
    weights = safetensors_io.read_model_weights(model)
    matrices = {n for n, t in weights.items() if t.ndim == 2}
    if bits.get(table) != 2 or bits.get(embedding) != 4 or set(bits) != matrices or \
            any(b != 4 for n, b in bits.items() if n != table):
        raise SystemExit(f"FAIL: expected every matrix at 4 bits and {table} at 2, got {bits}")
    mapped = sorted(t["name"] for t in manifest["tensors"] if t["residency"] == "mapped")
    if mapped != [f"{table}.codes", f"{table}.norms"]:
        raise SystemExit(f"FAIL: expected the table's codes and norms mapped, got {mapped}")

    # The model the bundle holds, dequantized by the reference, in a copy of the model directory.
    deq_model = os.path.join(w, "dequantized")
    shutil.copytree(model, deq_model)
    for name, b in bits.items():
        parts = {}
        for part in ("codes", "norms"):
            parts[part] = os.path.join(w, f"{name}.{part}")
            common.run([args.saguaro, "inspect", bundle, "--tensor", f"{name}.{part}", "-o", parts[part]], args)
        n, k = weights[name].shape
        codes = np.fromfile(parts["codes"], dtype=np.uint8).reshape(n, -1)
        norms = np.fromfile(parts["norms"], dtype=np.float16)
        cb = cq_reference.codebook(cq_reference.group_size(k), b).astype(np.float32).astype(np.float64)
        weights[name] = cq_reference.dequantize(codes, norms, cb, k).astype(np.float32)
    safetensors_io.write_safetensors(os.path.join(deq_model, "model.safetensors"), weights)

    ref, ours = os.path.join(w, "ref.npy"), os.path.join(w, "ours.npy")
    common.run([common.python(), common.reference_script(args, "gemma4_reference.py"), deq_model, "--token-ids", ids,
                "-o", ref, "--kv-cache", "f32"], args)
    common.run([args.saguaro, "logits", bundle, "--token-ids", ids, "-o", ours], args)
    ok, msg = compare_logits.compare(np.load(ours), np.load(ref), rtol_scale=1e-3)
    print(f"CQ recipe, float activations: {msg}")
    if not ok:
        raise SystemExit("FAIL: the CQ recipe's logits differ from the dequantized reference")


if __name__ == "__main__":
    main()
