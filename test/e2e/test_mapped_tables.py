"""Issue 28, memory: a table only gathered stays in the file mapping. A tiny Gemma 4 (saguaro synth) whose
per-layer-embedding table is 128 MiB of float32 rows and whose tied token embedding is 8 MiB: the manifest marks the
table mapped and the embedding resident, and a short generation holds the resident bytes plus the pages of the rows
it gathered — not the table.

The margins, derived: each distinct token gathers one 2 KiB row; a page fault on the mapping maps at most
fault_around_bytes (64 KiB, the kernel's default) of pages the page cache holds, so the mapped section's Rss is at
most 64 KiB per position. The process also holds what the plan leaves out — its code, libraries, stacks and the
engine's own buffers — a few MiB (stories260K: 5 MiB); 32 MiB bounds it."""
import json
import os
import re

import common
from test_memory_plan import write_char_tokenizer

VOCAB, LAYERS, PLE_DIM = 65536, 4, 128
POSITIONS = 24
FAULT_AROUND = 64 << 10
RUNTIME_OWN = 32 << 20
CONFIG = {
    "architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text", "vocab_size": VOCAB, "hidden_size": 32,
    "intermediate_size": 64, "num_hidden_layers": LAYERS, "num_attention_heads": 2, "num_key_value_heads": 1,
    "head_dim": 16, "global_head_dim": 16, "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 128, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
    "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                        "full_attention": {"rope_type": "default", "rope_theta": 1000000.0}},
    "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"] * 2, "final_logit_softcapping": 30.0,
    "vocab_size_per_layer_input": VOCAB, "hidden_size_per_layer_input": PLE_DIM, "num_kv_shared_layers": 0,
    "use_double_wide_mlp": False, "attention_k_eq_v": False, "bos_token_id": 1, "eos_token_id": 2,
    "torch_dtype": "float32",
}


def fail(message):
    raise SystemExit(f"FAIL: {message}")


def stderr_numbers(stderr):
    """The key=value numbers `saguaro run` prints on stderr."""
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)\b", stderr)}


def main():
    args = common.parse_args()
    config = os.path.join(args.work_dir, "config.json")
    json.dump(CONFIG, open(config, "w"))
    model, bundle = os.path.join(args.work_dir, "model"), os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "synth", config, "-o", model], args)
    write_char_tokenizer(model, VOCAB)
    common.run([args.saguaro, "compile", model, "-o", bundle, "--max-seq", "64"], args)

    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    residency = {t["name"]: t["residency"] for t in manifest["tensors"]}
    table, embedding = "model.embed_tokens_per_layer.weight", "model.embed_tokens.weight"
    if residency.get(table) != "mapped" or residency.get(embedding) != "resident":
        fail(f"expected {table} mapped and the tied {embedding} resident, got {residency}")
    if sorted(n for n, r in residency.items() if r == "mapped") != [table]:
        fail(f"only the per-layer-embedding table is gathered-only, got {residency}")
    memory = manifest["memory"]
    table_bytes = VOCAB * LAYERS * PLE_DIM * 4
    if memory["mapped_bytes"] != table_bytes:
        fail(f"mapped_bytes {memory['mapped_bytes']}, the table has {table_bytes}")
    if memory["resident_bytes"] + memory["mapped_bytes"] != memory["planned_peak_bytes"]:
        fail(f"resident + mapped != planned peak: {memory}")
    blob = os.path.getsize(os.path.join(bundle, "weights.sgw"))
    if memory["resident_bytes"] != memory["arena_bytes"] + memory["kv_cache_bytes"] + blob - table_bytes:
        fail(f"resident_bytes is not arena + KV + the blob but its mapped section: {memory}, blob {blob}")

    out = common.run([args.saguaro, "run", bundle, "-p", "Hello there", "-n", str(POSITIONS), "-t", "0"], args)
    got = stderr_numbers(out.stderr.decode())
    for key in ("resident_bytes", "mapped_bytes", "mapped_resident_bytes", "peak_rss_bytes"):
        if key not in got:
            fail(f"saguaro run printed no {key}= on stderr")
    if (got["resident_bytes"], got["mapped_bytes"]) != (memory["resident_bytes"], memory["mapped_bytes"]):
        fail(f"the run's plan {got} differs from manifest.json's {memory}")
    rows_bound = POSITIONS * FAULT_AROUND
    peak_bound = memory["resident_bytes"] + rows_bound + RUNTIME_OWN
    print(f"table {table_bytes} bytes mapped; after {POSITIONS} positions {got['mapped_resident_bytes']} of them "
          f"resident (bound {rows_bound}); peak RSS {got['peak_rss_bytes']}, resident plan {memory['resident_bytes']}"
          f" (bound {peak_bound})")
    if not 0 < got["mapped_resident_bytes"] <= rows_bound:
        fail("the mapped section's resident pages are not those of the rows gathered")
    if got["peak_rss_bytes"] > peak_bound:
        fail("peak RSS exceeds the resident plan plus the rows gathered and the runtime's own memory")
    if peak_bound > memory["resident_bytes"] + table_bytes // 2:
        fail("the test's table is too small to tell a mapped table from a resident one")


if __name__ == "__main__":
    main()
