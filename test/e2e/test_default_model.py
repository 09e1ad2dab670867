"""Acceptance 7's model: the project's own Gemma-3-style default model (examples/models/default).
- its compiled logits (float32 KV cache) match the independent numpy reference (test/reference/hf_reference.py)
  within 1e-4 of the logits' scale over a prompt longer than its sliding window;
- greedy generation of the default bundle (binary16 KV cache) from every prompt of eval_examples.txt gives
  exactly the output the PyTorch training code produced (examples/train/model.py), as `saguaro run` prints it."""
import json
import os

import common


def eval_examples(path):
    """(prompt, output, prompt_ids) triples of eval_examples.txt (JSON-escaped strings)."""
    examples, cur = [], {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.rstrip("\n").partition(": ")
        cur[key] = value
        if key == "correct":
            examples.append((json.loads(cur["prompt"]), json.loads(cur["output"]), cur["prompt_ids"]))
            cur = {}
    return examples


def main():
    args = common.parse_args()
    model = os.path.join(args.source_dir, "examples", "models", "default")
    bundle = os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle], args)

    examples = eval_examples(os.path.join(model, "eval_examples.txt"))
    ids = os.path.join(args.work_dir, "ids.txt")
    # 90 positions: every example prompt's ids one after another, past the 64-token sliding window.
    seq = " ".join(e[2] for e in examples).split()[:90]
    open(ids, "w").write(" ".join(seq) + "\n")
    ours, ref = os.path.join(args.work_dir, "ours.npy"), os.path.join(args.work_dir, "ref.npy")
    # The float32 program (float32 KV cache) against the float64 reference; the shipped bundle (binary16 KV cache,
    # the default) below must still give PyTorch's greedy answers.
    common.run([args.saguaro, "logits", model, "--kv-cache", "f32", "--target", "generic", "--token-ids", ids, "-o",
                ours], args)
    common.run([common.python(), common.reference_script(args, "hf_reference.py"), model, "--token-ids", ids,
                "-o", ref], args)
    out = common.run([common.python(), os.path.join(os.path.dirname(__file__), "compare_logits.py"), ours, ref,
                      "--rtol-scale", "1e-4"], args)
    print(out.stdout.decode().strip())

    for prompt, output, _ in examples:
        got = common.run([args.saguaro, "run", bundle, "-p", prompt, "-n", "64", "-t", "0"], args).stdout.decode()
        if got != prompt + output + "\n":
            raise SystemExit(f"FAIL: for {prompt!r} Saguaro printed {got!r}, PyTorch generated {output!r}")
    print(f"generation: {len(examples)} prompts give PyTorch's greedy outputs")


if __name__ == "__main__":
    main()
