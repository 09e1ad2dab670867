"""Issue 28, acceptance 4: the KV cache of a long --max-seq. The tiny Gemma 4 with every feature on
(test/reference/make_random_gemma4.py --variant full: sliding window 8, four KV-shared layers, two head dims) compiled
with --max-seq 32768 keeps a cache only for the layers that compute K/V: a full layer 32768 positions, a sliding
layer a ring of its window. manifest.json's KV bytes equal that sum computed here from the config as the numpy
oracle reads it (test/reference/gemma4_reference.py), per layer (memory.kv_caches) and in total
(memory.kv_cache_bytes, which the model's ModelSpec carries too), with a float32 and a binary16 cache and at the
model family's 131072 positions; the 32768-position bundle's logits are still the reference's.
"""
import json
import os
import re

import numpy as np

import common
import compare_logits
import gemma4_reference

TOKENS = 24  # past the sliding window of 8
ATOL = 1e-3


def expected_caches(cfg, max_seq, element_bytes):
    """Per layer that computes K/V: (layer, window, positions, kv heads, head dim, bytes of its K and V)."""
    caches = []
    for i, kind in enumerate(cfg.layer_types):
        if cfg.shared_source[i] is not None:
            continue  # reads an earlier layer's cache
        window = cfg.window if kind == "sliding_attention" else 0
        positions = min(window, max_seq) if window else max_seq
        caches.append((i, window, positions, cfg.kv_heads[i], cfg.head_dim[i],
                       2 * positions * cfg.kv_heads[i] * cfg.head_dim[i] * element_bytes))
    return caches


def main():
    args = common.parse_args()
    w = args.work_dir
    model = os.path.join(w, "full")
    common.random_gemma4(args, model, "full", "--seed", "3")
    cfg = gemma4_reference.read_config(model)
    for max_seq, kv in ((32768, "f32"), (131072, "f16")):
        bundle = os.path.join(w, f"full-{max_seq}-{kv}")
        common.run([args.saguaro, "compile", model, "-o", bundle, "--target", "generic", "--max-seq", str(max_seq),
                    "--kv-cache", kv], args)
        memory = json.load(open(os.path.join(bundle, "manifest.json")))["memory"]
        want = expected_caches(cfg, max_seq, 4 if kv == "f32" else 2)
        got = [(c["layer"], c["window"], c["positions"], c["kv_heads"], c["head_dim"], c["bytes"])
               for c in memory["kv_caches"]]
        if got != want:
            raise SystemExit(f"FAIL: --max-seq {max_seq} --kv-cache {kv}: manifest kv_caches {got}, expected {want}")
        total = sum(c[-1] for c in want)
        if memory["kv_cache_bytes"] != total or memory["kv_cache"] != kv:
            raise SystemExit(f"FAIL: --max-seq {max_seq}: manifest KV {memory['kv_cache']} of "
                             f"{memory['kv_cache_bytes']} bytes, expected {kv} of {total}")
        spec = open(os.path.join(bundle, "model.cpp")).read()
        if not re.search(rf"\b{total}ull\b", spec):
            raise SystemExit(f"FAIL: --max-seq {max_seq}: model.cpp's ModelSpec does not carry kv_bytes {total}")
        full = sum(1 for c in want if c[1] == 0)
        print(f"--max-seq {max_seq}, {kv} cache: {len(want)} of {cfg.layers} layers own K/V ({full} full, "
              f"{len(want) - full} sliding rings of {cfg.window}): {total} bytes, as the manifest says")

    ids = os.path.join(w, "ids.txt")
    open(ids, "w").write(" ".join(str((i * 37 + 11) % 256) for i in range(TOKENS)) + "\n")
    ref, ours = os.path.join(w, "ref.npy"), os.path.join(w, "ours.npy")
    common.run([common.python(), common.reference_script(args, "gemma4_reference.py"), model, "--token-ids", ids,
                "-o", ref], args)
    common.run([args.saguaro, "logits", os.path.join(w, "full-32768-f32"), "--token-ids", ids, "-o", ours], args)
    ok, msg = compare_logits.compare(np.load(ours), np.load(ref), rtol_scale=0, atol=ATOL)
    print(f"--max-seq 32768 logits: {msg}")
    if not ok:
        raise SystemExit("FAIL: the --max-seq 32768 bundle's logits differ from the reference")


if __name__ == "__main__":
    main()
