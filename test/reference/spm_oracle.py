#!/usr/bin/python3
"""SentencePiece oracle: encodes strings with the sentencepiece library (Debian's python3-sentencepiece).

Usage: spm_oracle.py MODEL INPUT [--decode]
INPUT holds one JSON string per line. Prints one line per input: the ids separated by spaces (no BOS/EOS), or
with --decode the JSON of sentencepiece's decode(encode(text)). Exits 77 when sentencepiece is not installed.
"""
import json
import sys


def main():
    try:
        import sentencepiece
    except ImportError:
        print("SKIP: python3-sentencepiece is not installed", file=sys.stderr)
        return 77
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--decode"):
        print(__doc__, file=sys.stderr)
        return 2
    sp = sentencepiece.SentencePieceProcessor(model_file=sys.argv[1])
    out = []
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            ids = sp.encode(json.loads(line))
            out.append(json.dumps(sp.decode(ids), ensure_ascii=False) if len(sys.argv) == 4 else " ".join(map(str, ids)))
    sys.stdout.write("".join(s + "\n" for s in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
