"""A Gemma-3 text decoder in plain PyTorch, matching Hugging Face Gemma3ForCausalLM ("gemma3_text").

Parameter names equal the Hugging Face checkpoint names (minus the lm_head, which is tied to the
embedding), so `state_dict()` can be written to safetensors as-is and read back by any Gemma-3 loader.
Only the features the default model uses are implemented: no attention/final logit soft-capping and no
RoPE scaling; the config says so explicitly (those fields are null).
"""

from dataclasses import asdict, dataclass
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class GemmaConfig:
    """The subset of Gemma3TextConfig this model reads, with the same field names."""

    vocab_size: int = 64
    hidden_size: int = 128
    intermediate_size: int = 512
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 32
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_local_base_freq: float = 10000.0
    sliding_window: int = 64
    sliding_window_pattern: int = 2
    query_pre_attn_scalar: float = 32.0
    max_position_embeddings: int = 256
    bos_token_id: int = 1
    eos_token_id: int = 2
    pad_token_id: int = 0
    initializer_range: float = 0.02

    def is_sliding(self, layer: int) -> bool:
        return (layer + 1) % self.sliding_window_pattern != 0

    def layer_types(self) -> List[str]:
        return ["sliding_attention" if self.is_sliding(i) else "full_attention"
                for i in range(self.num_hidden_layers)]

    def to_hf_dict(self) -> dict:
        """config.json contents with the real Gemma3TextConfig field names."""
        d = asdict(self)
        d.update({
            "architectures": ["Gemma3ForCausalLM"],
            "model_type": "gemma3_text",
            "hidden_activation": "gelu_pytorch_tanh",
            "rope_scaling": None,
            "final_logit_softcapping": None,
            "attn_logit_softcapping": None,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "layer_types": self.layer_types(),
            "tie_word_embeddings": True,
            "use_cache": True,
            "torch_dtype": "float32",
        })
        return dict(sorted(d.items()))

    @classmethod
    def from_hf_dict(cls, d: dict) -> "GemmaConfig":
        for key in ("rope_scaling", "final_logit_softcapping", "attn_logit_softcapping"):
            if d.get(key) is not None:
                raise ValueError(f"config field {key}={d[key]!r} is not supported by this model")
        if d.get("hidden_activation", "gelu_pytorch_tanh") != "gelu_pytorch_tanh":
            raise ValueError("only hidden_activation gelu_pytorch_tanh is supported")
        if not d.get("tie_word_embeddings", True):
            raise ValueError("only tied embeddings are supported")
        names = cls.__dataclass_fields__.keys()
        cfg = cls(**{k: v for k, v in d.items() if k in names})
        if "layer_types" in d and d["layer_types"] != cfg.layer_types():
            raise ValueError("layer_types disagrees with sliding_window_pattern")
        return cfg


class RMSNorm(nn.Module):
    """Gemma RMSNorm: x * rsqrt(mean(x^2) + eps) * (1 + w), w initialised to 0, computed in fp32."""

    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * (1.0 + self.weight.float())).type_as(x)


