"""`saguaro probe collect` on the default model, against independent references:
- every sample's hidden rows equal the numpy reference's hidden_states[L] (test/reference/hf_reference.py
  --hidden-layer) at the positions whose logits chose each generated token, within 1e-4 of their scale;
- every entropy equals the entropy of the reference's logits at that position within 1e-3 nats;
- the label is the grading rule of docs/tasks.md applied by this test to the stored answer;
- bad input (a task without accepted answers, a bundle without a hidden tap, a missing task file) fails with
  one line naming the file, and leaves no data file behind.
The data file is read by the probe's own independent parser (test/reference/probe_reference.py)."""
import json
import math
import os

import numpy as np

import common

LAYER = 3
TASKS = [
    ("add/1", "add_2d", 2, False, "What is 17 + 25?", ["42"]),
    ("add/2", "add_2d", 2, False, "What is 38 + 47?", ["85"]),
    ("add/3", "add_3d", 3, True, "What is 381 + 472?", ["853"]),
    ("sub/1", "sub_2d", 2, False, "What is 91 - 37?", ["54"]),
    ("rev/1", "reverse3", 2, True, "Reverse the string abc.", ["cba"]),
    ("cmp/1", "compare", 1, False, "Which is larger, 412 or 398?", ["412"]),
]


def char_ids(model, text):
    """Token ids of the default model's character-level tokenizer, BOS first (its README)."""
    vocab = json.load(open(os.path.join(model, "tokenizer.json")))["model"]["vocab"]
    return [vocab["<bos>"]] + [vocab[c] for c in text]


def expect_error(args, cmd, path, words, leaves_no):
    proc = common.run(cmd, args, check=False)
    err = proc.stderr.decode().strip()
    if proc.returncode == 0 or path not in err or words not in err or len(err.splitlines()) != 1:
        raise SystemExit(f"FAIL: {' '.join(cmd)}: exit {proc.returncode}, stderr {err!r}")
    if os.path.exists(leaves_no):
        raise SystemExit(f"FAIL: {leaves_no} was left behind after an error")
    print(f"ok: {err}")


def main():
    args = common.parse_args()
    import hf_reference
    import probe_reference

    model = os.path.join(args.source_dir, "examples", "models", "default")
    w = args.work_dir
    tasks = os.path.join(w, "tasks.jsonl")
    with open(tasks, "w") as f:
        for tid, family, difficulty, heldout, question, accept in TASKS:
            f.write(json.dumps({"id": tid, "family": family, "difficulty": difficulty, "heldout": heldout,
                                "question": question, "accept": accept}) + "\n")
    data_path = os.path.join(w, "data.spd")
    common.run([args.saguaro, "probe", "collect", model, "--tasks", tasks, "-o", data_path,
                "--hidden-tap", str(LAYER), "--max-new", "8", "--kv-cache", "f32", "--target", "generic"], args)
    data = probe_reference.read_data(data_path)
    samples = data["samples"]
    if data["width"] != 128 or data["tap_layer"] != LAYER or len(samples) != len(TASKS):
        raise SystemExit(f"FAIL: width {data['width']}, layer {data['tap_layer']}, {len(samples)} samples")

    worst_hidden = worst_entropy = 0.0
    for (tid, _, _, _, question, accept), s in zip(TASKS, samples):
        answer, tokens = s["answer"], s["n_tokens"]
        if s["id"] != tid or s["wrong"] != (answer.strip() not in accept):
            raise SystemExit(f"FAIL: {tid}: id {s['id']}, answer {answer!r}, wrong {s['wrong']}")
        prompt = char_ids(model, f"Q: {question}\nA:")
        # Fed positions: the prompt, then every generated token but the last (the newline, <eos>, or the
        # --max-new'th); rows are the positions whose logits chose the generated tokens.
        fed = prompt + char_ids(model, answer)[1:][:tokens - 1]
        ids = os.path.join(w, f"{tid.replace('/', '_')}.ids")
        open(ids, "w").write(" ".join(map(str, fed)) + "\n")
        cfg_dir = model
        want_hidden = hf_reference.forward(cfg_dir, fed, np.float64, LAYER)[len(prompt) - 1:]
        logits = hf_reference.forward(cfg_dir, fed, np.float64)[len(prompt) - 1:]
        got = np.asarray(s["hidden"], dtype=np.float64).reshape(tokens, data["width"])
        if want_hidden.shape != got.shape:
            raise SystemExit(f"FAIL: {tid}: {got.shape} hidden rows, reference {want_hidden.shape}")
        err = np.abs(got - want_hidden).max() / np.abs(want_hidden).max()
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        entropy = -(p * np.log(np.maximum(p, 1e-300))).sum(axis=1)
        eerr = np.abs(np.asarray(s["entropy"]) - entropy).max()
        worst_hidden, worst_entropy = max(worst_hidden, err), max(worst_entropy, eerr)
        print(f"ok: {tid}: answer {answer!r} ({tokens} tokens, {'wrong' if s['wrong'] else 'right'}); "
              f"hidden error {err:.2e} of scale, entropy error {eerr:.2e}")
    if not (worst_hidden <= 1e-4 and worst_entropy <= 1e-3) or math.isnan(worst_hidden + worst_entropy):
        raise SystemExit(f"FAIL: hidden error {worst_hidden:.3e} (limit 1e-4), entropy {worst_entropy:.3e} (1e-3)")

    # Bad input.
    bad = os.path.join(w, "bad.jsonl")
    open(bad, "w").write(json.dumps({"id": "x", "family": "f", "difficulty": 1, "heldout": False,
                                     "question": "What is 1 + 1?", "accept": []}) + "\n")
    out = os.path.join(w, "never.spd")
    expect_error(args, [args.saguaro, "probe", "collect", model, "--tasks", bad, "-o", out], "bad.jsonl:1",
                 "non-empty array 'accept'", leaves_no=out)
    expect_error(args, [args.saguaro, "probe", "collect", model, "--tasks", os.path.join(w, "absent.jsonl"),
                        "-o", out], "absent.jsonl", "cannot read", leaves_no=out)
    plain = os.path.join(w, "plain")
    common.run([args.saguaro, "compile", model, "-o", plain], args)
    expect_error(args, [args.saguaro, "probe", "collect", plain, "--tasks", tasks, "-o", out], plain,
                 "no hidden tap", leaves_no=out)


if __name__ == "__main__":
    main()
