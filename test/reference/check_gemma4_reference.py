"""Checks gemma4_reference.py on tiny models from make_random_gemma4.py: against a second, torch-based formulation
that decodes one token at a time, and against invariants of the rules themselves.

Usage: check_gemma4_reference.py [--workdir DIR] [--tokens T]   (exit 0 iff every check passes)

The torch side shares no code with the reference: it parses config.json and the safetensors itself
(torch.frombuffer), decodes position by position from per-layer caches (sliding layers keep a ring of
sliding_window entries), finds each KV-shared layer's owner by walking back from the first shared layer, rotates
only the pairs proportional RoPE names as complex numbers, and rounds the embedding scales with torch's own
.to(dtype), as Gemma4TextScaledWordEmbedding does. Without torch the invariants still run and the cross-check is
reported as skipped.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import gemma4_reference as ref
from checker import Checker, max_diff
from make_random_gemma4 import _VARIANTS, shared_layers, unread_weights

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, make_random_gemma4.py arguments); the torch cross-check runs every model, full-f32 also with K/V rounded
# to binary16.
MODELS = [
    ("full-f32", ["--variant", "full", "--seed", "1"]),
    ("plain-f32", ["--variant", "plain", "--seed", "2"]),
    ("full-conditional-bf16-2shards", ["--variant", "full", "--seed", "1", "--conditional"]),
    ("full-f16-untied-window5", ["--variant", "full", "--seed", "3", "--dtype", "f16", "--no-tie",
                                 "--sliding-window", "5"]),
    ("plain-conditional-f32-3shards", ["--variant", "plain", "--seed", "2", "--conditional", "--dtype", "f32",
                                       "--shards", "3"]),
    ("full-causal-bf16", ["--variant", "full", "--seed", "1", "--dtype", "bf16"]),
    ("full-conditional-f32", ["--variant", "full", "--seed", "1", "--conditional", "--dtype", "f32"]),
]


def torch_decode(model_dir, ids, kv_f16, soft_tokens=None):
    """Logits [T, vocab] (float64), one position at a time, formulated in torch. soft_tokens [n, hidden]: the
    embeddings of the n image placeholders, in order (the conditional layout)."""
    import torch
    import torch.nn.functional as F

    from torch_safetensors import load_safetensors_torch

    top = json.load(open(os.path.join(model_dir, "config.json")))
    conditional = top["model_type"] == "gemma4"
    c = top["text_config"] if conditional else top
    pre = "model.language_model." if conditional else "model."
    W, kinds = load_safetensors_torch(model_dir)

    L, H, heads, eps = c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"], c["rms_norm_eps"]
    types, D = c["layer_types"], c["hidden_size_per_layer_input"]
    first_shared = L - c["num_kv_shared_layers"]

    def owner(i):
        j = i if i < first_shared else first_shared - 1
        while types[j] != types[i]:
            j -= 1
        return j

    def rms(x, w=None):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        return y if w is None else y * w

    def rotate(x, pos, full):
        rope = c["rope_parameters"]["full_attention" if full else "sliding_attention"]
        hd = x.shape[-1]
        n_rot = hd // 2
        if rope["rope_type"] == "proportional":
            n_rot = math.floor(rope["partial_rotary_factor"] * hd / 2)
        j = torch.arange(n_rot, dtype=torch.float64)
        freq = rope["rope_theta"] ** (-2.0 * j / hd)
        if rope["rope_type"] == "proportional":
            freq = freq / rope.get("factor", 1.0)
        half = hd // 2
        z = torch.complex(x[..., :n_rot], x[..., half:half + n_rot]) * torch.polar(torch.ones_like(freq), pos * freq)
        out = x.clone()
        out[..., :n_rot], out[..., half:half + n_rot] = z.real, z.imag
        return out

    def scale_of(value, name):
        return torch.tensor(value).to(kinds[name]).to(torch.float64)  # float32, then the table's dtype

    embed = W[pre + "embed_tokens.weight"]
    head = embed if c["tie_word_embeddings"] else W["lm_head.weight"]
    placeholders = {top[k] for k in ("image_token_id", "video_token_id", "audio_token_id")} if conditional else set()
    caches = {i: ([], []) for i in range(L) if owner(i) == i}
    soft = iter(torch.as_tensor(soft_tokens, dtype=torch.float64)) if soft_tokens is not None else None
    rows = []
    for pos, tok in enumerate(ids):
        image = soft is not None and tok == top["image_token_id"]
        tok = c["pad_token_id"] if tok in placeholders else tok
        x = next(soft) if image else embed[tok] * scale_of(math.sqrt(H), pre + "embed_tokens.weight")
        if D:
            table = pre + "embed_tokens_per_layer.weight"
            token_part = W[table][tok].view(L, D) * scale_of(math.sqrt(D), table)
            proj = (W[pre + "per_layer_model_projection.weight"] @ x / math.sqrt(H)).view(L, D)
            ple = (rms(proj, W[pre + "per_layer_projection_norm.weight"]) + token_part) / math.sqrt(2.0)
        for i in range(L):
            p = f"{pre}layers.{i}."
            full = types[i] == "full_attention"
            hd = c["global_head_dim"] if full and c["global_head_dim"] else c["head_dim"]
            k_eq_v = full and c["attention_k_eq_v"]
            kvh = (c["num_global_key_value_heads"] or c["num_key_value_heads"]) if k_eq_v else c["num_key_value_heads"]
            h = rms(x, W[p + "input_layernorm.weight"])
            q = rotate(rms((W[p + "self_attn.q_proj.weight"] @ h).view(heads, hd), W[p + "self_attn.q_norm.weight"]),
                       pos, full)
            if owner(i) == i:
                k_raw = (W[p + "self_attn.k_proj.weight"] @ h).view(kvh, hd)
                v_raw = k_raw if k_eq_v else (W[p + "self_attn.v_proj.weight"] @ h).view(kvh, hd)
                k, v = rotate(rms(k_raw, W[p + "self_attn.k_norm.weight"]), pos, full), rms(v_raw)
                if kv_f16:
                    k, v = k.half().double(), v.half().double()
                ks, vs = caches[i]
                ks.append(k)
                vs.append(v)
                if not full and len(ks) > c["sliding_window"]:  # the ring keeps the last sliding_window positions
                    del ks[0], vs[0]
            ks, vs = caches[owner(i)]
            K, V = torch.stack(ks, 1), torch.stack(vs, 1)  # [kvh, n, hd]
            qg = q.view(kvh, heads // kvh, hd)  # heads g*rep .. g*rep+rep-1 read KV head g
            probs = torch.softmax(qg @ K.transpose(1, 2), dim=-1)  # scale 1.0
            o = (probs @ V).reshape(heads * hd)
            x = x + rms(W[p + "self_attn.o_proj.weight"] @ o, W[p + "post_attention_layernorm.weight"])
            h = rms(x, W[p + "pre_feedforward_layernorm.weight"])
            m = F.gelu(W[p + "mlp.gate_proj.weight"] @ h, approximate="tanh") * (W[p + "mlp.up_proj.weight"] @ h)
            x = x + rms(W[p + "mlp.down_proj.weight"] @ m, W[p + "post_feedforward_layernorm.weight"])
            if D:
                g = F.gelu(W[p + "per_layer_input_gate.weight"] @ x, approximate="tanh") * ple[i]
                x = x + rms(W[p + "per_layer_projection.weight"] @ g, W[p + "post_per_layer_input_norm.weight"])
            x = x * W.get(p + "layer_scalar", torch.ones(1, dtype=torch.float64))
        logits = head @ rms(x, W[pre + "norm.weight"])
        cap = c["final_logit_softcapping"]
        rows.append(torch.tanh(logits / cap) * cap if cap else logits)
    return torch.stack(rows).numpy()


def with_config(src, dst, edit):
    """Copies model directory src to dst with edit(config dict) applied to config.json."""
    shutil.copytree(src, dst)
    path = os.path.join(dst, "config.json")
    cfg = json.load(open(path))
    edit(cfg)
    json.dump(cfg, open(path, "w"), indent=2)
    return dst


def check_torch(chk, models, ids):
    """The reference against the torch decode, to 1e-9 of the logits' scale."""
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP torch cross-check: torch is not importable")
        return
    for name, kv16 in [(name, False) for name, _ in MODELS] + [("full-f32", True)]:
        ours = ref.forward(models[name], ids, kv_cache="f16" if kv16 else "f32")
        theirs = torch_decode(models[name], ids, kv16)
        scale = max(1.0, float(np.max(np.abs(theirs))))
        err = max_diff(ours, theirs)
        chk.check(f"torch {name}{' kv-cache f16' if kv16 else ''}", err <= 1e-9 * scale,
                  f"max|logit|={scale:.3f} max_abs_diff={err:.2e}")


