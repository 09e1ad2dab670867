"""Issue 30, acceptance 1 and part of 5: Gemma 4's audio tower compiled by Saguaro against the independent float64
numpy reference (test/reference/gemma4_audio_reference.py) on a tiny random checkpoint
(make_random_gemma4.py --conditional --audio: hidden 32, 2 layers, chunks of 4 encoder frames, clip bounds that
clamp, a logit cap of 3).

- Soft tokens of ../shared/data/audio/jfk.wav (11 s: 1099 valid mel frames, 275 soft tokens, many chunks) and of
  its first 2000 samples (12 frames, 3 soft tokens: shorter than one chunk), `saguaro encode --audio` on the generic
  target, equal the reference's of the same log-mel frames (`saguaro features audio --mel gemma4 --mask`) within
  1e-3 of the soft tokens' scale (their largest magnitude).
- `saguaro encode --features` of those valid frames gives the same soft tokens bit for bit.
- x86-avx2 (and x86-avx512vnni where the CPU has it) against generic within 1e-4 of the scale.
- Bad input, one line and exit 1, no output file: a file that is not a WAV, a WAV of 0 samples, audio to a model
  without an audio tower (its checkpoint has an audio_config but only a stub of the tower's tensors).
"""
import os
import wave

import numpy as np

import common

ATOL_SCALE = 1e-3  # soft tokens against the float64 reference, of their scale
ISA_RTOL = 1e-4    # ISA against generic, of the scale
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
    clips = {"jfk": jfk, "short": os.path.join(w, "short.wav"), "empty": os.path.join(w, "empty.wav")}
    write_wav(clips["short"], pcm[:SHORT_SAMPLES])
    write_wav(clips["empty"], [])

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    def encode(clip, *flags):
        out = os.path.join(w, f"{clip}-{'-'.join(flags)}.npy")
        common.run([args.saguaro, "encode", model, "--audio", clips[clip], "-o", out, *flags], args)
        return np.load(out)

    targets = [t for t, needs in (("x86-avx2", {"avx2", "fma", "f16c"}),
                                  ("x86-avx512vnni", {"avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw",
                                                      "avx512_vnni"}))
               if needs <= common.cpu_flags()]
    for clip in ("jfk", "short"):
        mel, mask = os.path.join(w, f"{clip}-mel.npy"), os.path.join(w, f"{clip}-mask.npy")
        common.run([args.saguaro, "features", "audio", clips[clip], "--mel", "gemma4", "-o", mel, "--mask", mask], args)
        ref_out = os.path.join(w, f"ref-{clip}.npy")
        common.run([common.python(), reference, "soft-tokens", "--model", model, "--features", mel, "--mask", mask,
                    "-o", ref_out], args)
        ref = np.load(ref_out)
        ours = encode(clip, "--target", "generic")
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
            diff = float(np.abs(encode(clip, "--target", target) - ours).max())
            check(f"{clip}: {target} against generic", diff <= ISA_RTOL * scale,
                  f"max difference {diff:.3g}, scale {scale:.3g}")

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
    refused("a model without an audio tower",
            [args.saguaro, "encode", text_only, "--audio", jfk, "-o", os.path.join(w, "x3.npy"), *generic],
            "text-only: the model has no audio tower")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
