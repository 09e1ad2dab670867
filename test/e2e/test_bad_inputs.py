"""Acceptance 6: damaged inputs give one line naming the file and the problem, a non-zero exit
code, no crash, and no output left behind as if valid; Gemma 4's refusals (issue 28, acceptance 5)."""
import json
import os
import shutil
import struct

import numpy as np

import common


def expect_error(args, cmd, must_name, must_say, leaves_no=None):
    """Runs cmd, which must fail cleanly with one line naming `must_name` and saying `must_say`."""
    proc = common.run(cmd, args, check=False)
    lines = [l for l in proc.stderr.decode(errors="replace").splitlines()
             if not l.startswith(("saguaro: compiling", "saguaro: building"))]
    if proc.returncode <= 0:
        raise SystemExit(f"FAIL: {cmd} exited with {proc.returncode} (expected a clean error exit)")
    if len(lines) != 1 or must_name not in lines[0] or must_say not in lines[0]:
        raise SystemExit(f"FAIL: expected one line naming {must_name!r} and saying {must_say!r}, got {lines}")
    if leaves_no and os.path.exists(leaves_no):
        raise SystemExit(f"FAIL: {leaves_no} was left behind after the error")
    print(f"ok: {lines[0]}")


def write_llama2c(path, dim=16, hidden=32, layers=2, heads=2, kv_heads=2, vocab=32, seq_len=8):
    """A small random llama2.c version-0 checkpoint with a shared classifier."""
    head = dim // heads
    floats = (vocab * dim + layers * (dim + 2 * dim * dim + 2 * dim * (kv_heads * head) + dim + 3 * hidden * dim)
              + dim + seq_len * head)
    data = np.random.default_rng(0).normal(0, 0.1, floats).astype(np.float32)
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", dim, hidden, layers, heads, kv_heads, vocab, seq_len))
        f.write(data.tobytes())


def gemma4_refusals(args, out):
    """Gemma 4 (issue 28, acceptance 5): what the compiler does not implement, an inconsistent config, a missing
    per-layer-embedding tensor and a shard the index names but the directory lacks are refused in one line."""
    w = os.path.join(args.work_dir, "gemma4")
    make = common.reference_script(args, "make_random_gemma4.py")
    full, conditional = os.path.join(w, "full"), os.path.join(w, "conditional")
    common.run([common.python(), make, "--variant", "full", "-o", full], args)
    common.run([common.python(), make, "--variant", "full", "--conditional", "-o", conditional], args)
    config = json.load(open(os.path.join(full, "config.json")))
    ple = "model.embed_tokens_per_layer.weight"

    def variant(tag, change=None, drop=None):
        """A copy of the full model with config.json changed by `change`, or without the tensor `drop`."""
        d = os.path.join(w, tag)
        os.makedirs(d)
        c = json.loads(json.dumps(config))
        if change:
            change(c)
        json.dump(c, open(os.path.join(d, "config.json"), "w"))
        st = os.path.join(full, "model.safetensors")
        if not drop:
            os.symlink(st, os.path.join(d, "model.safetensors"))
            return d
        blob = open(st, "rb").read()
        (n,) = struct.unpack("<Q", blob[:8])
        header = json.loads(blob[8:8 + n])
        del header[drop]
        text = json.dumps(header, separators=(",", ":")).encode()
        open(os.path.join(d, "model.safetensors"), "wb").write(
            struct.pack("<Q", n) + text + b" " * (n - len(text)) + blob[8 + n:])
        return d

    rope = lambda kind: lambda c: c["rope_parameters"][kind].update(rope_type="yarn")
    for tag, change, say in (
            ("moe", lambda c: c.update(enable_moe_block=True), "enable_moe_block"),
            ("bidirectional", lambda c: c.update(use_bidirectional_attention="all"),
             "use_bidirectional_attention 'all' is not supported"),
            ("rope-yarn", rope("full_attention"), "rope_type 'yarn' (full_attention) is not supported"),
            ("all-shared", lambda c: c.update(num_kv_shared_layers=8),
             "num_kv_shared_layers 8 must be at least 0 and below the 8 layers"),
            # The first two layers own K/V, both sliding: the shared full layers would have nothing to read.
            ("shared-no-owner", lambda c: c.update(num_kv_shared_layers=6),
             "KV-shared layer 2 (full_attention) has no earlier full_attention layer")):
        expect_error(args, [args.saguaro, "compile", variant(tag, change), "-o", out], "config.json", say,
                     leaves_no=out)
    d = variant("no-ple-table", drop=ple)
    expect_error(args, [args.saguaro, "compile", d, "-o", out], d, f"missing tensor '{ple}'", leaves_no=out)
    # The conditional layout: a refusal names config.json's text_config; a shard named in the index is absent.
    c = json.load(open(os.path.join(conditional, "config.json")))
    c["text_config"]["enable_moe_block"] = True
    moe = os.path.join(w, "conditional-moe")
    shutil.copytree(conditional, moe)
    json.dump(c, open(os.path.join(moe, "config.json"), "w"))
    expect_error(args, [args.saguaro, "compile", moe, "-o", out], "config.json: text_config", "enable_moe_block",
                 leaves_no=out)
    os.remove(os.path.join(moe, "model-00002-of-00002.safetensors"))
    json.dump(json.load(open(os.path.join(conditional, "config.json"))), open(os.path.join(moe, "config.json"), "w"))
    expect_error(args, [args.saguaro, "compile", moe, "-o", out], "model-00002-of-00002.safetensors",
                 "No such file or directory", leaves_no=out)


