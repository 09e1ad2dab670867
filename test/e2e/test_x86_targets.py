"""Issue 5: the x86-avx512vnni target computes what x86-avx2 computes, bit for bit, and only it contains AVX-512.

The two x86 targets share every kernel except the int8 CQ products: x86-avx2 takes vpmaddubsw + vpmaddwd + vpaddd,
x86-avx512vnni one vpdpbusd on ymm registers, which sums the same products exactly. A random llama2.c model whose
policy puts 1-, 2-, 3- and 4-bit codes in one bundle (group sizes that the vector decoders take) is compiled for
both; prefill in chunks of 5 over 42 tokens runs the prefill blocks (5 rows) and the decode tiles (the last 2 rows),
and the logits of every position must be equal bit for bit. objdump: the x86-avx2 program has no AVX-512
instruction (no vpdpbusd, zmm, mask or ymm16-31 register) in its model code, the x86-avx512vnni one has vpdpbusd. On a CPU
without AVX-512 VNNI the x86-avx512vnni program is compiled and scanned but not run."""
import json
import os
import re

import numpy as np

import common
import llama2c_random

DIMS = llama2c_random.Dims(dim=128, hidden=256, layers=2, heads=4, kv_heads=2, vocab=96, seq=64)
# One tensor per bit width besides the 4-bit default (all K are 128 or 256: full planar chunks at every width).
POLICY = {"linear": 4, "embedding": 4, "layers.0.wq": 1, "layers.0.w1": 2, "layers.1.w2": 3, "layers.1.wk": 2}
AVX512_OPERAND = re.compile(r"%zmm|%k[0-7]|%[xy]mm(1[6-9]|2[0-9]|3[01])\b")


def avx512_lines(args, exe):
    """objdump lines of `exe` with an AVX-512 instruction: vpdpbusd, or an EVEX-only operand."""
    text = common.run(["objdump", "-d", "--no-show-raw-insn", exe], args).stdout.decode()
    return [l.strip() for l in text.splitlines() if "vpdpbusd" in l or AVX512_OPERAND.search(l)]


def main():
    args = common.parse_args()
    flags = common.cpu_flags()
    if not {"avx2", "fma", "f16c"} <= flags:
        print("SKIP: this host has no AVX2/FMA/F16C")
        raise SystemExit(common.SKIP)
    runs_vnni = {"avx512f", "avx512vl", "avx512bw", "avx512_vnni"} <= flags
    model = os.path.join(args.work_dir, "model.bin")
    llama2c_random.write_checkpoint(model, llama2c_random.random_weights(DIMS, seed=5), DIMS)
    policy = os.path.join(args.work_dir, "policy.json")
    json.dump(POLICY, open(policy, "w"))
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write(" ".join(str((7 * i + 2) % DIMS.vocab) for i in range(42)) + "\n")

    logits = {}
    for target in ("x86-avx2", "x86-avx512vnni"):
        bundle = os.path.join(args.work_dir, target)
        common.run([args.saguaro, "compile", model, "-o", bundle, "--policy", policy, "--prefill-chunk", "5",
                    "--cq-activations", "i8", "--kv-cache", "f32", "--target", target], args)
        bits = sorted({q["bits"] for q in json.load(open(os.path.join(bundle, "manifest.json")))["quantized"]})
        if bits != [1, 2, 3, 4]:
            raise SystemExit(f"FAIL: {target}: the policy should give 1-4 bit tensors, the manifest has {bits}")
        if target == "x86-avx512vnni" and not runs_vnni:  # build the program as `saguaro logits` would
            build = os.path.join(bundle, "build")
            common.run(["cmake", "-S", bundle, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
            common.run(["cmake", "--build", build], args)
        else:
            out = os.path.join(args.work_dir, f"{target}.npy")
            common.run([args.saguaro, "logits", bundle, "--token-ids", ids, "-o", out], args)
            logits[target] = np.load(out)
        # Only model.cpp is compiled with the target's flags (runtime-min is baseline x86-64, its bench picks a
        # multiply-accumulate loop at run time): every kernel is instantiated there.
        found = avx512_lines(args, os.path.join(bundle, "build", "CMakeFiles", "saguaro_model_code.dir", "model.cpp.o"))
        if target == "x86-avx2" and found:
            raise SystemExit(f"FAIL: the x86-avx2 model code contains AVX-512 instructions, e.g. {found[:3]}")
        if target == "x86-avx512vnni" and not any("vpdpbusd" in l for l in found):
            raise SystemExit("FAIL: the x86-avx512vnni model code has no vpdpbusd: its int8 kernels were not selected")
        print(f"{target}: objdump: {len(found)} AVX-512 instructions")

    if not runs_vnni:
        print("x86-avx512vnni: not run (this CPU lacks AVX512F, AVX512VL or AVX512_VNNI)")
        return
    a, b = logits["x86-avx2"], logits["x86-avx512vnni"]
    if a.shape != (42, DIMS.vocab) or not np.array_equal(a, b):
        diff = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("nan")
        raise SystemExit(f"FAIL: x86-avx512vnni logits differ from x86-avx2's (shapes {a.shape} {b.shape}, "
                         f"max |diff| {diff})")
    print(f"x86-avx512vnni: logits of all {a.shape[0]} positions bit-identical to x86-avx2's")


if __name__ == "__main__":
    main()
