"""The bundle cache's size limit (docs/user-guide.md, "The cache"): after compiling a new entry, `saguaro` removes
the least recently used other entries while the cache exceeds $SAGUARO_CACHE_MAX_MB, says so in one line, and
never touches what it did not make; a limit that is not a whole number is a one-line error."""
import json
import os
import subprocess

import common
import llama2c_random

# About 14 MB of float32 weights per bundle: far more than the slack of a limit rounded to a whole MiB.
DIMS = llama2c_random.Dims(dim=256, hidden=688, layers=4, heads=4, kv_heads=4, vocab=512, seq=64)
MIB = 1 << 20


def tree_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files
               if not os.path.islink(os.path.join(d, f)))


def main():
    args = common.parse_args()
    model = os.path.join(args.work_dir, "model.bin")
    llama2c_random.write_checkpoint(model, llama2c_random.random_weights(DIMS, seed=3), DIMS)
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write("1 2 3 4 5\n")
    cache = os.path.join(args.work_dir, "cache")
    os.makedirs(os.path.join(cache, "not-a-bundle"))
    open(os.path.join(cache, "not-a-bundle", "keep.txt"), "w").write("x" * (4 * MIB))

    def logits(chunk, limit_mb=None):
        """`saguaro logits` of the model with --prefill-chunk `chunk` (one cache entry per chunk)."""
        env = dict(os.environ, SAGUARO_CACHE_DIR=cache)
        if limit_mb is not None:
            env["SAGUARO_CACHE_MAX_MB"] = str(limit_mb)
        out = os.path.join(args.work_dir, f"logits-{chunk}.npy")
        proc = subprocess.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", out, "--prefill-chunk",
                               str(chunk)], env=env, capture_output=True)
        return proc, out

    def entries():
        return sorted(e for e in os.listdir(cache) if e != "not-a-bundle")

    for chunk in (16, 8):  # A, then B; the default limit (20 GiB) removes nothing
        proc, _ = logits(chunk)
        if proc.returncode != 0:
            raise SystemExit(f"FAIL: logits --prefill-chunk {chunk}: {proc.stderr.decode()}")
    by_chunk = {json.load(open(os.path.join(cache, e, "manifest.json")))["prefill_chunk"]: e for e in entries()}
    a, b = by_chunk[16], by_chunk[8]
    logits(16)  # A used again: B is now the least recently used entry
    limit = -(-(tree_bytes(os.path.join(cache, a)) + tree_bytes(os.path.join(cache, b))) // MIB)  # A+B fit, +C not
    proc, out = logits(4, limit)
    err = proc.stderr.decode()
    left = entries()
    if proc.returncode != 0 or b in left or a not in left or len(left) != 2 or not os.path.exists(out):
        raise SystemExit(f"FAIL: limit {limit} MiB: expected B ({b}) removed, A ({a}) and the new entry kept; "
                         f"left {left}: {err}")
    lines = [l for l in err.splitlines() if "bundle cache" in l]
    if len(lines) != 1 or "removed 1 least recently used entry" not in lines[0] or "SAGUARO_CACHE_MAX_MB" not in lines[0]:
        raise SystemExit(f"FAIL: expected one line saying one bundle was removed: {err}")
    if not os.path.exists(os.path.join(cache, "not-a-bundle", "keep.txt")):
        raise SystemExit("FAIL: eviction removed a directory the cache did not make")
    print(f"limit {limit} MiB: {lines[0]}")

    # 0: no limit, nothing removed, however small the limit would be.
    proc, _ = logits(2, 0)
    if proc.returncode != 0 or len(entries()) != 3 or "bundle cache" in proc.stderr.decode():
        raise SystemExit(f"FAIL: SAGUARO_CACHE_MAX_MB=0 removed something: {entries()} {proc.stderr.decode()}")

    # Not a whole number: one line naming the variable, non-zero exit, no output.
    proc, out = logits(1, "lots")
    err = proc.stderr.decode().strip().splitlines()
    if proc.returncode == 0 or len(err) != 1 or "SAGUARO_CACHE_MAX_MB" not in err[0] or os.path.exists(out):
        raise SystemExit(f"FAIL: a bad SAGUARO_CACHE_MAX_MB was not refused in one line: {err}")
    print("bad limit:", err[0])


if __name__ == "__main__":
    main()
