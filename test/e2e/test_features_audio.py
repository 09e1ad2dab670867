"""`saguaro features audio` and `saguaro bench audio` against references: openai/whisper's own jfk
features and stats (../shared/data/audio), the independent numpy oracle test/reference/audio_reference.py
(Whisper and Gemma 4 conventions, Gemma 4's frame mask, tone levels by FFT), every WAV sample format, the resampler's measured
passband and aliasing through the CLI, and one-line errors without partial output for malformed files."""
import json
import os
import struct

import numpy as np

import common
import audio_reference as oracle


def features(args, wav, out, *flags, check=True):
    return common.run([args.saguaro, "features", "audio", wav, "-o", out] + list(flags), args, check=check)


def compare(name, got, want, tol):
    if got.shape != want.shape:
        raise SystemExit(f"FAIL: {name}: shape {got.shape}, expected {want.shape}")
    err = np.abs(got.astype(np.float64) - want)
    if err.max() > tol:
        raise SystemExit(f"FAIL: {name}: max abs error {err.max():.3g} > {tol}")
    print(f"{name}: max abs error {err.max():.3g}, mean {err.mean():.3g}")


def check_oracle(ref_dir, jfk):
    """The oracle must reproduce openai/whisper before it may judge anything."""
    filters = np.load(os.path.join(ref_dir, "mel_filters.npz"))
    for n in (80, 128):
        diff = np.abs(oracle.slaney_mel_filters(16000, 400, n) - filters[f"mel_{n}"]).max()
        if diff > 1e-8:
            raise SystemExit(f"FAIL: oracle Slaney filters mel_{n} differ from whisper's by {diff}")
    compare("oracle whisper-80 vs openai/whisper", oracle.whisper_log_mel(jfk, 80),
            np.load(os.path.join(ref_dir, "jfk_logmel80_unpadded.npy")), 1e-3)


def check_stats(name, got, stats):
    want = (stats["min"], stats["max"], stats["mean"])
    have = (float(got.min()), float(got.max()), float(got.astype(np.float64).mean()))
    if list(got.shape) != stats["shape"] or any(abs(h - w) > t for h, w, t in zip(have, want, (1e-4, 1e-4, 1e-6))):
        raise SystemExit(f"FAIL: {name}: shape {got.shape} min/max/mean {have}, stats.json says {stats}")
    print(f"{name}: min/max/mean {have[0]:.6f} {have[1]:.6f} {have[2]:.7f} agree with stats.json")


def check_conventions(args, ref_dir, wav, jfk, work):
    stats = json.load(open(os.path.join(ref_dir, "stats.json")))
    reference80 = np.load(os.path.join(ref_dir, "jfk_logmel80_unpadded.npy"))
    cases = [("whisper-80", [], 80, False, "80_unpadded"), ("whisper-128", [], 128, False, "128_unpadded"),
             ("whisper-80", ["--pad-30s"], 80, True, "80_pad30s"), ("whisper-128", ["--pad-30s"], 128, True, "128_pad30s")]
    outputs = {}
    for mel, flags, n_mels, pad, key in cases:
        out = os.path.join(work, f"{mel}{'-30s' if pad else ''}.npy")
        features(args, wav, out, "--mel", mel, *flags)
        got = np.load(out)
        outputs[(mel, pad)] = got
        compare(f"CLI {mel}{' --pad-30s' if pad else ''} vs numpy oracle", got,
                oracle.whisper_log_mel(jfk, n_mels, pad), 1e-3)
        check_stats(f"CLI {mel}{' --pad-30s' if pad else ''}", got, stats[key])
    compare("CLI whisper-80 vs openai/whisper jfk_logmel80_unpadded.npy", outputs[("whisper-80", False)], reference80, 1e-3)

    # preprocessor_config.json selects and refines the convention.
    v3 = os.path.join(work, "whisper-large-v3.json")
    json.dump({"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 128, "hop_length": 160,
               "n_fft": 400, "n_samples": 480000, "sampling_rate": 16000, "chunk_length": 30}, open(v3, "w"))
    out = os.path.join(work, "v3.npy")
    features(args, wav, out, "--config", v3, "--pad-30s")
    if not np.array_equal(np.load(out), outputs[("whisper-128", True)]):
        raise SystemExit("FAIL: --config whisper-large-v3 differs from --mel whisper-128 --pad-30s")
    g4 = os.path.join(work, "gemma4.json")
    json.dump({"feature_extractor_type": "Gemma4AudioFeatureExtractor", "feature_size": 128, "sampling_rate": 16000,
               "frame_length": 320, "hop_length": 160, "fft_length": 512, "min_frequency": 0.0,
               "max_frequency": 8000.0, "mel_floor": 0.001, "preemphasis": 0.0, "dither": 0.0,
               "input_scale_factor": 1.0, "per_bin_mean": None, "per_bin_stddev": None}, open(g4, "w"))
    features(args, wav, out, "--config", g4)
    gemma4 = os.path.join(work, "gemma4.npy")
    features(args, wav, gemma4, "--mel", "gemma4")
    if not np.array_equal(np.load(out), np.load(gemma4)):
        raise SystemExit("FAIL: --config Gemma4AudioFeatureExtractor differs from --mel gemma4")
    print("--config: Whisper large-v3 and Gemma 4 preprocessor configs select the same features as the presets")
    return outputs[("whisper-80", False)]


