"""Acceptance 1: stories260K compiled by Saguaro prints llama2.c's text byte for byte, and
its prefill logits match llama2.c's printed logits at positions 0-7 within 1e-4 (for the generic
target and, with --target x86-avx2, for a bundle built with AVX2 and FMA enabled)."""
import os
import sys

import numpy as np

import common


def reference_logits(trace_path):
    """The fed tokens and logits rows llama2.c's run.c printed (LOGITS pos=P token=T v0 v1 ...)."""
    tokens, rows = [], []
    for line in open(trace_path):
        if line.startswith("LOGITS "):
            fields = line.split()
            tokens.append(int(fields[2].split("=")[1]))
            rows.append([float(v) for v in fields[3:]])
    return tokens, np.array(rows, dtype=np.float64)


def main():
    args = common.parse_args({"--target": dict(default="generic")})
    if args.target == "x86-avx2" and "avx2" not in open("/proc/cpuinfo").read():
        print("SKIP: this host has no AVX2")
        raise SystemExit(common.SKIP)
    # llama2.c's run.c keeps its KV cache in float32: so does the bundle here (the default is binary16).
    target = ["--target", args.target, "--kv-cache", "f32"]
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    ref_dir = os.path.join(os.path.dirname(model), "ref")
    expected = open(os.path.join(ref_dir, "once-upon-a-time.stdout.txt"), "rb").read()

    out = common.run([args.saguaro, "run", model, "--tokenizer", tok, "-p", "Once upon a time",
                      "-n", "256", "-t", "0"] + target, args)
    if out.stdout != expected:
        sys.stdout.buffer.write(b"got:\n" + out.stdout + b"\nexpected:\n" + expected)
        raise SystemExit("FAIL: generated text differs from llama2.c's")
    print("text: byte-identical to llama2.c (%d bytes)" % len(expected))

    prompt_ids = open(os.path.join(ref_dir, "once-upon-a-time.ids.txt")).readline().split(":")[1].split()
    ids_out = common.run([args.saguaro, "tokenize", tok, "Once upon a time"], args).stdout.decode().split()
    if ids_out != prompt_ids:
        raise SystemExit(f"FAIL: saguaro tokenize gave {ids_out}, llama2.c encodes {prompt_ids}")
    text = common.run([args.saguaro, "tokenize", tok, "--decode", "--no-special", " ".join(prompt_ids)], args)
    if text.stdout.decode() != "Once upon a time\n":
        raise SystemExit(f"FAIL: saguaro tokenize --decode gave {text.stdout!r}")
    print("tokenize: prompt ids and decode agree with llama2.c")

    tokens, ref = reference_logits(os.path.join(ref_dir, "once-upon-a-time.trace.txt"))
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write(" ".join(map(str, tokens)) + "\n")
    npy = os.path.join(args.work_dir, "logits.npy")
    common.run([args.saguaro, "logits", model, "--tokenizer", tok, "--token-ids", ids, "-o", npy] + target, args)
    ours = np.load(npy)
    if ours.shape != ref.shape:
        raise SystemExit(f"FAIL: logits shape {ours.shape}, expected {ref.shape}")
    err = float(np.max(np.abs(ours - ref)))
    print(f"logits: positions 0-{len(tokens) - 1}, max abs error {err:.3g}")
    if err > 1e-4:
        raise SystemExit("FAIL: logits differ from llama2.c's by more than 1e-4")


if __name__ == "__main__":
    main()
