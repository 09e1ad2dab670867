"""Checks gemma4_audio_reference.py on tiny models from `make_random_gemma4.py --conditional --audio`: against a
second, torch-based formulation that follows transformers' module structure, against the frame-by-frame streamed
form (gemma4_audio_stream.py), and against invariants of the rules.

Usage: check_gemma4_audio_reference.py [--workdir DIR] [--wav JFK.wav]   (exit 0 iff every check passes; 77: no WAV)

The torch side shares no code with the reference: it parses config.json and the safetensors itself
(torch.frombuffer), runs a padded batch the way Gemma4AudioModel does — Conv2d and LayerNorm modules' functional
forms, queries cut into blocks, keys and values unfolded into overlapping contexts, the relative term laid out per
table row and moved into place by the pad-reshape-slice shift, the sliding-window and padding mask built over
[frames, frames] and gathered into the blocked layout — and strips the padding rows at the end. The reference
instead drops padding frames after subsampling and attends densely. Features come from audio_reference.py's
Gemma4AudioFeatureExtractor oracle on ../shared/data/audio/jfk.wav; without torch the invariants still run and the
torch checks are reported as skipped.
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

import audio_reference
import gemma4_audio_reference as ref
from checker import Checker, max_diff
from gemma4_audio_stream import AudioStream
from safetensors_io import read_model_dtypes, read_safetensors, write_safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
JFK = os.path.join(HERE, "..", "..", "..", "shared", "data", "audio", "jfk.wav")
HOP = 160  # samples per mel frame


def features_of(pcm):
    """(features [frames, 128] float64, mask [frames]) of one clip from the Gemma4AudioFeatureExtractor oracle."""
    feats, mask = audio_reference.gemma4_features(pcm)
    return feats.astype(np.float64), mask


def torch_tower(model_dir, feats, masks):
    """Per clip of a padded batch (feats [B, T, mel], masks [B, T]): (tower rows, soft tokens) of its valid frames,
    float64 numpy, formulated after transformers' Gemma4AudioModel + Gemma4MultimodalEmbedder."""
    import torch
    import torch.nn.functional as F

    from torch_safetensors import load_safetensors_torch

    c = json.load(open(os.path.join(model_dir, "config.json")))["audio_config"]
    W, kinds = load_safetensors_torch(model_dir)
    h, heads, eps = c["hidden_size"], c["num_attention_heads"], c["rms_norm_eps"]
    D, chunk = h // heads, c["attention_chunk_size"]
    past, future = c["attention_context_left"] - 1, c["attention_context_right"]
    context = chunk + past + future
    tower = "model.audio_tower."

    def rms(x, w=None, e=1e-6):
        y = x * torch.pow(x.pow(2).mean(-1, keepdim=True) + e, -0.5)
        return y if w is None else y * w

    def clippable(x, p):
        if c["use_clipped_linears"]:
            x = torch.clamp(x, W[p + "input_min"], W[p + "input_max"])
        x = F.linear(x, W[p + "linear.weight"])
        if c["use_clipped_linears"]:
            x = torch.clamp(x, W[p + "output_min"], W[p + "output_max"])
        return x

    def grad_clip(weight_name):
        return min(c["gradient_clipping"], torch.finfo(kinds[weight_name]).max)

    def subsample_layer(x, mask, p):
        x = x * mask[:, None, :, None]
        x = F.conv2d(x, W[p + "conv.weight"], stride=(2, 2), padding=1)
        x = F.relu(F.layer_norm(x.permute(0, 2, 3, 1), (x.shape[1],), W[p + "norm.weight"], None, eps))
        return x.permute(0, 3, 1, 2), mask[:, ::2]

    def positions():
        n = h // 2
        inv = torch.exp(torch.arange(n, dtype=torch.float64) * -(math.log(1.0e4) / max(n - 1, 1)))
        scaled = torch.arange(context // 2, -1, -1, dtype=torch.float64)[:, None] * inv[None, :]
        return torch.cat([torch.sin(scaled), torch.cos(scaled)], dim=-1)

    def blocked_mask(valid):
        B, T = valid.shape
        q, k = torch.arange(T)[:, None], torch.arange(T)[None, :]
        dist = q - k
        window = ((dist >= 0) & (dist < past)) | ((dist < 0) & (-dist < future))
        mask4 = (window[None] & valid[:, None, :])[:, None].to(torch.float64)  # [B, 1, T, T]
        blocks = (T + chunk - 1) // chunk
        padded = blocks * chunk
        mask4 = F.pad(mask4, (0, padded - T, 0, padded - T))
        mask5 = F.pad(mask4.reshape(B, 1, blocks, chunk, padded), (past, future))
        kv = (torch.arange(blocks) * chunk)[:, None] + torch.arange(context)[None, :]
        kv = kv[None, None, :, None, :].expand(B, 1, -1, chunk, -1)
        return mask5.gather(-1, kv) > 0.5

    def to_blocks(x):
        B, T = x.shape[:2]
        blocks = (T + chunk - 1) // chunk
        return F.pad(x, (0, 0, 0, 0, 0, blocks * chunk - T)).reshape(B, blocks, chunk, heads, D)

    def block_context(x):
        x = F.pad(x, (0, 0, 0, 0, past, future + chunk - 1)).unfold(1, context, chunk)
        return torch.movedim(x, -1, 2)

    def rel_shift(x):
        B, H, blocks, width, rows = x.shape
        x = F.pad(x, (0, context + 1 - rows)).reshape(B, H, blocks, width * (context + 1))
        return x[..., :width * context].reshape(B, H, blocks, width, context)

    def attention(x, p, pe, mask5):
        B, T = x.shape[:2]
        q = clippable(x, p + "q_proj.").view(B, T, heads, D)
        k = clippable(x, p + "k_proj.").view(B, T, heads, D)
        v = clippable(x, p + "v_proj.").view(B, T, heads, D)
        q = q * (D ** -0.5 / math.log(2)) * F.softplus(W[p + "per_dim_scale"])
        k = k * (math.log(1 + math.e) / math.log(2))
        qb, kb, vb = to_blocks(q), block_context(k), block_context(v)
        blocks = qb.shape[1]
        rel_k = F.linear(pe, W[p + "relative_k_proj.weight"]).view(-1, heads, D)
        queries = qb.permute(0, 3, 1, 2, 4)
        ac = queries @ kb.permute(0, 3, 1, 4, 2)
        bd = queries.reshape(B, heads, -1, D) @ rel_k.permute(1, 2, 0)
        bd = rel_shift(bd.reshape(B, heads, blocks, chunk, -1))
        cap = c["attention_logit_cap"]
        logits = torch.tanh((ac + bd) / cap) * cap
        logits = logits.masked_fill(mask5.logical_not(), c["attention_invalid_logits_value"])
        out = torch.softmax(logits, dim=-1) @ vb.permute(0, 3, 1, 2, 4)
        out = out.permute(0, 2, 3, 1, 4).reshape(B, blocks * chunk, -1)[:, :T]
        return clippable(out, p + "post.")

    def feed_forward(x, p):
        g = grad_clip(p + "ffw_layer_1.linear.weight")
        y = rms(torch.clamp(x, -g, g), W[p + "pre_layer_norm.weight"])
        y = clippable(F.silu(clippable(y, p + "ffw_layer_1.")), p + "ffw_layer_2.")
        y = rms(torch.clamp(y, -g, g), W[p + "post_layer_norm.weight"])
        return x + y * c["residual_weight"]

    def light_conv(x, p):
        y = F.glu(clippable(rms(x, W[p + "pre_layer_norm.weight"], eps), p + "linear_start."), dim=-1)
        kernel = W[p + "depthwise_conv1d.weight"]
        y = F.conv1d(F.pad(y.transpose(1, 2), (kernel.shape[-1] - 1, 0)), kernel, groups=h).transpose(1, 2)
        g = grad_clip(p + "linear_start.linear.weight")
        y = rms(torch.clamp(y, -g, g), W[p + "conv_norm.weight"], eps)
        return x + clippable(F.silu(y), p + "linear_end.")

    x = torch.tensor(feats, dtype=torch.float64).unsqueeze(1)
    mask = torch.tensor(masks)
    s = tower + "subsample_conv_projection."
    x, mask = subsample_layer(x, mask, s + "layer0.")
    x, mask = subsample_layer(x, mask, s + "layer1.")
    x = x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1)
    x = F.linear(x, W[s + "input_proj_linear.weight"])
    pe, mask5 = positions(), blocked_mask(mask)
    for i in range(c["num_hidden_layers"]):
        p = f"{tower}layers.{i}."
        g = grad_clip(p + "norm_pre_attn.weight")
        x = feed_forward(x, p + "feed_forward1.")
        a = attention(rms(torch.clamp(x, -g, g), W[p + "norm_pre_attn.weight"]), p + "self_attn.", pe, mask5)
        x = x + rms(torch.clamp(a, -g, g), W[p + "norm_post_attn.weight"])
        x = light_conv(x, p + "lconv1d.")
        x = feed_forward(x, p + "feed_forward2.")
        x = rms(torch.clamp(x, -g, g), W[p + "norm_out.weight"])
    x = F.linear(x, W[tower + "output_proj.weight"], W[tower + "output_proj.bias"])
    soft = F.linear(rms(x, None, eps), W["model.embed_audio.embedding_projection.weight"])
    return [(x[b][mask[b]].numpy(), soft[b][mask[b]].numpy()) for b in range(len(feats))]