def check_gemma4(args, jfk, work):
    """--mel gemma4 against the numpy Gemma4AudioFeatureExtractor: input_features [frames, 128] within
    1e-3 (log-mel values span about -6.9 .. 4) and input_features_mask exactly, for jfk, a clip shorter
    than one attention chunk (48 frames) whose last frame covers padding, and exactly 30 s (the limit)."""
    clips = {"jfk": jfk, "jfk-0.25s": jfk[48000:52000], "jfk-30s": np.resize(jfk, oracle.N_SAMPLES_30S)}
    for name, x in clips.items():
        wav, out, mask = (os.path.join(work, f"{name}{suffix}") for suffix in (".wav", ".npy", "-mask.npy"))
        oracle.write_wav(wav, x, 16000, "s16")  # jfk's own int16 values: bit-exact
        features(args, wav, out, "--mel", "gemma4", "--mask", mask)
        want, want_mask = oracle.gemma4_features(x)
        got_mask = np.load(mask)
        if got_mask.dtype != np.bool_ or not np.array_equal(got_mask, want_mask):
            raise SystemExit(f"FAIL: gemma4 {name}: mask {got_mask.dtype} with {got_mask.sum()} of {got_mask.size} "
                             f"frames set, expected {want_mask.sum()} of {want_mask.size}")
        compare(f"CLI gemma4 {name} ({len(x)} samples, {want_mask.sum()} of {len(want_mask)} frames real) "
                "vs numpy Gemma4AudioFeatureExtractor", np.load(out), want, 1e-3)
    if clips["jfk-0.25s"].size != 4000 or oracle.gemma4_features(clips["jfk-0.25s"])[1].all():
        raise SystemExit("FAIL: the short clip must end in a frame of padding")


def check_formats(args, jfk, expected, work):
    """The same samples as float32 stereo, 24-bit PCM and WAVE_FORMAT_EXTENSIBLE float give the same features."""
    variants = {
        "f32-stereo": lambda p: oracle.write_wav(p, jfk, 16000, "f32", channels=2),
        "s24": lambda p: oracle.write_wav(p, jfk, 16000, "s24"),
        "f32-extensible-list": lambda p: write_extensible_with_list(p, jfk),
    }
    for name, write in variants.items():
        wav = os.path.join(work, f"jfk-{name}.wav")
        write(wav)
        out = os.path.join(work, f"jfk-{name}.npy")
        features(args, wav, out, "--mel", "whisper-80")
        if not np.array_equal(np.load(out), expected):
            raise SystemExit(f"FAIL: {name} WAV gives different features from the 16-bit original")
    print(f"sample formats {', '.join(variants)}: features identical to the 16-bit file")