def check_invariants(chk, models, ids, work):
    """Properties the rules imply, on the reference alone."""
    full = models["full-f32"]
    whole = ref.forward(full, ids)
    W = 8  # make_random_gemma4.py's default sliding_window
    for n in (1, W, W + 1, len(ids) - 1):
        err = max_diff(ref.forward(full, ids[:n]), whole[:n])
        chk.check(f"prefix {n} rows equal the whole sequence's", err <= 1e-12, f"max_abs_diff={err:.2e}")

    wide = with_config(full, os.path.join(work, "full-window-1e6"), lambda c: c.update(sliding_window=10 ** 6))
    unwindowed = ref.forward(wide, ids)
    inside, past = max_diff(unwindowed[:W], whole[:W]), float(np.min(np.max(np.abs(unwindowed - whole)[W:], -1)))
    chk.check("the window changes only rows past it", inside <= 1e-12 < 1e-3 < past,
              f"rows < {W}: {inside:.2e}; every row >= {W} moves by at least {past:.2e}")

    for a, b in (("full-f32", "full-conditional-f32"), ("full-causal-bf16", "full-conditional-bf16-2shards")):
        err = max_diff(ref.forward(models[a], ids), ref.forward(models[b], ids))
        chk.check(f"{a} and {b} agree", err <= 1e-12, f"max_abs_diff={err:.2e}")

    unused = []
    ref.forward(models["full-conditional-bf16-2shards"], ids, unused=unused)
    variant = _VARIANTS["full"]
    expected = sorted(unread_weights(variant, np.random.default_rng(0), "model.language_model."))
    chk.check("unread tensors are the shared layers' K/V and the towers", unused == expected,
              f"{len(unused)} unread, {len(shared_layers(variant))} shared layers")

    # A placeholder id is embedded as the pad token in the conditional layout only.
    token = ids[3]
    marked = with_config(models["full-conditional-f32"], os.path.join(work, "full-conditional-placeholder"),
                         lambda c: c.update(image_token_id=token))
    padded = [0 if t == token else t for t in ids]
    err = max_diff(ref.forward(marked, ids), ref.forward(marked, padded))
    moved = max_diff(ref.forward(full, ids), ref.forward(full, padded))
    chk.check("image_token_id embeds as pad_token_id (conditional only)", err <= 1e-12 < 1e-3 < moved,
              f"conditional {err:.2e}, causal LM moves by {moved:.2e}")

    # sqrt(48) = 6.9282...: a bfloat16 table scales by 6.9375, a float32 one by float32(sqrt(48)).
    scales = [float(ref.round_to_stored(math.sqrt(48), kind, np.float64)) for kind in ("BF16", "F32")]
    chk.check("sqrt(hidden) rounds to the stored dtype", scales == [6.9375, float(np.float32(math.sqrt(48)))],
              f"bf16 {scales[0]}, f32 {scales[1]!r}")


