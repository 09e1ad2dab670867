"""Acceptance 4: for a random-weight model of over 200 MB, the planned peak bytes in manifest.json
(arena + KV cache + mapped weights) and the peak RSS that `saguaro run` measures differ by < 10 %."""
import json
import os
import re

import common


def write_char_tokenizer(model_dir, vocab_size):
    """A character-level BPE tokenizer.json (no merges) with <unk>, <s>, </s> and printable ASCII."""
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for c in range(32, 127):
        vocab[chr(c)] = len(vocab)
    assert len(vocab) <= vocab_size
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "normalizer": None, "pre_tokenizer": None,
        "post_processor": None, "decoder": {"type": "Fuse"},
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t, i in list(vocab.items())[:3]],
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": []},
    }
    json.dump(tokenizer, open(os.path.join(model_dir, "tokenizer.json"), "w"))
    json.dump({"bos_token": "<s>", "eos_token": "</s>", "add_bos_token": True, "add_eos_token": False},
              open(os.path.join(model_dir, "tokenizer_config.json"), "w"))


def main():
    args = common.parse_args()
    model = os.path.join(args.work_dir, "model")
    # 4 layers of (3M attention + 12M MLP) float32 parameters: about 240 MB of weights.
    common.run([common.python(), common.reference_script(args, "make_random_hf.py"), "--arch", "llama", "-o", model,
                "--layers", "4", "--hidden", "1024", "--intermediate", "4096", "--heads", "16", "--kv-heads", "8",
                "--vocab", "256"], args)
    write_char_tokenizer(model, 256)
    weights = os.path.getsize(os.path.join(model, "model.safetensors"))
    if weights < 200e6:
        raise SystemExit(f"FAIL: the test model has only {weights} bytes of weights")

    bundle = os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle, "--max-seq", "256"], args)
    memory = json.load(open(os.path.join(bundle, "manifest.json")))["memory"]
    planned = memory["planned_peak_bytes"]
    # The default KV cache is binary16: K and V of 4 layers × 256 positions × 8 KV heads × 64, 2 bytes each.
    kv_want = 2 * 4 * 256 * 8 * 64 * 2
    if memory["kv_cache"] != "f16" or memory["kv_cache_bytes"] != kv_want:
        raise SystemExit(f"FAIL: KV cache {memory['kv_cache']} of {memory['kv_cache_bytes']} bytes, "
                         f"expected f16 of {kv_want}")
    out = common.run([args.saguaro, "run", bundle, "-p", "Hello there", "-n", "48", "-t", "0"], args)
    match = re.search(r"peak_rss_bytes=(\d+)", out.stderr.decode())
    if not match:
        raise SystemExit("FAIL: saguaro run printed no peak_rss_bytes on stderr")
    measured = int(match.group(1))
    diff = abs(measured - planned) / planned
    print(f"planned {planned} bytes, measured peak RSS {measured} bytes, difference {diff:.1%}")
    if diff >= 0.10:
        raise SystemExit("FAIL: planned and measured peak memory differ by 10 % or more")


if __name__ == "__main__":
    main()
