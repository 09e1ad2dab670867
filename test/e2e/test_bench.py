"""`saguaro synth` and `saguaro bench` on a small config: the synthesized model compiles (float and CQ4), the bench
JSON has every key with positive finite numbers (no speed thresholds: the machine is shared), and bad configs fail
with one clean line naming the file and leave no directory behind."""
import json
import math
import os

import common

SMALL = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 64,
    "intermediate_size": 160,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "max_position_embeddings": 256,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": True,
    "vocab_size": 256,
    "torch_dtype": "bfloat16",
}
TOP_KEYS = {"bandwidth_gbs", "mac_peak_gops", "results"}
ROW_NUMBERS = {"prefill_tps", "decode_tps", "decode_efficiency", "decode_weight_efficiency", "prefill_efficiency",
               "weight_bytes_per_token", "kv_bytes_per_token", "macs_per_token", "bandwidth_gbs", "mac_peak_gops",
               "resident_bytes", "peak_rss_bytes"}
PROMPT_TOKENS, DECODE_TOKENS = 128, 64


def kv_bytes_per_token(config, element_bytes=2):
    """What the bench's 64 decode steps after a 128-token prompt read of the KV cache, on average: at position p
    every layer reads K and V (kv heads x head_dim elements each) of p + 1 positions (no sliding window here)."""
    row = 2 * config["num_key_value_heads"] * config["head_dim"] * element_bytes
    seen = range(PROMPT_TOKENS + 1, PROMPT_TOKENS + DECODE_TOKENS + 1)
    return config["num_hidden_layers"] * row * sum(seen) / DECODE_TOKENS


def write_config(args, name, config):
    path = os.path.join(args.work_dir, name)
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def expect_one_line_error(proc, must_contain, what):
    err = proc.stderr.decode().strip().splitlines()
    if proc.returncode != 1 or len(err) != 1 or must_contain not in err[0]:
        raise SystemExit(f"FAIL: {what}: exit {proc.returncode}, stderr {err}")
    print(f"{what}: {err[0]}")


