"""Hugging Face file formats for the default model, written and read without the HF libraries.

- safetensors (F32 only): 8-byte little-endian header length, a JSON header with dtype/shape/data_offsets and
  "__metadata__": {"format": "pt"}, then the raw little-endian tensor bytes in header order.
- a character-level tokenizer.json (a BPE model with no merges, so every character is one token) and its
  tokenizer_config.json.
"""

import json
import struct
from typing import Dict, List

import numpy as np

SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<unk>"]  # ids 0..3
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(4)


def write_safetensors(path: str, tensors: Dict[str, np.ndarray]) -> None:
    """Tensors are written sorted by name; the header is space-padded to a multiple of 8 bytes."""
    header: Dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs: List[bytes] = []
    offset = 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name], dtype="<f4")
        data = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for data in blobs:
            f.write(data)


def read_safetensors(path: str) -> Dict[str, np.ndarray]:
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n])
    body = memoryview(buf)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{name}: dtype {info['dtype']} not supported (F32 only)")
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(info["shape"]).copy()
    return out


class CharTokenizer:
    """Specials <pad>=0 <bos>=1 <eos>=2 <unk>=3, then one id per character, characters sorted."""

    def __init__(self, chars: List[str]):
        self.vocab = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
        for ch in chars:
            self.vocab[ch] = len(self.vocab)
        self.inverse = {i: tok for tok, i in self.vocab.items()}

    def __len__(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> List[int]:
        return [self.vocab.get(ch, UNK_ID) for ch in text]

    def decode(self, ids: List[int]) -> str:
        return "".join(self.inverse[i] for i in ids if i >= len(SPECIAL_TOKENS))

    def tokenizer_json(self) -> dict:
        added = [{"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True} for i, tok in enumerate(SPECIAL_TOKENS)]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": {"type": "Fuse"},
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": "<unk>",
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "vocab": self.vocab,
                "merges": [],
            },
        }

    @staticmethod
    def tokenizer_config(max_length: int, chat_template: str) -> dict:
        return {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "bos_token": "<bos>",
            "eos_token": "<eos>",
            "pad_token": "<pad>",
            "unk_token": "<unk>",
            "add_bos_token": True,
            "add_eos_token": False,
            "clean_up_tokenization_spaces": False,
            "model_max_length": max_length,
            "chat_template": chat_template,
        }

    @classmethod
    def from_tokenizer_json(cls, path: str) -> "CharTokenizer":
        with open(path, encoding="utf-8") as f:
            vocab = json.load(f)["model"]["vocab"]
        by_id = sorted(vocab.items(), key=lambda kv: kv[1])
        if [t for t, _ in by_id[:4]] != SPECIAL_TOKENS:
            raise ValueError(f"{path}: unexpected special tokens")
        return cls([t for t, _ in by_id[4:]])


def write_json(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")
