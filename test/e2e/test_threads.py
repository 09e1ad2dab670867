"""Issue 5, acceptance 4: the thread count never changes greedy tokens or logits.

A random Qwen3-shaped model wide enough that every product of decode and prefill is split over the threads
(kernels::kMinParallelWork), with the default model's tokenizer, at CQ4 and CQ2 (integer kernels, planar packed
weights on x86-avx2), runs with 1, 2 and 3 threads: greedy generation must print the same text and every position's
logits must be the same bytes. The kernel tests check the split itself (IsaCqI8.ThreadSplitBitIdentical)."""
import json
import os

import numpy as np

import common

PROMPT = "Q: What is 17 + 25?\nA:"
WIDE = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 512,
    "intermediate_size": 1024,
    "num_hidden_layers": 2,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 64,
    "max_position_embeddings": 256,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": True,
    "vocab_size": 71,  # the default model's tokenizer
}


def main():
    args = common.parse_args()
    config = os.path.join(args.work_dir, "wide.json")
    json.dump(WIDE, open(config, "w"))
    model = os.path.join(args.work_dir, "wide")
    common.run([args.saguaro, "synth", config, "-o", model, "--seed", "3"], args)
    tokenizer = os.path.join(args.source_dir, "examples", "models", "default", "tokenizer.json")
    target = "x86-avx2" if "avx2" in open("/proc/cpuinfo").read() else "generic"
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write(" ".join(str(3 + (13 * i) % 67) for i in range(70)) + "\n")
    for bits in ("4", "2"):
        flags = ["--bits", bits, "--target", target, "--tokenizer", tokenizer]
        texts, logits = {}, {}
        for threads in ("1", "2", "3"):
            out = common.run([args.saguaro, "run", model, *flags, "-p", PROMPT, "-n", "48", "-t", "0",
                              "--threads", threads], args)
            texts[threads] = out.stdout
            path = os.path.join(args.work_dir, f"logits_b{bits}_t{threads}.npy")
            common.run([args.saguaro, "logits", model, *flags, "--token-ids", ids, "-o", path, "--threads", threads],
                       args)
            logits[threads] = np.load(path)
        for threads in ("2", "3"):
            if texts[threads] != texts["1"]:
                raise SystemExit(f"FAIL: CQ{bits} greedy text with {threads} threads differs:\n"
                                 f"{texts['1']!r}\nvs\n{texts[threads]!r}")
            if logits[threads].tobytes() != logits["1"].tobytes():
                diff = np.abs(logits[threads] - logits["1"]).max()
                raise SystemExit(f"FAIL: CQ{bits} logits with {threads} threads differ (max {diff})")
        print(f"CQ{bits} ({target}): greedy text and {logits['1'].shape} logits identical with 1, 2 and 3 threads")


if __name__ == "__main__":
    main()
