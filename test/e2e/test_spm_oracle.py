"""End to end: `saguaro tokenize` on SentencePiece sources (tokenizer.model and a GGUF vocab) encodes llama.cpp's
test vectors exactly, round-trips them, and agrees with the sentencepiece library on generated strings."""
import json
import os
import random
import subprocess
import sys

import common

PIECES = [" ", "  ", "\t", "\n", "a", "Z", "hello", "The", "ing", "0", "42", "2024", ".", ",", "!", "?", "'", '"',
          "-", "(", ")", "#", "/", "é", "ü", "ñ", "Ø", "ß", "ça", "日本", "語", "中文", "한국", "🦙", "😀", "👍🏽",
          "e\u0301", "\u00a0"]


def random_text(rng):
    """Mixed ASCII, spaces, digits, punctuation, accented, CJK and emoji text, plus arbitrary scalar values."""
    out = []
    for _ in range(rng.randint(0, 24)):
        kind = rng.randint(0, 9)
        if kind < 7:
            out.append(rng.choice(PIECES))
        elif kind == 7:
            out.append(chr(rng.randint(0x20, 0x7E)))
        else:
            c = rng.randint(1, 0xFFFF if kind == 8 else 0x10FFFF)
            out.append(chr(c - 0x1000 if 0xD800 <= c < 0xE000 or c == 0x2581 else c))
    return "".join(out)


def tokenize(args, source, text):
    """Ids of `text` without BOS, via the CLI."""
    proc = common.run([args.saguaro, "tokenize", source, "--no-special", text], args)
    return proc.stdout.decode().split()


def detokenize(args, source, ids):
    """Text of `ids`, via the CLI (without the trailing newline the CLI prints)."""
    out = common.run([args.saguaro, "tokenize", source, "--decode", " ".join(ids)], args).stdout.decode("utf-8")
    return out[:-1] if out.endswith("\n") else out


def llama_vectors(inp_path, out_path):
    """llama.cpp test-tokenizer-0 vectors: inputs split at "\\n__ggml_vocab_test__\\n", one ids line each."""
    inputs = open(inp_path, encoding="utf-8", newline="").read().split("\n__ggml_vocab_test__\n")
    if inputs and inputs[-1] == "":
        inputs.pop()
    outputs = open(out_path, encoding="utf-8").read().split("\n")[: len(inputs)]
    return list(zip(inputs, [line.split() for line in outputs]))


def main():
    args = common.parse_args({"--count": dict(type=int, default=1000, help="generated strings checked by the oracle")})
    model = common.require_shared(args, "data", "tokenizers", "llama-spm", "llama2-tokenizer.model")
    gguf = common.require_shared(args, "data", "tokenizers", "llama-spm", "ggml-vocab-llama-spm.gguf")
    probe = common.run([args.saguaro, "tokenize", model, "Hello"], args, check=False)
    if probe.returncode != 0 and b"not supported yet" in probe.stderr:
        print("SKIP: this saguaro does not read SentencePiece tokenizers yet: " + probe.stderr.decode().strip())
        sys.exit(common.SKIP)

    vectors = llama_vectors(gguf + ".inp", gguf + ".out")
    for source in (model, gguf):
        bad = [(text, want, got) for text, want in vectors if (got := tokenize(args, source, text)) != want]
        trips = sum(detokenize(args, source, tokenize(args, source, text)) == text for text, _ in vectors)
        for text, want, got in bad[:5]:
            print(f"FAIL {os.path.basename(source)}: {text!r}: want {' '.join(want)}, got {' '.join(got)}")
        print(f"{os.path.basename(source)}: {len(vectors) - len(bad)}/{len(vectors)} llama.cpp vectors exact, "
              f"{trips}/{len(vectors)} round trips")
        if bad or trips != len(vectors):
            sys.exit(1)

    rng = random.Random(20240607)
    texts = [random_text(rng) for _ in range(args.count)]
    inputs = os.path.join(args.work_dir, "inputs.jsonl")
    with open(inputs, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
    oracle = subprocess.run([common.python(), common.reference_script(args, "spm_oracle.py"), model, inputs],
                            capture_output=True)
    if oracle.returncode == common.SKIP:
        print("SKIP: " + oracle.stderr.decode().strip())
        sys.exit(common.SKIP)
    if oracle.returncode != 0:
        raise SystemExit("FAIL: spm_oracle.py: " + oracle.stderr.decode())
    expected = oracle.stdout.decode().split("\n")
    bad = [(t, e) for t, e in zip(texts, expected) if tokenize(args, model, t) != e.split()]
    for text, want in bad[:5]:
        print(f"FAIL oracle: {text!r}: sentencepiece {want}, saguaro {' '.join(tokenize(args, model, text))}")
    print(f"sentencepiece oracle: {len(texts) - len(bad)}/{len(texts)} generated strings agree")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