def write_extensible_with_list(path, x):
    data = np.asarray(x, dtype="<f4").tobytes()
    guid = struct.pack("<H", 3) + bytes([0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71])
    fmt = struct.pack("<HHIIHHHHI", 0xFFFE, 1, 16000, 64000, 4, 32, 22, 32, 4) + guid
    body = (b"WAVE" + b"LIST" + struct.pack("<I", 7) + b"INFOabc\0" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
            + b"data" + struct.pack("<I", len(data)) + data)
    open(path, "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)


def check_resampling(args, work):
    """44.1 kHz tones through the CLI's resampler (--pcm-only), levels measured by the oracle's FFT."""
    passband = [50, 100, 440, 1000, 2000, 3000, 4000, 5000, 6000, 6500, 7000, 7200]
    aliasing = [8050, 8200, 8500, 9000, 10000, 12000, 14000, 16000, 18000, 20000, 22000]
    worst_pass, worst_alias = 0.0, -999.0
    for f in passband + aliasing:
        wav, pcm = os.path.join(work, f"tone{f}.wav"), os.path.join(work, f"tone{f}.npy")
        oracle.write_wav(wav, np.sin(2 * np.pi * f * np.arange(int(1.5 * 44100)) / 44100), 44100, "f32")
        features(args, wav, pcm, "--mel", "whisper-80", "--pcm-only")
        y = np.load(pcm)
        if y.shape != (1, 24000):
            raise SystemExit(f"FAIL: 1.5 s at 44.1 kHz resampled to {y.shape}, expected (1, 24000)")
        level, total = oracle.tone_levels(y, 16000, f)
        if f in passband:
            worst_pass = max(worst_pass, abs(level), key=abs)
        else:
            worst_alias = max(worst_alias, total)
    print(f"resampling 44.1 -> 16 kHz: passband 50 Hz..7.2 kHz within {worst_pass:.5f} dB, "
          f"aliases of 8.05..22 kHz tones at most {worst_alias:.1f} dB")
    if abs(worst_pass) > 0.1 or worst_alias > -60:
        raise SystemExit("FAIL: resampler misses 0.1 dB passband / -60 dB aliasing")


def lie_in_data_size(b):
    i = b.index(b"data")
    return b[:i + 4] + struct.pack("<I", 0x7FFFFFF0) + b[i + 8:]


def check_bad_inputs(args, good, work):
    """Each malformed file: exit 1, one stderr line naming the file and the problem, no output file."""
    wav = open(good, "rb").read()
    fmt_at = wav.index(b"fmt ")

    def fmt_field(offset, value, size="<H"):
        b = bytearray(wav)
        struct.pack_into(size, b, fmt_at + 8 + offset, value)
        return bytes(b)

    short_fmt = wav[:fmt_at + 4] + struct.pack("<I", 14) + wav[fmt_at + 8:fmt_at + 22] + b"data\0\0\0\0"
    cases = {
        "empty.wav": (b"", "is empty"),
        "text.wav": (b"hello, this is not audio at all\n", "not a WAV file"),
        "truncated-header.wav": (wav[:20], "'fmt ' chunk claims 16 bytes but only 0 remain"),
        "truncated-data.wav": (wav[:4000], "'data' chunk claims 352000 bytes but only"),
        "lying-data-size.wav": (lie_in_data_size(wav[:4000]), "'data' chunk claims 2147483632 bytes"),
        "short-fmt.wav": (short_fmt, "fmt chunk is too short (14 bytes"),
        "zero-channels.wav": (fmt_field(2, 0), "declares 0 channels"),
        "12-bit.wav": (fmt_field(14, 12), "unsupported 12-bit PCM"),
        "zero-rate.wav": (fmt_field(4, 0, "<I"), "sample rate of 0 Hz"),
        "huge-chunk.wav": (wav[:12] + b"LIST" + struct.pack("<I", 0xFFFFFFF0) + wav[12:], "'LIST' chunk claims 4294967280"),
        "riff-avi.wav": (wav[:8] + b"AVI " + wav[12:], "not WAVE"),
    }
    for name, (data, problem) in cases.items():
        path = os.path.join(work, name)
        open(path, "wb").write(data)
        expect_failure(args, [path, "--mel", "whisper-80"], path, problem, work)
    expect_failure(args, [os.path.join(work, "missing.wav"), "--mel", "gemma4"], "missing.wav", "cannot open", work)
    expect_failure(args, [work, "--mel", "gemma4"], work, "is a directory", work)
    expect_failure(args, [good, "--mel", "whisper-99"], "whisper-99", "unknown mel preset", work)
    bad_config = os.path.join(work, "bad_config.json")
    open(bad_config, "w").write('{"feature_extractor_type": "Wav2Vec2FeatureExtractor"}')
    expect_failure(args, [good, "--config", bad_config], bad_config, "not supported", work)
    print(f"{len(cases) + 4} malformed inputs: one-line errors naming the file, exit 1, no output written")
    check_gemma4_bad_inputs(args, cases, work)


def check_gemma4_bad_inputs(args, cases, work):
    """--mel gemma4 --mask: the same one-line refusals, and neither output file, for a file that is not a
    WAV, a lying header, no samples, and audio over Gemma 4's 30 s (750 soft tokens), which is refused
    rather than cut, from the header of a 3-hour file and from the samples of 30 s + 1."""
    def s16_mono_16k(data_bytes):  # the header of a 16 kHz mono 16-bit WAV whose data chunk follows
        fmt = struct.pack("<HHIIHH", 1, 1, 16000, 32000, 2, 16)
        return (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data"
                + struct.pack("<I", data_bytes))

    three_hours = os.path.join(work, "three-hours.wav")
    with open(three_hours, "wb") as f:  # 3 h of silence, sparse on disk
        n = 3 * 3600 * 16000 * 2
        f.write(s16_mono_16k(n))
        f.truncate(44 + n)
    over = os.path.join(work, "30s-plus-one.wav")
    oracle.write_wav(over, np.zeros(oracle.N_SAMPLES_30S + 1), 16000, "s16")
    no_samples = os.path.join(work, "no-samples.wav")
    open(no_samples, "wb").write(s16_mono_16k(0))
    refusals = [(os.path.join(work, "text.wav"), cases["text.wav"][1]),
                (os.path.join(work, "lying-data-size.wav"), cases["lying-data-size.wav"][1]),
                (no_samples, "has no audio samples"),
                (three_hours, "is 10800.00 s long; at most 30.00 s is accepted (longer audio is refused, not cut)"),
                (over, "is 30.00 s long; at most 30.00 s is accepted")]
    mask = os.path.join(work, "must-not-exist-mask.npy")
    for path, problem in refusals:
        expect_failure(args, [path, "--mel", "gemma4", "--mask", mask], path, problem, work)
    expect_failure(args, [no_samples, "--mel", "whisper-80", "--pad-30s"], no_samples, "has no audio samples", work)
    expect_failure(args, [no_samples, "--mel", "whisper-80", "--mask", mask], "--mask", "Whisper", work)
    print(f"--mel gemma4: {len(refusals)} refusals (not a WAV, lying header, no samples, 3 hours, 30 s + 1 "
          "sample) with one line, exit 1, neither output nor mask written")


def expect_failure(args, argv, name, problem, work):
    out = os.path.join(work, "must-not-exist.npy")
    proc = common.run([args.saguaro, "features", "audio"] + argv + ["-o", out], args, check=False)
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    if proc.returncode != 1 or len(err) != 1 or name not in err[0] or problem not in err[0]:
        raise SystemExit(f"FAIL: {argv}: exit {proc.returncode}, stderr {err}; wanted one line with {name!r} "
                         f"and {problem!r}")
    leftovers = [f for f in os.listdir(work) if f.startswith("must-not-exist")]
    if leftovers:
        raise SystemExit(f"FAIL: {argv} left {leftovers} behind")


def check_bench(args, wav):
    for argv in (["--runs", "3", "--json"], [wav, "--runs", "3", "--json"]):
        proc = common.run([args.saguaro, "bench", "audio"] + argv, args)
        report = json.loads(proc.stdout)
        if report["frames"] != 3000 or report["audio_seconds"] != 30 or not report["best_ms"] > 0:
            raise SystemExit(f"FAIL: bench audio {argv} reported {report}")
        print(f"bench audio {' '.join(argv)}: best {report['best_ms']:.2f} ms, median {report['median_ms']:.2f} ms "
              "for 30 s (reported, not asserted)")


def main():
    args = common.parse_args()
    wav = common.require_shared(args, "data", "audio", "jfk.wav")
    ref_dir = os.path.dirname(wav)
    for f in ("jfk_logmel80_unpadded.npy", "mel_filters.npz", "stats.json"):
        common.require_shared(args, "data", "audio", f)
    jfk, rate = oracle.read_wav_s16(wav)
    assert rate == 16000
    check_oracle(ref_dir, jfk)
    expected80 = check_conventions(args, ref_dir, wav, jfk, args.work_dir)
    check_gemma4(args, jfk, args.work_dir)
    check_formats(args, jfk, expected80, args.work_dir)
    check_resampling(args, args.work_dir)
    bad_dir = os.path.join(args.work_dir, "bad")
    os.makedirs(bad_dir)
    check_bad_inputs(args, wav, bad_dir)
    check_bench(args, wav)


if __name__ == "__main__":
    main()