def with_audio_config(src, dst, **fields):
    """Copies model directory src to dst with audio_config fields replaced."""
    shutil.copytree(src, dst)
    path = os.path.join(dst, "config.json")
    cfg = json.load(open(path))
    cfg["audio_config"].update(fields)
    json.dump(cfg, open(path, "w"), indent=2)
    return dst


def batch(clips):
    """A padded batch, as the feature extractor pads to the longest clip: (features [B, T, mel], masks [B, T])."""
    T = max(len(f) for f, _ in clips)
    feats = np.stack([np.pad(f, ((0, T - len(f)), (0, 0))) for f, _ in clips])
    masks = np.stack([np.pad(m, (0, T - len(m))) for _, m in clips])
    return feats, masks


def check_torch(chk, models, clips, work):
    """The reference against the torch formulation, tower rows and soft tokens, to 1e-9 of their scale."""
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP torch cross-check: torch is not importable")
        return
    cases = [("whole clip", ["jfk"]), ("shorter than one chunk", ["short"]),
             ("padded batch", ["3s", "1.3s", "short"])]
    for model_name, model in models.items():
        for case, names in cases:
            if model_name != "tiny" and case == "whole clip":
                continue  # the variants run the shorter clips only, to keep the check quick
            theirs = torch_tower(model, *batch([clips[n] for n in names]))
            for name, (tower_rows, soft) in zip(names, theirs):
                ours = ref.audio_tower(model, *clips[name]), ref.soft_tokens(model, *clips[name])
                scale = max(1.0, float(np.max(np.abs(soft))), float(np.max(np.abs(tower_rows))))
                err = max(max_diff(ours[0], tower_rows), max_diff(ours[1], soft))
                chk.check(f"torch {model_name}, {case}, {name}", err <= 1e-9 * scale,
                          f"{len(soft)} soft tokens, max|x|={scale:.3f} max_abs_diff={err:.2e}")

    # transformers' blocks do not change the result; the chunk size enters only through the relative table's size
    # C//2: chunks 4 and 5 give the same table (4 past frames), chunk 6 one row more, moving every position by one.
    ours = ref.soft_tokens(models["tiny"], *clips["3s"])
    same, shifted = (torch_tower(with_audio_config(models["tiny"], os.path.join(work, f"chunk{w}"),
                                                   attention_chunk_size=w), *batch([clips["3s"]]))[0][1] for w in (5, 6))
    chk.check("torch chunk 5 = reference chunk 4 != torch chunk 6",
              max_diff(same, ours) <= 1e-9 < 1e-3 < max_diff(shifted, ours),
              f"chunk 5: {max_diff(same, ours):.1e}; chunk 6: {max_diff(shifted, ours):.1e}")


