"""llama2.c checkpoints beyond stories260K: a random model with a separate classifier (negative
vocab_size in the header) and grouped-query attention, compiled by Saguaro, gives the logits of the
independent numpy oracle test/reference/llama2c_reference.py within 1e-4 of the logits' scale."""
import os
import struct

import numpy as np

import common


def write_checkpoint(path, dim=48, hidden=96, layers=3, heads=6, kv_heads=2, vocab=80, seq_len=96):
    """A random version-0 checkpoint whose classifier is stored separately."""
    head = dim // heads
    kv = kv_heads * head
    per_layer = dim + dim * dim + 2 * kv * dim + dim * dim + dim + 3 * hidden * dim
    floats = vocab * dim + layers * per_layer + dim + seq_len * head + vocab * dim
    rng = np.random.default_rng(3)
    data = rng.normal(0, 0.2, floats).astype(np.float32)
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", dim, hidden, layers, heads, kv_heads, -vocab, seq_len))
        f.write(data.tobytes())


def main():
    args = common.parse_args()
    model = os.path.join(args.work_dir, "separate-classifier.bin")
    write_checkpoint(model)
    ids = os.path.join(args.work_dir, "ids.txt")
    open(ids, "w").write(" ".join(str((7 * i + 1) % 80) for i in range(50)) + "\n")
    ours, ref = os.path.join(args.work_dir, "ours.npy"), os.path.join(args.work_dir, "ref.npy")
    common.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", ours, "--prefill-chunk", "16",
                "--kv-cache", "f32", "--target", "generic"], args)  # run.c's float32 KV cache; the reference kernels
    common.run([common.python(), common.reference_script(args, "llama2c_reference.py"), model, "--token-ids", ids,
                "-o", ref], args)
    out = common.run([common.python(), os.path.join(os.path.dirname(__file__), "compare_logits.py"), ours, ref,
                      "--rtol-scale", "1e-4"], args)
    print(out.stdout.decode().strip())


if __name__ == "__main__":
    main()
