"""Issue 30, acceptance 2: a WAV streamed into `saguaro encode --audio -` through a pipe, written in pieces of 1, 160,
1600 and 16000 samples, gives soft tokens bit-identical to the whole-file encode (`--audio FILE`), on the generic
target and the x86 ISA targets the CPU runs (tiny random Gemma 4 audio tower, make_random_gemma4.py --audio).
The log-mel frames are made as the samples arrive (runtime-min/frontends/audio LogMelStream); the unit tests
audio.StreamPieces and audio.WavPieces check the frames and samples piece by piece.

The C API (saguaro_audio_begin / push / push_int16 / end / soft_tokens of the bundle's libsaguaro.so, through
ctypes), on the same targets: jfk.wav's 16-bit samples pushed in the same pieces, and as floats, give the same soft
tokens bit for bit. Its stream runs the tower's compiled step (saguaro_model_encode_audio_step) whenever a soft
token's frames are in, so this checks the step against the whole-clip entry on each target.

Bad input on standard input, one line and exit 1, nothing written: bytes that are not a WAV, no bytes, a header
without a data chunk, audio too short for a mel frame, more than 30 s. Through the C API, -1 and a message: a stream ended without
samples, one too short for a mel frame, a push past 30 s, a push after the end, a too small output buffer.
"""
import ctypes
import os
import subprocess
import sys
import wave

import numpy as np

import common

PIECES = (1, 160, 1600, 16000)  # samples per write