def check_refusals(chk, models, work):
    """Bad inputs fail with one line naming the file and the problem, and the CLI writes nothing."""
    full = models["full-f32"]
    cases = [
        ("moe", lambda c: c.update(enable_moe_block=True), "enable_moe_block"),
        ("bidirectional", lambda c: c.update(use_bidirectional_attention="all"), "use_bidirectional_attention"),
        ("rope-yarn", lambda c: c["rope_parameters"]["full_attention"].update(rope_type="yarn"), "rope_type 'yarn'"),
        ("shared-all", lambda c: c.update(num_kv_shared_layers=c["num_hidden_layers"]), "num_kv_shared_layers"),
        ("default-rope-wide-head", lambda c: c["rope_parameters"]["full_attention"].update(rope_type="default"),
         "head dim is 32"),
    ]
    for name, edit, phrase in cases:
        bad = with_config(full, os.path.join(work, "bad-" + name), edit)
        try:
            ref.read_config(bad)
            chk.check(f"refuses {name}", False, "accepted")
        except ValueError as e:
            chk.check(f"refuses {name}", phrase in str(e) and "config.json" in str(e), str(e))

    ids_path = os.path.join(work, "ids-short.txt")
    open(ids_path, "w").write("1 2 3\n")
    missing_ple = os.path.join(work, "bad-missing-ple")
    shutil.copytree(full, missing_ple)
    _drop_tensor(os.path.join(missing_ple, "model.safetensors"), "model.embed_tokens_per_layer.weight")
    missing_shard = os.path.join(work, "bad-missing-shard")
    shutil.copytree(models["full-conditional-bf16-2shards"], missing_shard)
    os.remove(os.path.join(missing_shard, "model-00002-of-00002.safetensors"))
    for name, bad, phrase in (("missing PLE tensor", missing_ple, "embed_tokens_per_layer.weight"),
                              ("missing shard", missing_shard, "model-00002-of-00002.safetensors")):
        out = os.path.join(work, "bad.npy")
        run = subprocess.run([sys.executable, os.path.join(HERE, "gemma4_reference.py"), bad, "--token-ids",
                              ids_path, "-o", out], capture_output=True, text=True)
        lines = run.stderr.strip().splitlines()
        ok = run.returncode != 0 and len(lines) == 1 and phrase in lines[0] and not os.path.exists(out)
        chk.check(f"refuses a {name}", ok, lines[0] if lines else "(no message)")


def _drop_tensor(path, name):
    """Rewrites one .safetensors file without tensor `name`."""
    from safetensors_io import read_model_dtypes, read_safetensors, write_safetensors
    dtype = read_model_dtypes(os.path.dirname(path))[name]
    tensors = read_safetensors(path)
    del tensors[name]
    write_safetensors(path, tensors, dtype)


def main():
    """Builds the models, runs every check, prints a verdict."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=None, help="where the models go (emptied first; default: a new temp dir)")
    ap.add_argument("--tokens", type=int, default=24, help="sequence length (past the window of 8)")
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix="gemma4ref_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    ids = [(i * 37 + 11) % 256 for i in range(args.tokens)]
    models = {}
    for name, gen_args in MODELS:
        models[name] = os.path.join(work, name)
        subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "-o", models[name]] + gen_args,
                       check=True)
    chk = Checker()
    check_torch(chk, models, ids)
    check_invariants(chk, models, ids, work)
    check_refusals(chk, models, work)
    print("OK" if not chk.failed else f"FAILED: {', '.join(chk.failed)}")
    return 0 if not chk.failed else 1


if __name__ == "__main__":
    sys.exit(main())