def main():
    args = common.parse_args()
    w = args.work_dir
    saguaro = args.saguaro
    out = os.path.join(w, "out")

    # A truncated llama2.c checkpoint (the healthy one compiles).
    good = os.path.join(w, "tiny.bin")
    write_llama2c(good)
    common.run([saguaro, "compile", good, "-o", os.path.join(w, "tiny-bundle")], args)
    truncated = os.path.join(w, "truncated.bin")
    open(truncated, "wb").write(open(good, "rb").read()[:2000])
    expect_error(args, [saguaro, "compile", truncated, "-o", out], truncated, "truncated", leaves_no=out)
    expect_error(args, [saguaro, "compile", os.path.join(w, "header-only.bin"), "-o", out],
                 "header-only.bin", "no such file", leaves_no=out)

    # Hugging Face models: a healthy one, then damaged copies.
    hf = os.path.join(w, "hf")
    common.run([common.python(), common.reference_script(args, "make_random_hf.py"), "--arch", "llama", "-o", hf],
               args)
    st = os.path.join(hf, "model.safetensors")
    blob = open(st, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    name = sorted(k for k in header if k != "__metadata__")[0]

    def damaged(tag, new_header=None, raw=None):
        d = os.path.join(w, tag)
        os.makedirs(d)
        for f in ("config.json",):
            open(os.path.join(d, f), "w").write(open(os.path.join(hf, f)).read())
        if raw is None:
            text = json.dumps(new_header).encode()
            text += b" " * (n - len(text)) if len(text) <= n else b""
            raw = struct.pack("<Q", len(text)) + text + blob[8 + n:]
        open(os.path.join(d, "model.safetensors"), "wb").write(raw)
        return d

    lying = dict(header)
    lying[name] = dict(header[name], data_offsets=[0, len(blob) * 2])
    d = damaged("lying-offsets", lying)
    expect_error(args, [saguaro, "compile", d, "-o", out], "model.safetensors", "data_offsets", leaves_no=out)
    d = damaged("lying-length", raw=struct.pack("<Q", 1 << 40) + blob[8:])
    expect_error(args, [saguaro, "compile", d, "-o", out], "model.safetensors", "header length", leaves_no=out)
    wrong_shape = dict(header)
    wrong_shape[name] = dict(header[name], shape=[3, 3])
    d = damaged("wrong-shape", wrong_shape)
    expect_error(args, [saguaro, "compile", d, "-o", out], "model.safetensors", "data_offsets span", leaves_no=out)

    # A weight too large for binary16: --bits 16 refuses it naming the tensor (float32 still compiles it).
    big = "model.layers.0.mlp.down_proj.weight"
    if header[big]["dtype"] != "F32":
        raise SystemExit(f"FAIL: expected a float32 {big}, got {header[big]['dtype']}")
    at = 8 + n + header[big]["data_offsets"][0] + 4 * 5
    d = damaged("too-big-for-half", raw=blob[:at] + struct.pack("<f", 1.0e5) + blob[at + 4:])
    expect_error(args, [saguaro, "compile", d, "-o", out, "--bits", "16"], big,
                 "cannot store in binary16: value 100000.000000 at element 5 does not fit binary16", leaves_no=out)
    common.run([saguaro, "compile", d, "-o", os.path.join(w, "too-big-f32")], args)

    # config.json problems.
    config = json.load(open(os.path.join(hf, "config.json")))
    for tag, change, say in (("missing-field", lambda c: c.pop("hidden_size"), "missing field 'hidden_size'"),
                             ("unknown-arch", lambda c: c.update(architectures=["MambaForCausalLM"]),
                              "unknown architecture 'MambaForCausalLM'"),
                             ("yarn-rope", lambda c: c.update(rope_scaling={"rope_type": "yarn", "factor": 4.0}),
                              "rope_scaling type 'yarn' is not supported"),
                             ("llama3-rope-bands", lambda c: c.update(rope_scaling={
                                 "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0,
                                 "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}),
                              "0 < low_freq_factor < high_freq_factor"),
                             # fuzz_hf_config: a layer count that sized the importer's tables ran it out of memory.
                             ("huge-layers", lambda c: c.update(num_hidden_layers=10**12),
                              "field 'num_hidden_layers' is 1000000000000, above the 4096 this compiler supports")):
        d = os.path.join(w, tag)
        os.makedirs(d)
        c = dict(config)
        change(c)
        json.dump(c, open(os.path.join(d, "config.json"), "w"))
        os.symlink(st, os.path.join(d, "model.safetensors"))
        expect_error(args, [saguaro, "compile", d, "-o", out], "config.json", say, leaves_no=out)

    # The configs fuzz_hf_config found (test/fuzz/regressions/): refused in one line before any weight is read.
    found = os.path.join(args.source_dir, "test", "fuzz", "regressions", "fuzz_hf_config")
    for name in sorted(os.listdir(found)):
        d = os.path.join(w, "fuzz-" + name)
        os.makedirs(d)
        shutil.copy(os.path.join(found, name), os.path.join(d, "config.json"))
        expect_error(args, [saguaro, "compile", d, "-o", out], "config.json", "above the 4096 this compiler supports",
                     leaves_no=out)

    # Quantization options: an unsupported bit width, a policy naming a tensor the model does not have.
    expect_error(args, [saguaro, "compile", hf, "-o", out, "--bits", "5"], hf, "--bits must be 1, 2, 3, 4, 16 (binary16) or 32 (float32), got 5",
                 leaves_no=out)
    # Code generation options outside their sets.
    expect_error(args, [saguaro, "compile", hf, "-o", out, "--kv-cache", "bf16"], hf,
                 "--kv-cache must be f16 or f32, got 'bf16'", leaves_no=out)
    expect_error(args, [saguaro, "compile", hf, "-o", out, "--cq-activations", "i4"], hf,
                 "--cq-activations must be f32 or i8, got 'i4'", leaves_no=out)
    policy = os.path.join(w, "policy.json")
    json.dump({"linear": 3, "model.layers.99.mlp.up_proj.weight": 2}, open(policy, "w"))
    expect_error(args, [saguaro, "compile", hf, "-o", out, "--policy", policy], "policy.json",
                 "names unknown tensor 'model.layers.99.mlp.up_proj.weight'", leaves_no=out)

    # A valid policy: kinds first, then named tensors override them (16: stored in binary16, 32: float32).
    good_policy = os.path.join(w, "good-policy.json")
    down, up = "model.layers.0.mlp.down_proj.weight", "model.layers.0.mlp.up_proj.weight"
    json.dump({"linear": 3, "embedding": 4, down: 16, up: 32}, open(good_policy, "w"))
    mixed = os.path.join(w, "mixed")
    common.run([saguaro, "compile", hf, "-o", mixed, "--policy", good_policy], args)
    manifest = json.load(open(os.path.join(mixed, "manifest.json")))
    chosen = {q["name"]: q["bits"] for q in manifest["quantized"]}
    dtype = {t["name"]: t["dtype"] for t in manifest["tensors"]}
    if chosen.get("model.embed_tokens.weight") != 4 or chosen.get("model.layers.0.self_attn.q_proj.weight") != 3 \
            or down in chosen or up in chosen or dtype.get(down) != "f16" or dtype.get(up) != "f32":
        raise SystemExit(f"FAIL: the policy was not applied as written: {chosen}, {dtype.get(down)}, {dtype.get(up)}")
    print(f"ok: policy applied to {len(chosen)} tensors, {down} in binary16, {up} in float32")

    # A blob with one flipped byte (in the tensor data, after the manifest) is refused at load.
    bundle = os.path.join(w, "bundle")
    common.run([saguaro, "compile", hf, "-o", bundle], args)
    ids = os.path.join(w, "ids.txt")
    open(ids, "w").write("1 2 3\n")
    common.run([saguaro, "logits", bundle, "--token-ids", ids, "-o", os.path.join(w, "ok.npy")], args)
    sgw = os.path.join(bundle, "weights.sgw")
    data = bytearray(open(sgw, "rb").read())
    data[len(data) - 100] ^= 0x01
    open(sgw, "wb").write(bytes(data))
    npy = os.path.join(w, "flipped.npy")
    expect_error(args, [saguaro, "logits", bundle, "--token-ids", ids, "-o", npy], "weights.sgw", "checksum",
                 leaves_no=npy)

    gemma4_refusals(args, out)


if __name__ == "__main__":
    main()
