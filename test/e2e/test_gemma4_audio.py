"""Issue 30, acceptance 1, 3 and part of 5: Gemma 4's audio tower compiled by Saguaro against the independent
float64 numpy reference (test/reference/gemma4_audio_reference.py) on a tiny random checkpoint
(make_random_gemma4.py --conditional --audio, bfloat16 in two shards: hidden 32, 2 layers, chunks of 4 encoder
frames, clip bounds that clamp, a logit cap of 3).

- Soft tokens of ../shared/data/audio/jfk.wav (11 s: 1099 valid mel frames, 275 soft tokens, many chunks) and of
  its first 2000 samples (12 frames, 3 soft tokens: shorter than one chunk), `saguaro encode --audio` on the generic
  target, equal the reference's of the same log-mel frames (`saguaro features audio --mel gemma4 --mask`) within
  1e-3 of the soft tokens' scale (their largest magnitude).
- `saguaro encode --features` of those valid frames gives the same soft tokens bit for bit.
- `saguaro synth` of the model's config.json writes the audio tower as well; its soft tokens of jfk equal the
  reference's of the synthesized files within 1e-3 of their scale.
- x86-avx2 (and x86-avx512vnni where the CPU has it) against generic within 1e-4 of the scale; and the tower
  quantized to CQ4 (--bits 4, its linears through the integer CQ products) runs: its soft tokens of jfk.wav are
  finite and correlated with the reference (a smoke check of the integer path; its error is the quantization's).
- `saguaro bench --audio --json` (one thread, generic) runs: 2999 frames, 750 soft tokens, a 752-token prefill,
  the encoder's MAC count equal to the one counted from the config, and the streamed clip's last step over the last
  token's 3 frames.
- Issue 30, acceptance 3: logits of a prompt holding jfk.wav (its placeholder expanded to begin-audio, 275 soft
  tokens, end-audio; the soft tokens from `saguaro encode` injected by `saguaro logits --soft-tokens`) equal the
  reference's (text decoder with the reference's own soft tokens in place) within 1e-3, float32 KV cache.
- Bad input, one line and exit 1, no output file: a file that is not a WAV, a WAV of 0 samples, one of 160 samples
  (no mel frame), audio to a model
  without an audio tower (its checkpoint has an audio_config but only a stub of the tower's tensors), soft tokens
  that do not match the audio placeholders.
"""
import json
import os
import shutil
import wave

import numpy as np

import common

ATOL_SCALE = 1e-3  # soft tokens against the float64 reference, of their scale
ISA_RTOL = 1e-4    # ISA against generic, of the scale
LOGITS_ATOL = 1e-3
SHORT_SAMPLES = 2000  # 12 valid mel frames: 3 encoder frames, less than the tiny tower's chunk of 4


