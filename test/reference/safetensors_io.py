"""Minimal safetensors reader/writer (F32, F16, BF16) in numpy, without the safetensors package."""
import json
import os
import struct

import numpy as np

_DTYPE_BYTES = {"F32": 4, "F16": 2, "BF16": 2}


def bf16_bits_to_f32(bits):
    """Widens raw bfloat16 bits (uint16 array) to float32."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(x):
    """Rounds float32 to bfloat16 (round to nearest even) and returns the uint16 bits."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def read_safetensors(path):
    """Returns {name: float32 ndarray} for every tensor of one .safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype, shape = info["dtype"], info["shape"]
        begin, end = info["data_offsets"]
        if dtype not in _DTYPE_BYTES:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {dtype}")
        raw = np.frombuffer(data, dtype=np.uint8, count=end - begin, offset=base + begin)
        count = int(np.prod(shape)) if shape else 1
        if end - begin != count * _DTYPE_BYTES[dtype]:
            raise ValueError(f"{path}: tensor {name} byte size does not match shape {shape}")
        if dtype == "F32":
            arr = raw.view("<f4").astype(np.float32)
        elif dtype == "F16":
            arr = raw.view("<f2").astype(np.float32)
        else:
            arr = bf16_bits_to_f32(raw.view("<u2"))
        tensors[name] = arr.reshape(shape)
    return tensors


def model_files(model_dir):
    """Paths of model.safetensors, or of every shard named by model.safetensors.index.json."""
    index_path = os.path.join(model_dir, "model.safetensors.index.json")
    if os.path.exists(index_path):
        with open(index_path) as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        return [os.path.join(model_dir, shard) for shard in shards]
    return [os.path.join(model_dir, "model.safetensors")]


def read_model_weights(model_dir):
    """Reads model.safetensors, or every shard named by model.safetensors.index.json."""
    tensors = {}
    for path in model_files(model_dir):
        tensors.update(read_safetensors(path))
    return tensors


def read_model_dtypes(model_dir):
    """Returns {name: stored dtype ("F32", "F16", "BF16")} from the headers alone."""
    dtypes = {}
    for path in model_files(model_dir):
        with open(path, "rb") as f:
            (header_len,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(header_len))
        dtypes.update({name: info["dtype"] for name, info in header.items() if name != "__metadata__"})
    return dtypes


def write_safetensors(path, tensors, dtype="F32"):
    """Writes {name: float ndarray} as one .safetensors file, every tensor stored as dtype."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        arr = np.asarray(tensors[name], dtype=np.float32)
        if dtype == "F32":
            blob = arr.astype("<f4").tobytes()
        elif dtype == "F16":
            blob = arr.astype("<f2").tobytes()
        elif dtype == "BF16":
            blob = f32_to_bf16_bits(arr).astype("<u2").tobytes()
        else:
            raise ValueError(f"unsupported dtype {dtype}")
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = {"format": "pt"}
    header_bytes = json.dumps(header, separators=(",", ":")).encode()
    header_bytes += b" " * (-len(header_bytes) % 8)  # align tensor data to 8 bytes like the reference writer
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for blob in blobs:
            f.write(blob)