def check_bench_json(report):
    if not TOP_KEYS <= report.keys():
        raise SystemExit(f"FAIL: bench JSON lacks {TOP_KEYS - report.keys()}")
    for key in ("bandwidth_gbs", "mac_peak_gops"):
        if not (math.isfinite(report[key]) and report[key] > 0):
            raise SystemExit(f"FAIL: {key} = {report[key]}")
    rows = report["results"]
    if sorted((r.get("bits"), r.get("threads")) for r in rows) != [(4, 1), (4, 2), (16, 1), (16, 2)]:
        raise SystemExit(f"FAIL: expected one result each for bits 4 and 16 at 1 and 2 threads, got {rows}")
    for r in rows:
        missing = (ROW_NUMBERS | {"model", "bits", "threads"}) - r.keys()
        if missing:
            raise SystemExit(f"FAIL: result {r} lacks {missing}")
        if r["model"] != "small" or r.get("kv_cache") != "f16":
            raise SystemExit(f"FAIL: result {r} has the wrong model or KV cache (the default is f16)")
        for key in ROW_NUMBERS:
            if not (isinstance(r[key], (int, float)) and math.isfinite(r[key]) and r[key] > 0):
                raise SystemExit(f"FAIL: bits {r['bits']}: {key} = {r[key]}")
        # Every decode run is paired with the read rate measured before it; the efficiency is the median of those
        # ratios, so it lies between the ratios that the overall decode rate makes with the slowest and the
        # fastest read rate (the per-run decode times vary too: allow a factor 2 either way).
        if not isinstance(r.get("bandwidth_huge_pages"), bool):
            raise SystemExit(f"FAIL: bits {r['bits']}: bandwidth_huge_pages {r.get('bandwidth_huge_pages')}")
        if r.get("weights_load") != "read":  # the bench loads the weights as every engine does
            raise SystemExit(f"FAIL: bits {r['bits']}: weights_load {r.get('weights_load')}, expected read")
        runs = r.get("bandwidth_runs_gbs")
        if not isinstance(runs, list) or len(runs) != r["decode_runs"] or not all(x > 0 for x in runs):
            raise SystemExit(f"FAIL: bits {r['bits']}: bandwidth_runs_gbs {runs} for {r['decode_runs']} decode runs")
        if sorted(runs)[(len(runs) - 1) // 2] > r["bandwidth_gbs"] or sorted(runs)[len(runs) // 2] < r["bandwidth_gbs"]:
            raise SystemExit(f"FAIL: bits {r['bits']}: bandwidth_gbs {r['bandwidth_gbs']} is not the median of {runs}")
        # Tied embeddings: nothing is only gathered, so everything is resident (and was touched by the runs).
        if r.get("mapped_bytes") != 0 or r.get("gathered_bytes_per_token") != 0 or \
                r.get("mapped_resident_bytes") != 0 or not r["resident_bytes"] <= r["peak_rss_bytes"]:
            raise SystemExit(f"FAIL: bits {r['bits']}: memory {r}")
        if abs(r["kv_bytes_per_token"] - kv_bytes_per_token(SMALL)) > 1e-6:
            raise SystemExit(f"FAIL: kv_bytes_per_token {r['kv_bytes_per_token']}, expected {kv_bytes_per_token(SMALL)}")
        weights, read = r["weight_bytes_per_token"], r["weight_bytes_per_token"] + r["kv_bytes_per_token"]
        rate = r["decode_tps"] * read / 1e9
        if not rate / max(runs) / 2 <= r["decode_efficiency"] <= 2 * rate / min(runs):
            raise SystemExit(f"FAIL: bits {r['bits']}: decode_efficiency {r['decode_efficiency']} does not fit "
                             f"{rate:.3f} GB/s of weights and KV cache against read rates {runs}")
        # Both efficiencies are medians of per-run ratios with the same denominators: they differ by read / weights.
        if not math.isclose(r["decode_efficiency"] / r["decode_weight_efficiency"], read / weights, rel_tol=1e-9):
            raise SystemExit(f"FAIL: bits {r['bits']}: decode_efficiency {r['decode_efficiency']} and "
                             f"decode_weight_efficiency {r['decode_weight_efficiency']} are not in the ratio {read / weights}")
    cq4, fp16 = sorted((r for r in rows if r["threads"] == 1), key=lambda r: r["bits"])
    # Same matrices, so the same multiply-accumulates; CQ4 stores fewer bytes than binary16, which reads two bytes
    # per multiply-accumulate plus the float32 norm vectors (under 2 % here; float32 matrices would be 100 % more).
    macs = fp16["macs_per_token"]
    if cq4["macs_per_token"] != macs or cq4["weight_bytes_per_token"] >= fp16["weight_bytes_per_token"] or \
            not 2 * macs < fp16["weight_bytes_per_token"] < 2.04 * macs:
        raise SystemExit(f"FAIL: inconsistent per-token counts: {cq4} vs {fp16}")


def main():
    args = common.parse_args()
    saguaro = args.saguaro
    model = os.path.join(args.work_dir, "small")
    common.run([saguaro, "synth", write_config(args, "small.json", SMALL), "-o", model, "--seed", "7"], args)
    if sorted(os.listdir(model)) != ["config.json", "model.safetensors"] or os.path.exists(model + ".tmp"):
        raise SystemExit(f"FAIL: synth wrote {os.listdir(model)}")
    again = os.path.join(args.work_dir, "again")
    common.run([saguaro, "synth", os.path.join(model, "config.json"), "-o", again, "--seed", "7"], args)
    if open(os.path.join(model, "model.safetensors"), "rb").read() != \
            open(os.path.join(again, "model.safetensors"), "rb").read():
        raise SystemExit("FAIL: synth with the same seed wrote different weights")
    common.run([saguaro, "compile", model, "-o", os.path.join(args.work_dir, "b4"), "--bits", "4"], args)
    print("synth: deterministic, and the model compiles at CQ4")

    proc = common.run([saguaro, "bench", model, "--bits", "4,16", "--threads", "1,2", "--json"], args)
    check_bench_json(json.loads(proc.stdout))
    print("bench --json: every key present, every number positive and finite")

    missing = os.path.join(args.work_dir, "absent.json")
    out = os.path.join(args.work_dir, "bad")
    expect_one_line_error(common.run([saguaro, "synth", missing, "-o", out], args, check=False), missing,
                          "missing config")
    partial = {k: v for k, v in SMALL.items() if k != "hidden_size"}
    path = write_config(args, "partial.json", partial)
    expect_one_line_error(common.run([saguaro, "synth", path, "-o", out], args, check=False), "hidden_size",
                          "config without hidden_size")
    if os.path.exists(out) or os.path.exists(out + ".tmp"):
        raise SystemExit("FAIL: a failed synth left a directory behind")
    expect_one_line_error(common.run([saguaro, "bench", model, "--threads", "0"], args, check=False), "thread",
                          "bench --threads 0")
    policy = write_config(args, "policy.json", {"linear": 4})
    expect_one_line_error(common.run([saguaro, "bench", model, "--bits", "4", "--policy", policy], args,
                                     check=False), "--bits or --policy", "bench --bits with --policy")
    expect_one_line_error(common.run([saguaro, "bench", model, "--prompt-tokens", "0"], args, check=False),
                          "--prompt-tokens", "bench --prompt-tokens 0")
    expect_one_line_error(common.run([saguaro, "bench", model, "--kv-cache", "f8"], args, check=False),
                          "--kv-cache must be f16 or f32", "bench --kv-cache f8")


if __name__ == "__main__":
    main()