def write_wav(path, samples):
    """16-bit mono 16 kHz PCM."""
    with wave.open(path, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(16000)
        f.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def main():
    args = common.parse_args()
    w = args.work_dir
    jfk = common.require_shared(args, "data", "audio", "jfk.wav")
    reference = common.reference_script(args, "gemma4_audio_reference.py")
    model = common.random_gemma4(args, os.path.join(w, "audio"), "plain", "--conditional", "--audio")
    text_only = common.random_gemma4(args, os.path.join(w, "text-only"), "plain", "--conditional")

    with wave.open(jfk, "rb") as f:
        pcm = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
    clips = {"jfk": jfk, "short": os.path.join(w, "short.wav"), "empty": os.path.join(w, "empty.wav"),
             "tiny": os.path.join(w, "tiny.wav")}
    write_wav(clips["short"], pcm[:SHORT_SAMPLES])
    write_wav(clips["empty"], [])
    write_wav(clips["tiny"], pcm[:160])  # no mel frame: a frame needs 161 samples

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    def encode(clip, *flags):
        """The path of the soft tokens `saguaro encode --audio` writes."""
        out = os.path.join(w, f"{clip}-{'-'.join(flags)}.npy")
        common.run([args.saguaro, "encode", model, "--audio", clips[clip], "-o", out, *flags], args)
        return out

    targets = [t for t, needs in (("x86-avx2", {"avx2", "fma", "f16c"}),
                                  ("x86-avx512vnni", {"avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw",
                                                      "avx512_vnni"}))
               if needs <= common.cpu_flags()]
    soft = {}  # clip -> its soft tokens on the generic target
    for clip in ("jfk", "short"):
        mel, mask = os.path.join(w, f"{clip}-mel.npy"), os.path.join(w, f"{clip}-mask.npy")
        common.run([args.saguaro, "features", "audio", clips[clip], "--mel", "gemma4", "-o", mel, "--mask", mask], args)
        ref_out = os.path.join(w, f"ref-{clip}.npy")
        common.run([common.python(), reference, "soft-tokens", "--model", model, "--features", mel, "--mask", mask,
                    "-o", ref_out], args)
        ref = np.load(ref_out)
        soft[clip] = encode(clip, "--target", "generic")
        ours = np.load(soft[clip])
        scale = float(np.abs(ref).max())
        err = float(np.abs(ours - ref).max()) if ours.shape == ref.shape else float("inf")
        check(f"{clip}: {ref.shape[0]} soft tokens of {int(np.load(mask).sum())} mel frames",
              err <= ATOL_SCALE * scale, f"max |ours - reference| {err:.3g}, scale {scale:.3g}")

        valid = os.path.join(w, f"{clip}-valid.npy")
        np.save(valid, np.load(mel)[np.load(mask)])
        given = os.path.join(w, f"{clip}-from-features.npy")
        common.run([args.saguaro, "encode", model, "--features", valid, "-o", given, "--target", "generic"], args)
        check(f"{clip}: --features of the valid frames", np.array_equal(np.load(given), ours), "bit-identical")
        for target in targets:
            diff = float(np.abs(np.load(encode(clip, "--target", target)) - ours).max())
            check(f"{clip}: {target} against generic", diff <= ISA_RTOL * scale,
                  f"max difference {diff:.3g}, scale {scale:.3g}")
        if clip == "jfk":
            cq4 = np.load(encode(clip, "--target", "generic", "--bits", "4"))
            corr = float(np.corrcoef(cq4.ravel(), ref.ravel())[0, 1]) if cq4.shape == ref.shape else 0.0
            check("jfk: CQ4 tower", np.isfinite(cq4).all() and corr > 0.9,
                  f"correlation with the reference {corr:.4f}, max |error| {float(np.abs(cq4 - ref).max()):.3g}")

    # `saguaro synth` of the model's config writes the audio tower too: it compiles, and its soft tokens of jfk's
    # frames equal the reference's of the synthesized files.
    synth = os.path.join(w, "synth")
    common.run([args.saguaro, "synth", os.path.join(model, "config.json"), "-o", synth], args)
    synth_ref, synth_ours = os.path.join(w, "ref-synth.npy"), os.path.join(w, "synth-soft.npy")
    common.run([common.python(), reference, "soft-tokens", "--model", synth, "--features",
                os.path.join(w, "jfk-mel.npy"), "--mask", os.path.join(w, "jfk-mask.npy"), "-o", synth_ref], args)
    common.run([args.saguaro, "encode", synth, "--features", os.path.join(w, "jfk-valid.npy"), "-o", synth_ours,
                "--target", "generic"], args)
    ref, ours_synth = np.load(synth_ref), np.load(synth_ours)
    scale = float(np.abs(ref).max())
    err = float(np.abs(ours_synth - ref).max()) if ours_synth.shape == ref.shape else float("inf")
    check("saguaro synth of the config: the audio tower's soft tokens of jfk", err <= ATOL_SCALE * scale,
          f"max |ours - reference| {err:.3g}, scale {scale:.3g}")

    # `saguaro bench --audio`: 30 s of frames through the tower and the prefill of its 752 tokens (a copy of the model
    # whose context holds them); the encoder's MACs as counted here from the config.
    long_ctx = os.path.join(w, "audio-1024")
    shutil.copytree(model, long_ctx, dirs_exist_ok=True)
    with open(os.path.join(long_ctx, "config.json")) as f:
        config = json.load(f)
    config["text_config"]["max_position_embeddings"] = 1024
    with open(os.path.join(long_ctx, "config.json"), "w") as f:
        json.dump(config, f)
    bench = common.run([args.saguaro, "bench", long_ctx, "--audio", "--threads", "1", "--target", "generic", "--json"],
                       args)
    report = json.loads(bench.stdout)
    row = report["results"][0]
    a, text = config["audio_config"], config["text_config"]
    d, c0, c1, layers = a["hidden_size"], *a["subsampling_conv_channels"], a["num_hidden_layers"]
    frames, tokens = 2999, 750
    macs = ((frames + 1) // 2 * 64 * c0 * 9 + tokens * 32 * c1 * c0 * 9 +
            tokens * (c0 // 4 * c1 * d + layers * 23 * d * d + a["output_proj_dims"] * (d + text["hidden_size"])) +
            layers * tokens * 3 * a["attention_context_left"] * d)
    ok = (row["bits"] == 4 and row["frames"] == frames and row["soft_tokens"] == tokens and row["encode_ms"] > 0 and
          row["prefill_ms"] > 0 and row["prefill_tokens"] == tokens + 2 and row["encoder_macs"] == macs and
          report["preprocess_ms"] > 0 and row["last_step_frames"] == 3 and row["last_step_ms"] > 0)
    check("bench --audio", ok, f"encoder {row['encode_ms']:.1f} ms, last step {row['last_step_ms']:.1f} ms, "
          f"prefill {row['prefill_ms']:.1f} ms, "
          f"{row['encoder_macs'] / 1e9:.3f} GMAC (counted here: {macs / 1e9:.3f}), log-mel of 30 s "
          f"{report['preprocess_ms']:.1f} ms")

    # A prompt holding the clip: the reference expands the placeholder and computes its own soft tokens.
    prompt, expanded = os.path.join(w, "prompt.txt"), os.path.join(w, "prompt-expanded.txt")
    open(prompt, "w").write("2 5 245 7 8 9\n")  # 245: the tiny models' audio placeholder
    ref_logits = os.path.join(w, "ref-logits.npy")
    common.run([common.python(), reference, "logits", "--model", model, "--features", os.path.join(w, "jfk-mel.npy"),
                "--mask", os.path.join(w, "jfk-mask.npy"), "--tokens", prompt, "-o", ref_logits, "--write-ids",
                expanded], args)
    ours = os.path.join(w, "logits.npy")
    logits_flags = ["--target", "generic", "--kv-cache", "f32", "--max-seq", "512"]
    common.run([args.saguaro, "logits", model, "--token-ids", expanded, "--soft-tokens", soft["jfk"], "-o", ours,
                *logits_flags], args)
    err = float(np.abs(np.load(ours) - np.load(ref_logits)).max())
    check(f"logits of a prompt holding jfk.wav ({len(open(expanded).read().split())} tokens)", err <= LOGITS_ATOL,
          f"max |ours - reference| {err:.3g}")

    # Bad input: one line naming the problem, exit 1, nothing written.
    def refused(what, cmd, expect):
        common.refused(args, what, cmd, expect)

    not_wav = os.path.join(w, "not.wav")
    open(not_wav, "w").write("not audio\n")
    generic = ["--target", "generic"]
    refused("not a WAV", [args.saguaro, "encode", model, "--audio", not_wav, "-o", os.path.join(w, "x1.npy"),
                          *generic], "not.wav")
    refused("0 samples", [args.saguaro, "encode", model, "--audio", clips["empty"], "-o", os.path.join(w, "x2.npy"),
                          *generic], "empty.wav")
    refused("too short for a mel frame", [args.saguaro, "encode", model, "--audio", clips["tiny"], "-o",
                                          os.path.join(w, "x5.npy"), *generic], "tiny.wav: the clip is too short")
    proc = common.run([args.saguaro, "bench", text_only, "--audio", "--threads", "1", "--target", "generic"], args,
                      check=False)
    said = proc.stderr.decode().strip().splitlines()
    check("refused: bench --audio of a model without an audio tower",
          proc.returncode == 1 and said and "needs a model with an audio tower" in said[-1],
          said[-1] if said else "(nothing said)")
    refused("a model without an audio tower",
            [args.saguaro, "encode", text_only, "--audio", jfk, "-o", os.path.join(w, "x3.npy"), *generic],
            "text-only: the model has no audio tower")
    refused("soft tokens that do not match the audio placeholders",
            [args.saguaro, "logits", model, "--token-ids", prompt, "--soft-tokens", soft["jfk"], "-o",
             os.path.join(w, "x4.npy"), *logits_flags], "1 audio placeholders but 275 soft tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