def rope_cos_sin(positions: torch.Tensor, head_dim: int, base: float):
    """cos/sin tables [T, head_dim] in Hugging Face's layout (frequencies repeated, not interleaved)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def attention_mask(positions: torch.Tensor, sliding_window: Optional[int]) -> torch.Tensor:
    """Boolean [T, T] mask: key t is visible from query p iff 0 <= p - t (< sliding_window if given)."""
    d = positions[:, None] - positions[None, :]
    visible = d >= 0
    if sliding_window is not None:
        visible &= d < sliding_window
    return visible


class Attention(nn.Module):
    def __init__(self, cfg: GemmaConfig, layer: int):
        super().__init__()
        self.cfg = cfg
        self.sliding = cfg.is_sliding(layer)
        h, d, kv = cfg.num_attention_heads, cfg.head_dim, cfg.num_key_value_heads
        self.q_proj = nn.Linear(cfg.hidden_size, h * d, bias=False)
        self.k_proj = nn.Linear(cfg.hidden_size, kv * d, bias=False)
        self.v_proj = nn.Linear(cfg.hidden_size, kv * d, bias=False)
        self.o_proj = nn.Linear(h * d, cfg.hidden_size, bias=False)
        self.q_norm = RMSNorm(d, cfg.rms_norm_eps)
        self.k_norm = RMSNorm(d, cfg.rms_norm_eps)

    def forward(self, x, cos, sin, mask):
        cfg = self.cfg
        b, t, _ = x.shape
        h, kv, d = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        q = self.q_norm(self.q_proj(x).view(b, t, h, d)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(b, t, kv, d)).transpose(1, 2)
        v = self.v_proj(x).view(b, t, kv, d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = h // kv  # GQA: query head j reads KV head j // rep
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = (q @ k.transpose(-1, -2)) * (cfg.query_pre_attn_scalar ** -0.5)
        scores = scores.masked_fill(~mask, float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).type_as(q)
        out = (probs @ v).transpose(1, 2).reshape(b, t, h * d)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, cfg: GemmaConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.up_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: GemmaConfig, layer: int):
        super().__init__()
        eps = cfg.rms_norm_eps
        self.input_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.self_attn = Attention(cfg, layer)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.pre_feedforward_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.mlp = MLP(cfg)
        self.post_feedforward_layernorm = RMSNorm(cfg.hidden_size, eps)

    def forward(self, x, cos, sin, mask):
        x = x + self.post_attention_layernorm(self.self_attn(self.input_layernorm(x), cos, sin, mask))
        x = x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x)))
        return x


class GemmaBody(nn.Module):
    """Holds the `model.*` parameters (Gemma3TextModel)."""

    def __init__(self, cfg: GemmaConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(cfg, i) for i in range(cfg.num_hidden_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)


class GemmaForCausalLM(nn.Module):
    def __init__(self, cfg: GemmaConfig):
        super().__init__()
        self.cfg = cfg
        self.model = GemmaBody(cfg)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, mean=0.0, std=self.cfg.initializer_range)

    def forward(self, ids: torch.Tensor, positions: Optional[torch.Tensor] = None,
                segments: Optional[torch.Tensor] = None) -> torch.Tensor:
        """ids [B, T] (positions 0..T-1) -> logits [B, T, vocab].

        With `positions` and `segments` ([B, T] each) the rows are packed: several sequences per row, each with
        its own positions from 0 and a segment id; a token sees only earlier tokens of its own segment, so every
        sequence gets exactly the logits it would get alone (train_default.py --pack)."""
        cfg = self.cfg
        b, t = ids.shape
        if positions is None:
            pos = torch.arange(t)
            rope = {True: rope_cos_sin(pos, cfg.head_dim, cfg.rope_local_base_freq),
                    False: rope_cos_sin(pos, cfg.head_dim, cfg.rope_theta)}
            masks = {True: attention_mask(pos, cfg.sliding_window), False: attention_mask(pos, None)}
        else:
            rope = {}
            for s, base in ((True, cfg.rope_local_base_freq), (False, cfg.rope_theta)):
                cos, sin = rope_cos_sin(positions.reshape(-1), cfg.head_dim, base)
                rope[s] = (cos.view(b, 1, t, -1), sin.view(b, 1, t, -1))
            d = positions[:, :, None] - positions[:, None, :]
            full = (segments[:, :, None] == segments[:, None, :]) & (d >= 0)
            masks = {False: full[:, None], True: (full & (d < cfg.sliding_window))[:, None]}
        emb = self.model.embed_tokens.weight
        # HF keeps the scale as a tensor in the embedding dtype before multiplying.
        x = self.model.embed_tokens(ids) * torch.tensor(cfg.hidden_size ** 0.5, dtype=emb.dtype)
        for layer in self.model.layers:
            s = layer.self_attn.sliding
            x = layer(x, rope[s][0], rope[s][1], masks[s])
        x = self.model.norm(x)
        return x @ emb.t()

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


@torch.no_grad()
def greedy_generate_batch(model: GemmaForCausalLM, prompts: List[List[int]], max_new_tokens: int,
                          stop_id: int, pad_id: int) -> List[List[int]]:
    """Greedy decoding of many prompts at once; prompts are grouped by length so no padding is needed."""
    results: List[Optional[List[int]]] = [None] * len(prompts)
    by_len = {}
    for i, p in enumerate(prompts):
        by_len.setdefault(len(p), []).append(i)
    for _, idx in sorted(by_len.items()):
        ids = torch.tensor([prompts[i] for i in idx])
        done = torch.zeros(len(idx), dtype=torch.bool)
        gen = []
        for _ in range(max_new_tokens):
            nxt = model(ids)[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
            gen.append(nxt)
            done |= nxt == stop_id
            ids = torch.cat([ids, nxt[:, None]], dim=1)
            if bool(done.all()):
                break
        gen_t = torch.stack(gen, dim=1).tolist()
        for row, i in zip(gen_t, idx):
            out = []
            for tok in row:
                if tok == stop_id or tok == pad_id:
                    break
                out.append(tok)
            results[i] = out
    return results  # type: ignore[return-value]
