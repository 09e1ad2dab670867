"""Processes using the bundle cache at once (docs/user-guide.md, "The cache"): three `saguaro logits` of the same
model started together with one SAGUARO_CACHE_DIR all succeed with identical logits; exactly one of them compiles
the entry and builds its program while the others wait for it, and the cache is left with that one complete entry
(no temporary directory). Label `concurrency`: `ctest -L concurrency --repeat until-fail:100` repeats it."""
import os
import re
import subprocess

import numpy as np

import common
import llama2c_random

DIMS = llama2c_random.Dims(dim=32, hidden=64, layers=2, heads=4, kv_heads=4, vocab=64, seq=16)
PROCESSES = 3


def main():
    args = common.parse_args()
    model = os.path.join(args.work_dir, "model.bin")
    llama2c_random.write_checkpoint(model, llama2c_random.random_weights(DIMS, seed=5), DIMS)
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write("1 2 3 4 5\n")
    cache = os.path.join(args.work_dir, "cache")
    env = dict(os.environ, SAGUARO_CACHE_DIR=cache)
    outs = [os.path.join(args.work_dir, f"logits-{i}.npy") for i in range(PROCESSES)]
    procs = [subprocess.Popen([args.saguaro, "logits", model, "--token-ids", ids, "-o", out], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for out in outs]
    errs = [p.communicate()[1].decode(errors="replace") for p in procs]
    for p, err in zip(procs, errs):
        if p.returncode != 0:
            raise SystemExit(f"FAIL: a concurrent `saguaro logits` exited with {p.returncode}: {err}")
    first = np.load(outs[0])
    for out in outs[1:]:
        if not np.array_equal(np.load(out), first):
            raise SystemExit(f"FAIL: {out} differs from {outs[0]}")
    for what in ("compiling", "building"):
        said = sum(f"saguaro: {what} " in err for err in errs)
        if said != 1:
            raise SystemExit(f"FAIL: {said} of {PROCESSES} processes said 'saguaro: {what}' (expected 1): {errs}")
    entries = os.listdir(cache)
    if len(entries) != 1 or not re.fullmatch(r"[0-9a-f]{16}", entries[0]):
        raise SystemExit(f"FAIL: expected one complete cache entry, found {sorted(os.listdir(cache))}")
    print(f"ok: {PROCESSES} processes, one compile and one build of {entries[0]}, identical logits")


if __name__ == "__main__":
    main()
