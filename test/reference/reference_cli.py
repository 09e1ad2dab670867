"""The command line the decoder references share: a model directory and token ids in, logits (or one layer's
hidden states) out as .npy; and the one-line failure every reference CLI reports (the towers' references too).

A refused config or a missing tensor or shard (ValueError, OSError) is one line on stderr, exit 1, and no output
file.
"""
import argparse
import sys

import numpy as np

from token_ids import read_token_ids


def run(description, prog, forward):
    """Parses sys.argv and writes forward(model_dir, ids, dtype, hidden_layer, kv_cache, weights) to -o."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("model_dir")
    ap.add_argument("--token-ids", required=True, help="file of token ids fed from position 0")
    ap.add_argument("-o", "--output", required=True, help="where to write logits [T, vocab] as .npy")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    ap.add_argument("--hidden-layer", type=int, help="write the hidden states [T, hidden] after this many layers")
    ap.add_argument("--kv-cache", choices=("f32", "f16"), default="f32",
                    help="f16: keys and values rounded to binary16, as a half-precision KV cache holds them")
    ap.add_argument("--weights", choices=("f32", "f16"), default="f32",
                    help="f16: weight matrices rounded to binary16, as `saguaro compile --bits 16` stores them")
    args = ap.parse_args()
    return write_or_fail(prog, args.output, lambda: forward(
        args.model_dir, read_token_ids(args.token_ids), np.dtype(args.dtype), args.hidden_layer, args.kv_cache,
        args.weights))


def write_or_fail(prog, output, compute):
    """Saves compute() to output as .npy and returns 0; a ValueError or OSError is one line on stderr, exit code 1
    and no output file."""
    try:
        out = compute()
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    np.save(output, out)
    return 0


def load_npy(path):
    """The array in a .npy file; ValueError naming the file when it is not one (pickled objects refused)."""
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError) as e:
        raise ValueError(f"{path}: not a .npy array ({e})") from None
