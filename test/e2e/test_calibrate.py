"""Calibration (issue 4, error feedback): the Gram matrices XᵀX/rows that a calibration build's taps report
for every weight matrix of stories260K equal those of the independent numpy forward pass
(test/reference/llama2c_reference.py --gram) over the same sequences; `compile --calibration` really changes
the stored codes (GPTQ-style error feedback) and the result still runs; bad calibration input fails cleanly."""
import glob
import os

import numpy as np

import common
from test_bad_inputs import expect_error


def main():
    args = common.parse_args()
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    w = args.work_dir

    # Three sequences; the longest crosses prefill chunks (64) and the shortest is one chunk's tail.
    rng = np.random.default_rng(5)
    ids = os.path.join(w, "ids.txt")
    open(ids, "w").write("".join(" ".join(str(t) for t in rng.integers(1, 512, n)) + "\n" for n in (150, 70, 9)))
    ours, ref = os.path.join(w, "ours"), os.path.join(w, "ref")
    os.makedirs(ref, exist_ok=True)
    common.run([args.saguaro, "calibrate", model, "--token-ids", ids, "-o", ours], args)
    common.run([common.python(), common.reference_script(args, "llama2c_reference.py"), model, "--gram", ids,
                "-o", ref], args)
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ref, "*.npy")))
    if sorted(os.listdir(ours)) != names or len(names) != 5 * 7 + 1:
        raise SystemExit(f"FAIL: Gram matrices for {sorted(os.listdir(ours))}, the reference has {names}")
    worst = 0.0
    for name in names:
        a, b = np.load(os.path.join(ours, name)), np.load(os.path.join(ref, name))
        err = float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
        worst = max(worst, err)
        if a.shape != b.shape or err > 1e-4:
            raise SystemExit(f"FAIL: {name}: shape {a.shape} vs {b.shape}, max error {err:.3g} of the scale")
    print(f"gram: {len(names)} matrices equal numpy's, max error {worst:.3g} of each matrix's scale")

    # Error feedback: same format, different codes than plain CQ; the bundle still generates.
    text = os.path.join(w, "calibration.txt")
    open(text, "w").write(open(os.path.join(os.path.dirname(model), "ref", "once-upon-a-time.stdout.txt")).read())
    plain, fed = os.path.join(w, "plain"), os.path.join(w, "fed")
    common.run([args.saguaro, "compile", model, "--tokenizer", tok, "--bits", "3", "-o", plain], args)
    common.run([args.saguaro, "compile", model, "--tokenizer", tok, "--bits", "3", "--calibration", text,
                "-o", fed], args)
    changed = 0
    for layer in range(5):
        tensor = f"layers.{layer}.w2.codes"
        for bundle in (plain, fed):
            common.run([args.saguaro, "inspect", bundle, "--tensor", tensor, "-o", os.path.join(bundle, "x.bin")], args)
        changed += open(os.path.join(plain, "x.bin"), "rb").read() != open(os.path.join(fed, "x.bin"), "rb").read()
    if changed != 5:
        raise SystemExit(f"FAIL: --calibration changed the codes of only {changed} of 5 w2 matrices")
    out = common.run([args.saguaro, "run", fed, "-p", "Once upon a time", "-n", "40", "-t", "0"], args).stdout
    if not out.startswith(b"Once upon a time") or len(out) < 40:
        raise SystemExit(f"FAIL: the error-feedback bundle printed {out!r}")
    print(f"error feedback: codes of 5/5 w2 matrices differ from plain CQ3; greedy text: {out[:60]!r}...")

    # Bad calibration input: one line naming the file, exit 1, nothing left behind.
    missing, empty = os.path.join(w, "missing.txt"), os.path.join(w, "empty.txt")
    open(empty, "w").write("\n \n")
    out_dir = os.path.join(w, "bad")
    expect_error(args, [args.saguaro, "calibrate", model, "--tokenizer", tok, "--text", missing, "-o", out_dir],
                 "missing.txt", "cannot read", leaves_no=out_dir)
    expect_error(args, [args.saguaro, "calibrate", model, "--tokenizer", tok, "--text", empty, "-o", out_dir],
                 "empty.txt", "empty", leaves_no=out_dir)
    expect_error(args, [args.saguaro, "compile", model, "--tokenizer", tok, "--bits", "2", "--calibration", empty,
                        "-o", out_dir], "empty.txt", "empty", leaves_no=out_dir)
    bad_ids = os.path.join(w, "bad_ids.txt")
    open(bad_ids, "w").write("1 2 x3\n")
    expect_error(args, [args.saguaro, "calibrate", model, "--token-ids", bad_ids, "-o", out_dir],
                 "bad_ids.txt", "bad token id", leaves_no=out_dir)


if __name__ == "__main__":
    main()
