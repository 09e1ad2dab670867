"""Reads a Hugging Face model's safetensors with torch alone (torch.frombuffer), for the torch-based cross-checks.

It shares no code with safetensors_io.py, which the numpy references read with, so a parsing mistake in either
shows up as a disagreement.
"""
import json
import os
import struct

import torch

_TORCH_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def load_safetensors_torch(model_dir):
    """({name: float64 tensor}, {name: stored torch dtype}) from model.safetensors or the index's shards."""
    index = os.path.join(model_dir, "model.safetensors.index.json")
    files = (sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index)
             else ["model.safetensors"])
    tensors, stored = {}, {}
    for fname in files:
        data = bytearray(open(os.path.join(model_dir, fname), "rb").read())
        n = struct.unpack("<Q", data[:8])[0]
        for name, info in json.loads(data[8:8 + n]).items():
            if name == "__metadata__":
                continue
            b, e = info["data_offsets"]
            dtype = _TORCH_DTYPES[info["dtype"]]
            t = torch.frombuffer(data, dtype=dtype, count=(e - b) // torch.empty(0, dtype=dtype).element_size(), offset=8 + n + b)
            tensors[name], stored[name] = t.reshape(info["shape"]).to(torch.float64), dtype
    return tensors, stored