def main():
    args = common.parse_args()
    w = args.work_dir
    jfk = common.require_shared(args, "data", "audio", "jfk.wav")
    model = common.random_gemma4(args, os.path.join(w, "audio"), "plain", "--conditional", "--audio")
    with open(jfk, "rb") as f:
        wav = f.read()
    with wave.open(jfk, "rb") as f:
        width = f.getsampwidth() * f.getnchannels()
        header = len(wav) - f.getnframes() * width  # jfk.wav's data chunk is its last

    def streamed(target, piece):
        """Soft tokens of jfk.wav written into the pipe `piece` samples at a time (the header in one write)."""
        out = os.path.join(w, f"stream-{target}-{piece}.npy")
        env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(w, "cache"))
        proc = subprocess.Popen([args.saguaro, "encode", model, "--audio", "-", "-o", out, "--target", target],
                                stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        proc.stdin.write(wav[:header])
        for at in range(header, len(wav), piece * width):
            proc.stdin.write(wav[at:at + piece * width])
            proc.stdin.flush()
        proc.stdin.close()
        err = proc.stderr.read().decode(errors="replace")
        if proc.wait() != 0:
            sys.stderr.write(err)
            raise SystemExit(f"FAIL: streamed encode in pieces of {piece} on {target}")
        with open(out, "rb") as f:
            return f.read()

    targets = ["generic"] + [t for t, needs in (("x86-avx2", {"avx2", "fma", "f16c"}),
                                                ("x86-avx512vnni", {"avx2", "fma", "f16c", "avx512f", "avx512vl",
                                                                    "avx512bw", "avx512_vnni"}))
                             if needs <= common.cpu_flags()]
    for target in targets:
        whole = os.path.join(w, f"whole-{target}.npy")
        common.run([args.saguaro, "encode", model, "--audio", jfk, "-o", whole, "--target", target], args)
        with open(whole, "rb") as f:
            want = f.read()
        for piece in PIECES:
            same = streamed(target, piece) == want
            print(f"{target}: pieces of {piece} samples: {'bit-identical' if same else 'DIFFERENT'} to the whole file")
            if not same:
                raise SystemExit(f"FAIL: {target}, pieces of {piece}")

    for target in targets:
        check_c_api(args, model, wav[header:], os.path.join(w, f"whole-{target}.npy"), target)

    def refused(what, stdin_bytes, expect):
        out = os.path.join(w, "refused.npy")
        proc = common.run([args.saguaro, "encode", model, "--audio", "-", "-o", out, "--target", "generic"], args,
                          check=False, input=stdin_bytes)
        lines = proc.stderr.decode().strip().splitlines()
        print(f"refused: {what}: {lines[-1] if lines else '(nothing said)'}")
        if not (proc.returncode == 1 and lines and expect in lines[-1] and not os.path.exists(out)):
            raise SystemExit(f"FAIL: refused: {what}")

    refused("not a WAV", b"not audio at all\n", "standard input: is not a WAV file")
    refused("no bytes", b"", "standard input: is empty")
    refused("no data chunk", wav[:36], "standard input: has no data chunk")
    refused("too short for a mel frame", wav[:header + 160 * width], "standard input: audio of 160 samples")
    # A header claiming 3 hours (a data size of 0xFFFFFFFF: unknown) and 30 s + 1 sample of silence: refused as soon as
    # the sample past the limit arrives.
    too_long = bytearray(wav[:header])
    too_long[header - 4:header] = b"\xff\xff\xff\xff"
    refused("more than 30 s", bytes(too_long) + bytes(480001 * width), "at most 30.00 s is accepted")
    return 0


def check_c_api(args, model, pcm_bytes, whole, target):
    """Streams the 16-bit samples through the C API of a bundle for `target` in every piece size and as floats; the
    soft tokens must be the whole-file encode's on that target (`whole`) bit for bit. Then the C API's refusals."""
    bundle = os.path.join(args.work_dir, f"bundle-{target}")
    common.run([args.saguaro, "compile", model, "-o", bundle, "--target", target], args)
    common.run(["cmake", "-S", bundle, "-B", bundle + "/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
    common.run(["cmake", "--build", bundle + "/build"], args)
    lib = ctypes.CDLL(os.path.join(bundle, "build", "libsaguaro.so"))
    lib.saguaro_init.restype = ctypes.c_void_p
    lib.saguaro_init.argtypes = [ctypes.c_char_p]
    lib.saguaro_last_error.restype = ctypes.c_char_p
    lib.saguaro_audio_begin.restype = ctypes.c_void_p
    lib.saguaro_audio_begin.argtypes = [ctypes.c_void_p]
    for name, sample in (("saguaro_audio_push", ctypes.c_float), ("saguaro_audio_push_int16", ctypes.c_int16)):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.POINTER(sample), ctypes.c_size_t]
    lib.saguaro_audio_end.argtypes = [ctypes.c_void_p]
    lib.saguaro_audio_soft_tokens.restype = ctypes.c_long
    lib.saguaro_audio_soft_tokens.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]
    lib.saguaro_audio_destroy.argtypes = [ctypes.c_void_p]
    handle = lib.saguaro_init(bundle.encode())
    if not handle:
        raise SystemExit(f"FAIL: saguaro_init: {lib.saguaro_last_error().decode()}")
    want = np.load(whole)
    pcm16 = np.frombuffer(pcm_bytes, dtype="<i2").copy()
    pcm32 = (pcm16 / 32768.0).astype(np.float32)

    def error():
        return lib.saguaro_last_error().decode()

    def stream(samples, piece):
        """Soft tokens of `samples` pushed `piece` at a time; exits with FAIL on an error."""
        audio = lib.saguaro_audio_begin(handle)
        if not audio:
            raise SystemExit(f"FAIL: saguaro_audio_begin: {error()}")
        push, kind = ((lib.saguaro_audio_push_int16, ctypes.c_int16) if samples.dtype == np.int16
                      else (lib.saguaro_audio_push, ctypes.c_float))
        base = samples.ctypes.data
        for at in range(0, len(samples), piece):
            n = min(piece, len(samples) - at)
            if push(audio, ctypes.cast(base + at * samples.itemsize, ctypes.POINTER(kind)), n) != 0:
                raise SystemExit(f"FAIL: push: {error()}")
        tokens = lib.saguaro_audio_end(audio)
        floats = lib.saguaro_audio_soft_tokens(audio, None, 0)
        if tokens < 0 or floats < 0:
            raise SystemExit(f"FAIL: saguaro_audio_end: {error()}")
        out = np.zeros(floats, dtype=np.float32)
        lib.saguaro_audio_soft_tokens(audio, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), floats)
        lib.saguaro_audio_destroy(audio)
        return out.reshape(tokens, -1)

    for samples, kind in ((pcm16, "int16"), (pcm32, "float")):
        for piece in PIECES:
            got = stream(samples, piece)
            same = got.shape == want.shape and got.tobytes() == want.tobytes()
            print(f"C API, {target}, {kind} pieces of {piece} samples: {got.shape[0]} soft tokens, "
                  f"{'bit-identical' if same else 'DIFFERENT'} to the whole file")
            if not same:
                raise SystemExit(f"FAIL: C API, {target}, {kind} pieces of {piece}")

    def refused(what, steps, expect):
        """Runs steps(audio) on a new stream; the last call must return -1 with `expect` in the last error."""
        audio = lib.saguaro_audio_begin(handle)
        result = steps(audio)
        said = error()
        lib.saguaro_audio_destroy(audio)
        print(f"C API refused: {what}: {said}")
        if result != -1 or expect not in said:
            raise SystemExit(f"FAIL: C API refused: {what}")

    def push16(audio, samples):
        return lib.saguaro_audio_push_int16(audio, samples.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)),
                                            len(samples))

    refused("no samples", lib.saguaro_audio_end, "saguaro_audio_end: has no audio samples")
    refused("too short for a mel frame", lambda a: (push16(a, pcm16[:160]), lib.saguaro_audio_end(a))[1],
            "audio of 160 samples is too short")
    too_long = np.zeros(480001, dtype=np.int16)
    refused("past 30 s", lambda a: push16(a, too_long), "at most 30.00 s is accepted")
    refused("a push after the end", lambda a: (push16(a, pcm16), lib.saguaro_audio_end(a), push16(a, pcm16))[2],
            "saguaro_audio_push_int16: the audio stream has ended")
    refused("a too small buffer",
            lambda a: (push16(a, pcm16), lib.saguaro_audio_end(a),
                       lib.saguaro_audio_soft_tokens(a, (ctypes.c_float * 4)(), 4))[2], "do not fit in 4")


if __name__ == "__main__":
    raise SystemExit(main())
