"""Issue 30, acceptance 2: a WAV streamed into `saguaro encode --audio -` through a pipe, written in pieces of 1, 160,
1600 and 16000 samples, gives soft tokens bit-identical to the whole-file encode (`--audio FILE`), on the generic
target and the x86 ISA targets the CPU runs (tiny random Gemma 4 audio tower, make_random_gemma4.py --audio).
The log-mel frames are made as the samples arrive (runtime-min/frontends/audio LogMelStream); the unit tests
audio.StreamPieces and audio.WavPieces check the frames and samples piece by piece.

Bad input on standard input, one line and exit 1, nothing written: bytes that are not a WAV, no bytes, a header
without a data chunk, audio too short for a mel frame.
"""
import os
import subprocess
import sys
import wave

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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
