"""Oracle logits from an exported Gemma-3 directory (config.json + model.safetensors), computed in torch.

    /usr/bin/python3 examples/train/torch_logits.py MODEL_DIR --token-ids FILE -o OUT.npy

FILE holds token ids separated by whitespace or commas (a .npy integer array is accepted too); they are fed
as-is at positions 0..T-1, so include <bos> yourself. OUT.npy is float32 [T, vocab_size]: the logits after
every position, i.e. what a compiled model's prefill should produce.
"""

import argparse
import json
import os
import re
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # same BLAS threading as train_default.py

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_files import read_safetensors  # noqa: E402
from model import GemmaConfig, GemmaForCausalLM  # noqa: E402


def load_model(model_dir: str) -> GemmaForCausalLM:
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = GemmaConfig.from_hf_dict(json.load(f))
    model = GemmaForCausalLM(cfg)
    tensors = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    tensors.pop("lm_head.weight", None)  # tied: identical to model.embed_tokens.weight if present
    model.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=True)
    return model.eval()


def read_ids(path: str) -> np.ndarray:
    if path.endswith(".npy"):
        return np.load(path).astype(np.int64).reshape(-1)
    with open(path, encoding="utf-8") as f:
        return np.array([int(t) for t in re.split(r"[\s,]+", f.read().strip()) if t], dtype=np.int64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("--token-ids", required=True, help="file of token ids (text or .npy)")
    ap.add_argument("-o", "--output", required=True, help="where to write float32 logits [T, vocab] (.npy)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    model = load_model(args.model_dir)
    ids = read_ids(args.token_ids)
    if ids.size == 0 or ids.size > model.cfg.max_position_embeddings:
        raise SystemExit(f"need 1..{model.cfg.max_position_embeddings} token ids, got {ids.size}")
    if ids.min() < 0 or ids.max() >= model.cfg.vocab_size:
        raise SystemExit(f"token ids must be in [0, {model.cfg.vocab_size})")
    with torch.no_grad():
        logits = model(torch.from_numpy(ids)[None])[0]
    np.save(args.output, logits.numpy().astype(np.float32))
    print(f"wrote {args.output}: logits [{ids.size}, {model.cfg.vocab_size}]")


if __name__ == "__main__":
    main()
