"""Writes a Gemma-sized tokenizer.json: 262,144 tokens, a SentencePiece-style BPE model as Hugging Face stores
Gemma's (model.type BPE with byte_fallback and fuse_unk, the Replace " " -> "▁" normalizer, no pre-tokenizer,
the Replace / ByteFallback / Fuse decoder, a BOS TemplateProcessing post-processor), with Gemma 4's special
tokens. Gemma's own file is not in ../shared, and at about 30 MB it stays out of git: this script makes one of
the same shape for measuring how long `saguaro tokenize` takes on it (docs/user-guide.md, "Tokenizer cache").

Usage: make_gemma_sized_tokenizer.py -o DIR [--vocab N] [--seed S]

Layout: ids 0-4 <pad> <eos> <bos> <unk> <mask>; Gemma 4's turn, channel, tool and media markers; <unused*>
fillers up to id 6,000 (Gemma reserves a block of them); the 256 byte-fallback tokens <0x00>..<0xFF>; single
characters (Latin, digits, punctuation, accented Latin, Cyrillic, Greek, CJK); then merged tokens, each the
concatenation of two earlier ones, up to --vocab. Every merged token gets the merge that made it, and every other
split of it into two tokens of the vocabulary becomes a further merge, as a SentencePiece vocabulary converted to
BPE has (Gemma 3's file carries about twice as many merges as tokens).
"""
import argparse
import json
import os
import random

SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>",
            "<|turn>", "<turn|>", "<|channel>", "<channel|>", "<|think|>", "<|\"|>",
            "<|tool>", "<tool|>", "<|tool_call>", "<tool_call|>", "<|tool_response>", "<tool_response|>",
            "<|image>", "<image|>", "<|image|>", "<|audio>", "<audio|>", "<|audio|>", "<|video|>"]
FIRST_BYTE_ID = 6000
MAX_TOKEN_CHARS = 16


def characters():
    """The single-character tokens: what a multilingual SentencePiece vocabulary starts from."""
    ranges = [(0x21, 0x7E), (0xC0, 0x17F), (0x391, 0x3C9), (0x410, 0x44F), (0x4E00, 0x4E00 + 3000)]
    chars = ["\u2581"] + [chr(c) for a, b in ranges for c in range(a, b + 1)]
    return list(dict.fromkeys(chars))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True, help="directory to write tokenizer.json into")
    ap.add_argument("--vocab", type=int, default=262144)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)

    vocab = {}
    for t in SPECIALS + [f"<unused{i}>" for i in range(FIRST_BYTE_ID - len(SPECIALS))]:
        vocab[t] = len(vocab)
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    chars = characters()
    for c in chars:
        vocab[c] = len(vocab)

    # Merged tokens: mostly short + short (frequent pieces), words starting with "▁" as SentencePiece's do.
    pieces = list(chars)
    merges = []
    while len(vocab) < a.vocab:
        left = rng.choice(pieces[-4000:] if rng.random() < 0.6 else pieces)
        right = rng.choice(pieces[: len(chars) + 2000] if rng.random() < 0.7 else pieces)
        if rng.random() < 0.5 and not left.startswith("\u2581"):
            left = "\u2581" + left if "\u2581" + left in vocab else left
        token = left + right
        if len(token) > MAX_TOKEN_CHARS or token in vocab or right.startswith("\u2581"):
            continue
        vocab[token] = len(vocab)
        pieces.append(token)
        merges.append((left, right))
    # Further splits of merged tokens into two vocabulary tokens, as a converted SentencePiece model lists them.
    made = set(merges)
    for token in pieces[len(chars):]:
        for cut in range(1, len(token)):
            pair = (token[:cut], token[cut:])
            if pair not in made and pair[0] in vocab and pair[1] in vocab:
                made.add(pair)
                merges.append(pair)

    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in SPECIALS]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                                    {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "<bos>", "type_id": 1}},
                                    {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [list(m) for m in merges]},
    }
    os.makedirs(a.output, exist_ok=True)
    path = os.path.join(a.output, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    print(f"{path}: {len(vocab)} tokens, {len(merges)} merges, {os.path.getsize(path) >> 20} MiB")


if __name__ == "__main__":
    main()
