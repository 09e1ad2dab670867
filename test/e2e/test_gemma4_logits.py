"""Issue 28, acceptance 1 and 2: tiny random Gemma 4 text decoders (test/reference/make_random_gemma4.py) compiled
by Saguaro give the logits of the independent float64 numpy reference (test/reference/gemma4_reference.py) within
1e-3 absolute, over 24 positions (past the sliding window of 8), with a float32 KV cache on the generic target.

- `full` (every feature at once: per-layer embeddings, KV-shared layers, attention_k_eq_v, double-wide MLPs,
  proportional RoPE, two head dims, layer_scalar, final soft-cap) and `plain`, as Gemma4ForCausalLM in float32:
  a whole prefill (one call of 24 rows, three times the window), token by token (--prefill-chunk 1: the prefill
  entry of one row, whose kernel calls are checked to be the decode entry's, call for call) and in calls of 5 rows
  (across the window boundary and the end of the sliding layers' ring of 8 positions); the last two equal the whole
  prefill bit for bit. `full` also with a binary16 KV cache against a reference that
  rounds K and V the same way, within 5e-3: a value within a float32 rounding of a binary16 tie rounds the other
  way (over six seeds up to 1.4e-3, where the binary16 cache itself moves the logits by 3e-3 to 4e-2), and in calls
  of 5 rows bit for bit as in one.
- `full` as Gemma4ForConditionalGeneration (nested text_config, model.language_model., bfloat16, two shards with an
  index, the shared layers' unread K/V and a stub audio tower present): within 1e-3 of the reference, bit-identical
  to the same bfloat16 weights saved as Gemma4ForCausalLM, and the compile says in one line each which towers it
  compiles and how many tensors it did not read.
- `saguaro synth` of the full model's config writes every tensor the importer reads: it compiles, and its logits
  are the reference's.
- x86-avx2 (and x86-avx512vnni where the CPU has it) against generic within the ISA tolerance the other logits
  tests use, 1e-4 of the logits' scale (docs/internals.md, "x86 AVX2 kernels"), and against the reference; `full`
  also in calls of 5 rows.
"""
import os
import re

import numpy as np

import common
import compare_logits

TOKENS = 24      # the tiny models' sliding window is 8
CHUNK = 5        # prefill rows per call in the chunked runs: calls straddle the window and the ring's end
ATOL = 1e-3      # against the float64 reference
ATOL_KV_F16 = 5e-3  # against the reference that rounds K and V to binary16 too
ISA_RTOL = 1e-4  # ISA against generic, of the logits' scale