def check_streaming(chk, encode, feats, lookahead_frames, label):
    """Encoder frame j reads mel frames up to 4j + 3 through the subsampling, and the conformer layers reach
    lookahead_frames further encoder frames: a prefix of m valid mel frames fixes exactly the first
    m // 4 - lookahead_frames soft tokens. encode(features) gives the soft tokens of all-valid features."""
    whole = encode(feats)
    for m in (4 * 9, 4 * 9 + 1, 4 * 9 + 3, 4 * 20 + 2):
        prefix = encode(feats[:m])
        final = m // 4 - lookahead_frames
        same = max_diff(prefix[:final], whole[:final])
        moved = float(np.max(np.abs(prefix[final] - whole[final]))) if final < len(prefix) else math.inf
        chk.check(f"{label}: {m} mel frames fix exactly {final} of {len(prefix)} soft tokens",
                  same <= 1e-12 < 1e-6 < moved,
                  f"first {final}: {same:.1e}; " + (f"the next moves by {moved:.1e}" if final < len(prefix) else
                                                     "no token left"))


def torch_encoder(model_dir):
    """encode(features) for check_streaming through the torch formulation, or None without torch."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    return lambda feats: torch_tower(model_dir, feats[None], np.ones((1, len(feats)), dtype=bool))[0][1]


def check_invariants(chk, models, clips, work):
    """Properties the rules imply, on the reference alone."""
    tiny = ref.AudioModel(models["tiny"])
    feats, mask = clips["3s"]
    base = ref.soft_tokens(tiny, feats, mask)

    padded = batch([clips["3s"], clips["jfk"]])
    err = max_diff(ref.soft_tokens(tiny, padded[0][0], padded[1][0]), base)
    chk.check("padding frames after the clip change nothing", err <= 1e-12,
              f"{int(padded[1][0].sum())} valid of {padded[1].shape[1]} frames: {err:.1e}")

    # Streaming: the conformer looks no frame ahead with attention_context_right 0; with right context R each
    # layer looks R - 1 frames ahead (the mask keeps -d < R).
    right = with_audio_config(models["tiny"], os.path.join(work, "right2"), attention_context_right=2)
    for model, lookahead, label in ((models["tiny"], 0, "context_right 0"),
                                    (right, 2 * (2 - 1), "context_right 2, 2 layers")):
        loaded = ref.AudioModel(model)
        check_streaming(chk, lambda f: ref.soft_tokens(loaded, f), feats[mask], lookahead, label)
        encode = torch_encoder(model)
        if encode:
            check_streaming(chk, encode, feats[mask], lookahead, label + " (torch)")

    # The frame-by-frame form with rings gives the same tokens, each as soon as mel frame 4j + 3 is in; at the end
    # one token is left when the valid frames are not a multiple of 4, none when they are.
    released = ref.AudioModel(models["released context: chunk 12, left 13"])
    three = feats[mask]
    for name, model, valid in (("3s", tiny, three), ("3s cut to 296 frames", tiny, three[:296]),
                               ("short", tiny, clips["short"][0][clips["short"][1]]),
                               ("jfk", tiny, clips["jfk"][0][clips["jfk"][1]]),
                               ("3s, released context", released, three)):
        stream, tokens, seen = AudioStream(model), [], []
        for t, frame in enumerate(valid):
            out = stream.push(frame)
            tokens.append(out)
            seen += [t + 1] * len(out)
        tokens.append(stream.finish())
        seen += [None] * len(tokens[-1])
        tokens = np.concatenate(tokens)
        err = max_diff(tokens, ref.soft_tokens(model, valid))
        expected = [4 * j + 4 for j in range(len(valid) // 4)] + [None] * (len(tokens) - len(valid) // 4)
        chk.check(f"streaming {name} frame by frame", err <= 1e-12 and seen == expected,
                  f"{len(tokens)} tokens, {seen.count(None)} at the end, max_abs_diff={err:.1e}; token j after "
                  f"mel frame 4j + 3: {seen == expected}")

    # Perturbing one mel frame moves the first soft token that reads it (4j + 3 >= t) and none before it.
    for t in (4 * 7 + 3, 4 * 7 + 4):
        bumped = feats.copy()
        bumped[t] += 1.0
        diff = np.max(np.abs(ref.soft_tokens(tiny, bumped, mask) - base), axis=1)
        first, expected = int(np.argmax(diff > 1e-12)), -(-(t - 3) // 4)
        chk.check(f"mel frame {t} first moves soft token {expected}", first == expected and diff[first] > 1e-6,
                  f"first moved token {first}, by {diff[first]:.1e}; before it {np.max(diff[:first]):.1e}")

    for name, fields in (("soft-cap", {"attention_logit_cap": 1e9}), ("clipped linears",
                                                                      {"use_clipped_linears": False})):
        off = ref.soft_tokens(with_audio_config(models["tiny"], os.path.join(work, "off-" + name), **fields),
                              feats, mask)
        chk.check(f"turning off the {name} changes the output", max_diff(off, base) > 1e-2,
                  f"{max_diff(off, base):.2e}")
    stats = {}
    ref.audio_tower(tiny, feats, mask, stats)
    idle = [k for k, (ci, ni, co, no) in stats.items() if not (ci and co)]
    worst = min(min(ci / ni, co / no) for ci, ni, co, no in stats.values())
    chk.check("every clipped linear clamps inputs and outputs", not idle and len(stats) == 20,
              f"{len(stats)} linears, least clamped share {worst:.4f}" + (f"; idle: {idle}" if idle else ""))

    counts_ok = True
    for n_samples in list(range(0, 2000, 7)) + [176000, 480000]:
        n_valid = (n_samples - 1) // HOP if n_samples > HOP else 0
        # Gemma4Processor._compute_audio_num_tokens from the sample count: mel frames, two stride-2 convs, cap 750.
        t = (n_samples + HOP - 2 * HOP - 1) // HOP + 1
        for _ in range(2):
            t = (t + 2 - 3) // 2 + 1
        counts_ok &= ref.audio_token_count(n_valid) == (min(t, 750) if t > 0 else 0)
    for n_samples in (150, 200, 1300, 1700, 2657, 16000):
        f, m = features_of(np.sin(np.arange(n_samples) * 0.05))
        counts_ok &= int(m.sum()) == (n_samples - 1) // HOP  # frame t is valid iff sample 160t + 160 exists
        counts_ok &= len(ref.soft_tokens(tiny, f, m)) == ref.audio_token_count(int(m.sum()))
    chk.check("valid frames = (samples - 1) // 160; soft tokens = ceil(valid frames / 4) = the processor's count",
              counts_ok,
              f"jfk: {ref.audio_token_count(int(clips['jfk'][1].sum()))} tokens")

    cfg = json.load(open(os.path.join(models["tiny"], "config.json")))
    expanded = ref.expand_audio_tokens([2, 245, 7, 245], [3, 1], cfg)
    chk.check("expand_audio_tokens", expanded == [2, 244, 245, 245, 245, 246, 7, 244, 245, 246], str(expanded))


def check_refusals(chk, models, clips, work):
    """Bad inputs fail with one line naming the file and the problem, and the CLI writes nothing."""
    feats, mask = clips["3s"]
    paths = {}
    for name, array in (("features", feats), ("mask", mask), ("mel80", feats[:, :80]), ("short-mask", mask[:-1]),
                        ("one-frame-1d", feats[0]),
                        ("holey-mask", np.where(np.arange(len(mask)) == 5, False, mask)),
                        ("nan", np.where(np.arange(feats.size).reshape(feats.shape) == 7, np.nan, feats))):
        paths[name] = os.path.join(work, name + ".npy")
        np.save(paths[name], array)
    open(os.path.join(work, "text.npy"), "w").write("not an array\n")
    paths["text"] = os.path.join(work, "text.npy")
    text_only = os.path.join(work, "text-only")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain", "-o",
                    text_only], check=True)
    stub = os.path.join(work, "stub-tower")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain",
                    "--conditional", "-o", stub], check=True)
    tiny = models["tiny"]
    bound = "model.audio_tower.layers.1.self_attn.q_proj.input_max"
    wide_bound = _with_tensor(tiny, os.path.join(work, "bad-bound"), bound, np.array([1.0, 2.0]))

    def edited(name, **fields):
        return with_audio_config(tiny, os.path.join(work, "bad-" + name), **fields)
    cases = [
        ("hidden_act gelu", edited("gelu", hidden_act="gelu"), "features", None, "hidden_act 'gelu'"),
        ("3 heads over width 32", edited("heads", num_attention_heads=3), "features", None, "does not split"),
        ("one subsampling width", edited("channels", subsampling_conv_channels=[128]), "features", None,
         "subsampling_conv_channels"),
        ("attention_context_left 1", edited("left", attention_context_left=1), "features", None,
         "attention_context_left"),
        ("tensors of another width", edited("width", hidden_size=64), "features", None, "has shape"),
        ("a clip bound that is not a scalar", wide_bound, "features", None, bound),
        ("80 mel bins", tiny, "mel80", None, "80 mel bins"),
        ("1-D features", tiny, "one-frame-1d", None, "must be [frames, mel]"),
        ("a mask of another length", tiny, "features", "short-mask", "mask has shape"),
        ("a mask with a hole", tiny, "features", "holey-mask", "not a prefix"),
        ("NaN features", tiny, "nan", None, "NaN"),
        ("a file that is not .npy", tiny, "text", None, "not a .npy array"),
        ("a text-only model", text_only, "features", None, "no audio_config"),
        ("a stub audio tower", stub, "features", None, "is missing"),
    ]
    for name, model, features, mask_name, phrase in cases:
        out = os.path.join(work, "bad.npy")
        cmd = [sys.executable, os.path.join(HERE, "gemma4_audio_reference.py"), "soft-tokens", "--model", model,
               "--features", paths[features], "-o", out] + (["--mask", paths[mask_name]] if mask_name else [])
        run = subprocess.run(cmd, capture_output=True, text=True)
        lines = run.stderr.strip().splitlines()
        ok = run.returncode == 1 and len(lines) == 1 and phrase in lines[0] and not os.path.exists(out)
        named = paths[features] in lines[0] or model in lines[0] if lines else False
        chk.check(f"refuses {name}", ok and named, lines[0] if lines else "(no message)")

    try:
        AudioStream(models["right context 2"])
        chk.check("streaming refuses attention_context_right 2", False, "accepted")
    except ValueError as e:
        chk.check("streaming refuses attention_context_right 2", "config.json" in str(e), str(e))

    out = os.path.join(work, "good.npy")
    run = subprocess.run([sys.executable, os.path.join(HERE, "gemma4_audio_reference.py"), "soft-tokens", "--model",
                          tiny, "--features", paths["features"], "--mask", paths["mask"], "-o", out])
    err = max_diff(np.load(out), ref.soft_tokens(tiny, feats, mask)) if run.returncode == 0 else float("inf")
    chk.check("the CLI writes the soft tokens", err == 0.0, f"exit {run.returncode}, max_abs_diff={err:.1e}")


def _with_tensor(src, dst, name, array):
    """Copies model directory src to dst with tensor `name` replaced by array in the shard that holds it."""
    shutil.copytree(src, dst)
    index = json.load(open(os.path.join(dst, "model.safetensors.index.json")))["weight_map"]
    path = os.path.join(dst, index[name])
    dtype = read_model_dtypes(dst)[name]
    tensors = read_safetensors(path)
    tensors[name] = array
    write_safetensors(path, tensors, dtype)
    return dst


def main():
    """Builds the models and clips, runs every check, prints a verdict."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=None, help="where the models go (emptied first; default: a new temp dir)")
    ap.add_argument("--wav", default=JFK, help="16-bit 16 kHz speech of 11 s or more (default: ../shared's jfk.wav)")
    args = ap.parse_args()
    if not os.path.exists(args.wav):
        print(f"SKIP: {args.wav} is absent (needs ../shared)")
        return 77
    work = args.workdir or tempfile.mkdtemp(prefix="gemma4audioref_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    tiny = os.path.join(work, "tiny")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain", "--seed", "3",
                    "--conditional", "--audio", "-o", tiny], check=True)
    f16 = os.path.join(work, "tiny-f16")
    subprocess.run([sys.executable, os.path.join(HERE, "make_random_gemma4.py"), "--variant", "plain", "--seed", "4",
                    "--conditional", "--audio", "--dtype", "f16", "-o", f16], check=True)
    # Variants of the attention geometry, norms and clamps on the same weights (none of them changes a shape).
    models = {"tiny": tiny}
    for name, fields in (("released context: chunk 12, left 13", dict(attention_chunk_size=12,
                                                                       attention_context_left=13)),
                         ("right context 2", dict(attention_context_right=2)),
                         ("chunk 3 < past 5: no relative term at distance 0", dict(attention_chunk_size=3,
                                                                                   attention_context_left=6)),
                         ("chunk 8, left 3, right 1", dict(attention_chunk_size=8, attention_context_left=3,
                                                           attention_context_right=1)),
                         ("rms_norm_eps 0.5, residual_weight 0.3", dict(rms_norm_eps=0.5, residual_weight=0.3)),
                         ("no clipped linears", dict(use_clipped_linears=False))):
        models[name] = with_audio_config(tiny, os.path.join(work, f"variant{len(models)}"), **fields)
    models["f16, gradient_clipping 0.75"] = with_audio_config(f16, os.path.join(work, "f16-clip"),
                                                                gradient_clipping=0.75)

    pcm = audio_reference.read_wav_s16(args.wav)[0]
    clips = {"jfk": features_of(pcm), "3s": features_of(pcm[16000:64000]),
             "1.3s": features_of(pcm[40000:60800]), "short": features_of(pcm[20000:21700])}
    chk = Checker()
    check_torch(chk, models, clips, work)
    check_invariants(chk, models, clips, work)
    check_refusals(chk, models, clips, work)
    print("OK" if not chk.failed else f"FAILED: {', '.join(chk.failed)}")
    return 0 if not chk.failed else 1


if __name__ == "__main__":
    sys.exit(main())
