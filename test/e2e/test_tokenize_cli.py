"""`saguaro tokenize` on every kind of source the issue names: a tokenizer-only directory (Qwen3's
tokenizer.json), a SentencePiece tokenizer.model, a GGUF vocab file, a llama2.c tokenizer.bin, a model
directory and a compiled bundle; --no-special, --decode round trips, and out-of-range ids on decode."""
import json
import os
import shutil
import subprocess

import common


def tokenize(args, *cmd, check=True):
    return common.run([args.saguaro, "tokenize"] + list(cmd), args, check=check)


def expect_ids(args, source, text, want, *flags):
    got = tokenize(args, source, text, *flags).stdout.decode().split()
    if got != [str(i) for i in want]:
        raise SystemExit(f"FAIL: {source} {flags} encodes {text!r} to {got}, expected {want}")


def expect_decode(args, source, ids, text):
    got = tokenize(args, source, "--decode", "--no-special", " ".join(map(str, ids))).stdout.decode()
    if got != text + "\n":
        raise SystemExit(f"FAIL: {source} decodes {ids} to {got!r}, expected {text!r}")


def main():
    args = common.parse_args()
    qwen = common.require_shared(args, "data", "tokenizers", "qwen3")
    spm = common.require_shared(args, "data", "tokenizers", "llama-spm")
    qdir = os.path.join(args.work_dir, "qwen3")
    os.makedirs(qdir)
    with open(os.path.join(qdir, "tokenizer.json"), "wb") as f:
        subprocess.run(["xz", "-dc", os.path.join(qwen, "tokenizer.json.xz")], stdout=f, check=True)
    shutil.copy(os.path.join(qwen, "tokenizer_config.json"), qdir)
    for line in list(open(os.path.join(qwen, "vectors_transformersjs.jsonl")))[:2]:
        v = json.loads(line)
        expect_ids(args, qdir, v["text"], v["ids_with_special"])
        expect_ids(args, qdir, v["text"], v["ids"], "--no-special")
        expect_decode(args, qdir, v["ids"], v["decoded"])
    print("qwen3 tokenizer.json: ids, --no-special and --decode agree with transformers.js")

    inputs = open(os.path.join(spm, "ggml-vocab-llama-spm.gguf.inp")).read().split("\n__ggml_vocab_test__\n")
    outputs = open(os.path.join(spm, "ggml-vocab-llama-spm.gguf.out")).read().split("\n")
    for source in ("llama2-tokenizer.model", "ggml-vocab-llama-spm.gguf"):
        path = os.path.join(spm, source)
        for text, ids in list(zip(inputs, outputs))[:5]:
            if not text:
                continue
            want = [int(i) for i in ids.split()]
            expect_ids(args, path, text, want, "--no-special")
            expect_ids(args, path, text, [1] + want)  # Llama 2 adds BOS
            expect_decode(args, path, want, text)
    print("llama-spm tokenizer.model and GGUF: llama.cpp's ids, BOS and --decode agree")

    tok512 = common.require_shared(args, "data", "stories260K", "tok512.bin")
    expect_ids(args, tok512, "Once upon a time", [1, 403, 407, 261, 378])
    default = os.path.join(args.source_dir, "examples", "models", "default")
    # Ids from the PyTorch trainer's own tokenization (eval_examples.txt: "Q: What is 74 + 11?").
    expect_ids(args, default, "Q: 7?", [1, 37, 21, 5, 18, 22])
    bundle = os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "compile", default, "-o", bundle], args)
    expect_ids(args, bundle, "Q: 7?", [1, 37, 21, 5, 18, 22])
    print("llama2.c tokenizer.bin, model directory and bundle sources agree")

    bad = tokenize(args, default, "--decode", "5 99999", check=False)
    err = bad.stderr.decode().strip().splitlines()
    if bad.returncode != 1 or len(err) != 1 or "99999" not in err[0] or "default" not in err[0]:
        raise SystemExit(f"FAIL: an out-of-range id gave exit {bad.returncode} and {err}")
    print(f"out-of-range id: {err[0]}")


if __name__ == "__main__":
    main()