def main():
    args = common.parse_args()
    w = args.work_dir
    make = common.reference_script(args, "make_random_gemma4.py")
    models = {
        "full": [],
        "plain": ["--variant", "plain"],
        "full-bf16": ["--dtype", "bf16"],
        "full-conditional": ["--conditional"],
    }
    for name, extra in models.items():
        variant = [] if "--variant" in extra else ["--variant", "full"]
        common.run([common.python(), make, *variant, *extra, "-o", os.path.join(w, name), "--seed", "3"], args)
    ids = os.path.join(w, "ids.txt")
    open(ids, "w").write(" ".join(str((i * 37 + 11) % 256) for i in range(TOKENS)) + "\n")

    refs = {}
    for name, kv in (("full", "f32"), ("plain", "f32"), ("full-conditional", "f32"), ("full", "f16")):
        refs[name, kv] = os.path.join(w, f"ref-{name}-{kv}.npy")
        ref = common.run([common.python(), common.reference_script(args, "gemma4_reference.py"), os.path.join(w, name),
                          "--token-ids", ids, "-o", refs[name, kv], "--kv-cache", kv], args)
        if name == "full-conditional":
            unread = re.search(r"(\d+) tensors in the files are not read", ref.stderr.decode()).group(1)

    def logits(name, tag, *flags, kv="f32"):
        """Compiles model `name` into bundle `tag` and writes its logits of the ids; returns (npy path, stderr)."""
        bundle, out = os.path.join(w, tag), os.path.join(w, f"{tag}.npy")
        compiled = common.run([args.saguaro, "compile", os.path.join(w, name), "-o", bundle, "--kv-cache", kv,
                               *flags], args)
        common.run([args.saguaro, "logits", bundle, "--token-ids", ids, "-o", out], args)
        return out, compiled.stderr.decode()

    def check(what, ours, ref, **tolerance):
        ok, msg = compare_logits.compare(np.load(ours), np.load(ref), **tolerance)
        print(f"{what}: {msg}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    generic = {}
    for name in ("full", "plain"):
        generic[name], _ = logits(name, f"{name}-generic", "--target", "generic")
        check(f"{name}, whole prefill", generic[name], refs[name, "f32"], rtol_scale=0, atol=ATOL)
        tokenwise, _ = logits(name, f"{name}-tokenwise", "--target", "generic", "--prefill-chunk", "1")
        check_decode_is_prefill_of_one_row(os.path.join(w, f"{name}-tokenwise", "model.cpp"))
        check(f"{name}, token by token", tokenwise, refs[name, "f32"], rtol_scale=0, atol=ATOL)
        # Chunks of 5 rows: their calls straddle the window of 8 and the end of the sliding layers' ring of 8
        # (positions 5-9, 10-14, ...). A position's logits do not depend on how the sequence is cut into calls.
        chunked, _ = logits(name, f"{name}-chunk5", "--target", "generic", "--prefill-chunk", str(CHUNK))
        check(f"{name}, prefill in chunks of {CHUNK}", chunked, refs[name, "f32"], rtol_scale=0, atol=ATOL)
        same_bits(f"{name}: token by token and chunks of {CHUNK}", [tokenwise, chunked], generic[name])
    f16, _ = logits("full", "full-kv-f16", "--target", "generic", kv="f16")
    check("full, binary16 KV cache", f16, refs["full", "f16"], rtol_scale=0, atol=ATOL_KV_F16)
    f16_chunked, _ = logits("full", "full-kv-f16-chunk5", "--target", "generic", "--prefill-chunk", str(CHUNK),
                            kv="f16")
    same_bits(f"full, binary16 KV cache: chunks of {CHUNK}", [f16_chunked], f16)

    conditional, log = logits("full-conditional", "full-conditional", "--target", "generic")
    check("Gemma4ForConditionalGeneration (bf16, 2 shards)", conditional, refs["full-conditional", "f32"],
          rtol_scale=0, atol=ATOL)
    causal, _ = logits("full-bf16", "full-bf16", "--target", "generic")
    if not np.array_equal(np.load(conditional), np.load(causal)):
        raise SystemExit("FAIL: the Gemma4ForConditionalGeneration layout gives other logits than the same weights "
                         "as Gemma4ForCausalLM")
    print("Gemma4ForConditionalGeneration: bit-identical to the same bfloat16 weights as Gemma4ForCausalLM")
    model = os.path.join(w, "full-conditional")
    for line in (f"saguaro: {model}: Gemma4ForConditionalGeneration: compiling its text decoder; it has no "
                 "vision_config, and the audio tower is left out",
                 f"saguaro: {model}: {unread} tensors in the files are not read by the text decoder (ignored)"):
        if line not in log.splitlines():
            raise SystemExit(f"FAIL: the compile did not log {line!r}: {log}")
        print(f"logged: {line}")

    synth = os.path.join(w, "synth")
    common.run([args.saguaro, "synth", os.path.join(w, "full", "config.json"), "-o", synth], args)
    refs["synth", "f32"] = os.path.join(w, "ref-synth.npy")
    common.run([common.python(), common.reference_script(args, "gemma4_reference.py"), synth, "--token-ids", ids,
                "-o", refs["synth", "f32"]], args)
    ours, _ = logits("synth", "synth", "--target", "generic")
    check("saguaro synth of the full config", ours, refs["synth", "f32"], rtol_scale=0, atol=ATOL)

    flags = common.cpu_flags()
    targets = [t for t, needs in (("x86-avx2", {"avx2", "fma", "f16c"}),
                                  ("x86-avx512vnni", {"avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw",
                                                      "avx512_vnni"}))
               if needs <= flags]
    for target in targets:
        for name in ("full", "plain"):
            ours, _ = logits(name, f"{name}-{target}", "--target", target)
            check(f"{name}, {target} against generic", ours, generic[name], rtol_scale=ISA_RTOL)
            check(f"{name}, {target} against the reference", ours, refs[name, "f32"], rtol_scale=0, atol=ATOL)
        ours, _ = logits("full", f"full-{target}-chunk5", "--target", target, "--prefill-chunk", str(CHUNK))
        check(f"full, {target}, chunks of {CHUNK}, against generic", ours, generic["full"], rtol_scale=ISA_RTOL)
    for target in {"x86-avx2", "x86-avx512vnni"} - set(targets):
        print(f"{target}: not run (this CPU lacks its extensions)")


def same_bits(what, paths, want):
    """Fails unless the logits in every npy of `paths` equal those in `want` bit for bit."""
    for path in paths:
        if not np.array_equal(np.load(path), np.load(want)):
            raise SystemExit(f"FAIL: {what}: {path} differs from {want}")
    print(f"{what}: the whole prefill's logits bit for bit")


def kernel_calls(source, entry):
    """The kernel calls of function `entry` in model.cpp with variables and runtime row counts blanked: the callee,
    its template arguments and its literal arguments, in order."""
    body = source[source.index(f"void {entry}("):]
    body = body[:body.index("\n}\n")]
    calls = re.findall(r"saguaro::kernels::(\w+<[^>]*>)\((.*)\);", body)
    # Variables are named after what they hold (the names differ between entries where a value is a parameter in
    # one and a literal in the other): a decode entry passes the row count 1 and all_logits false as literals where
    # prefill passes its parameters.
    blank = lambda arg: "_" if re.fullmatch(r"[A-Za-z_]\w*|1", arg) else arg
    return [(callee, [blank(a) for a in arg_list.split(", ")]) for callee, arg_list in calls]


def check_decode_is_prefill_of_one_row(model_cpp):
    """Token-by-token logits come from the prefill entry of one row: it must be the decode entry call for call."""
    source = open(model_cpp).read()
    prefill, decode = (kernel_calls(source, f"saguaro_model_{e}") for e in ("prefill", "decode"))
    if not decode or prefill != decode:
        raise SystemExit(f"FAIL: {model_cpp}: the one-row prefill entry does not call the decode entry's kernels")
    print(f"prefill of one row = decode: the same {len(decode)} kernel calls")


if __name__ == "__main__":
    main()
