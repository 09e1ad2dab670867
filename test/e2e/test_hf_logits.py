"""Acceptance 2: a random-weight Hugging Face model of each architecture, compiled by Saguaro,
gives the logits of the independent numpy reference (test/reference/hf_reference.py) within
1e-4 relative to the logits' scale, over 56 positions (longer than the prefill chunk and, for
Gemma 3, than the sliding window)."""
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
    ours, ref = os.path.join(args.work_dir, "ours.npy"), os.path.join(args.work_dir, "ref.npy")
    # A prefill chunk of 16 exercises chunked prefill over the 56 positions.
    common.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", ours, "--prefill-chunk", "16"], args)
    common.run([common.python(), common.reference_script(args, "hf_reference.py"), model, "--token-ids", ids,
                "-o", ref], args)
    out = common.run([common.python(), os.path.join(args.source_dir, "test", "e2e", "compare_logits.py"), ours, ref,
                      "--rtol-scale", "1e-4"], args)
    print(out.stdout.decode().strip())


if __name__ == "__main__":
    main()
