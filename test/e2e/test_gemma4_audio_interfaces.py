"""Issue 30, interfaces and acceptance 5: audio through `saguaro run --audio`, the C API (`saguaro complete`, which
runs the bundle's saguaro_complete) and `saguaro serve`, on a tiny random Gemma 4 with an audio tower
(make_random_gemma4.py --conditional --audio, its audio ids moved to the chat-template fixture tokenizer's <|audio>
20, <audio|> 21, <|audio|> 22) and the Gemma 4 tokenizer and chat template fixture
(test/fixtures/chat_templates/gemma4/).

- The clip: the first 1.5 s of ../shared/data/audio/jfk.wav written at 32 kHz in stereo (the front-end mixes and
  resamples it to 16 kHz mono): 149 valid mel frames, 38 soft tokens.
- `run --audio`, greedy, writes the reference's continuation of the jinja2-rendered conversation
  (test/reference/render_chat_template.py, the clip as {"type": "audio"}): its next tokens, each the argmax of the
  float64 reference's logits (gemma4_audio_reference.py logits: the text decoder with the reference's own soft tokens
  of the clip's log-mel frames, `saguaro features audio --mel gemma4`), from a prefill of as many positions.
- The logits of that prompt (the soft tokens of `saguaro encode --audio` of the clip injected) equal the reference's
  within 1e-3.
- `complete` with the clip as an input_audio part (base64 WAV) and as Cactus' "audio": [path] answers that same text
  from the same prefill.
- `serve` answers input_audio the same text; refuses, with 400 and one line, a file path, a C API stream, mp3, not a
  WAV, lying headers, 0 samples, a 3-hour header, 31 s and bad base64, and keeps answering correctly afterwards;
  served from a model without an audio tower, refuses a clip with 400 and keeps answering text.
- `run` and `complete` refuse, with one line and exit 1: not a WAV, a data chunk larger than the file, a block align
  that does not match the format, 0 samples, 3 hours (a sparse file: the header's size is real, its samples are
  zeros never written), 31 s (the limit is 30 s: longer audio is refused, not cut; docs/gemma4-audio.md), and
  audio to a model without an audio tower.
"""
import base64
import json
import os
import struct
import wave

import numpy as np

import common

GREEDY = {"max_tokens": 6, "temperature": 0}
COMPILE = ["--target", "generic", "--kv-cache", "f32", "--max-seq", "128"]
RUN_TOKENS = 6
STOP_IDS = {1, 6}  # the chat-template fixture's eos_token_id (generation_config.json)
TOKENIZER_VOCAB = 225  # the fixture tokenizer's ids; the tiny models' vocabulary is 256
QUESTION = "What is said?"
LOGITS_ATOL = 1e-3
CLIP_SAMPLES = 24000  # 1.5 s at 16 kHz


def wav_bytes(samples, rate, channels=1, width=2, block_align=None, data_bytes=None):
    """A PCM WAV file: int16 (width 2) or uint8 (width 1) samples, interleaved; block_align and the data chunk's size
    as the header states them (by default the true ones)."""
    data = np.asarray(samples, dtype="<i2" if width == 2 else "u1").tobytes()
    align = channels * width if block_align is None else block_align
    size = len(data) if data_bytes is None else data_bytes
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * width, align, 8 * width)
    return (b"RIFF" + struct.pack("<I", 36 + size) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" +
            struct.pack("<I", size) + data)


def main():
    args = common.parse_args()
    w = args.work_dir
    jfk = common.require_shared(args, "data", "audio", "jfk.wav")
    reference = common.reference_script(args, "gemma4_audio_reference.py")
    model = common.chat_gemma4(args, os.path.join(w, "audio"), "--conditional", "--audio",
                               "--seed", "6")  # its greedy answer starts with text
    text_only = common.chat_gemma4(args, os.path.join(w, "text-only"), "--conditional")

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    # The clip at 32 kHz, stereo: each sample twice in time, the right channel at half the left.
    with wave.open(jfk, "rb") as f:
        pcm = np.frombuffer(f.readframes(CLIP_SAMPLES), dtype="<i2").astype(np.int32)
    left = np.repeat(pcm, 2)
    clip = os.path.join(w, "clip.wav")
    open(clip, "wb").write(wav_bytes(np.stack([left, left // 2], axis=1).ravel(), 32000, channels=2))
    clip_b64 = base64.b64encode(open(clip, "rb").read()).decode()
    mel, mask = os.path.join(w, "clip-mel.npy"), os.path.join(w, "clip-mask.npy")
    common.run([args.saguaro, "features", "audio", clip, "--mel", "gemma4", "-o", mel, "--mask", mask], args)

    # The oracle: jinja2's rendering of the conversation, tokenized, continued greedily by the float64 reference.
    rendered = common.run([common.python(), common.reference_script(args, "render_chat_template.py"),
                           os.path.join(model, "tokenizer_config.json"),
                           json.dumps([{"role": "user", "content": [{"type": "audio"},
                                                                    {"type": "text", "text": QUESTION}]}])],
                          args).stdout.decode()
    check("the rendering holds the audio placeholder", "<|audio|>" in rendered, repr(rendered))
    ids = common.run([args.saguaro, "tokenize", model, rendered], args).stdout.decode().split()
    continuation, positions, expected = common.greedy_reference(
        args, [common.python(), reference, "logits", "--model", model, "--features", mel, "--mask", mask], ids,
        RUN_TOKENS, STOP_IDS, TOKENIZER_VOCAB, model)

    proc = common.run([args.saguaro, "run", model, "-p", rendered, "--audio", clip, "-n",
                       str(positions + len(continuation)), "-t", "0", *COMPILE], args)
    out = proc.stdout.decode()
    run_prefill = int(proc.stderr.decode().split("prefill_tokens=")[1].split()[0])
    check(f"run --audio: {len(continuation)} greedy tokens after a {positions}-token prompt",
          out.rstrip("\n").endswith(expected) and run_prefill == positions,
          f"expected ...{expected!r}, the program printed ...{out.rstrip()[-60:]!r}; prefill {run_prefill} positions")

    # The logits of the prompt, the soft tokens of `saguaro encode --audio` injected, against the reference's.
    prompt_ids, expanded_ids = os.path.join(w, "prompt.txt"), os.path.join(w, "expanded.txt")
    open(prompt_ids, "w").write(" ".join(ids) + "\n")
    ref_logits, ours, soft = (os.path.join(w, name) for name in ("ref-logits.npy", "logits.npy", "soft.npy"))
    common.run([common.python(), reference, "logits", "--model", model, "--features", mel, "--mask", mask, "--tokens",
                prompt_ids, "-o", ref_logits, "--write-ids", expanded_ids], args)
    common.run([args.saguaro, "encode", model, "--audio", clip, "-o", soft, *COMPILE], args)
    common.run([args.saguaro, "logits", model, "--token-ids", expanded_ids, "--soft-tokens", soft, "-o", ours,
                *COMPILE], args)
    err = float(np.abs(np.load(ours) - np.load(ref_logits)).max())
    check(f"logits of the rendered prompt holding the clip ({positions} positions)", err <= LOGITS_ATOL,
          f"max |ours - reference| {err:.3g}")

    def complete(messages, on=model, check_rc=True):
        """`saguaro complete` of `messages`, given as a file (a clip's base64 outgrows a command-line argument)."""
        path = os.path.join(w, "messages.json")
        json.dump(messages, open(path, "w"))
        return common.run([args.saguaro, "complete", on, "--messages", path, "--options", json.dumps(GREEDY),
                           *COMPILE], args, check=check_rc)

    def input_audio(data, fmt="wav"):
        return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}

    def one_clip(data, fmt="wav"):
        return [{"role": "user", "content": [input_audio(data, fmt), {"type": "text", "text": QUESTION}]}]

    answers = {}
    for how, messages in (("an input_audio part", one_clip(clip_b64)),
                          ("Cactus' audio", [{"role": "user", "content": QUESTION, "audio": [clip]}])):
        r = json.loads(complete(messages).stdout)
        answers[how] = r["response"]
        check(f"complete, the clip as {how}: {r['response']!r}",
              r["response"] and r["response"].startswith(expected) and r["prefill_tokens"] == positions,
              f"the reference continues {expected!r}; prefill {r['prefill_tokens']} positions, {positions} in the "
              "reference's")
    answer = answers["an input_audio part"]

    # Bad clips: files for run and Cactus' audio, the same bytes as input_audio data.
    silence = np.zeros(16000 * 31 // 4, dtype=np.uint8) + 128
    bad = {
        "not a WAV": (b"this is not audio\n" * 8, "is not a WAV file"),
        "a data chunk larger than the file": (wav_bytes(pcm[:1600], 16000, data_bytes=10 ** 6),
                                              "'data' chunk claims 1000000 bytes but only 3200 remain"),
        "a block align that does not match": (wav_bytes(pcm[:1600], 16000, block_align=3),
                                              "block align 3 does not match 1 channels of 16 bits (2)"),
        "0 samples": (wav_bytes([], 16000), "has no audio samples"),
        "31 s": (wav_bytes(silence, 4000, width=1), "is 31.00 s long; at most 30.00 s is accepted"),
    }
    files = {}
    for k, (what, (data, _)) in enumerate(bad.items()):
        files[what] = os.path.join(w, f"bad{k}.wav")
        open(files[what], "wb").write(data)
    # 3 hours at 16 kHz: a true header over a sparse file (its 345,600,000 bytes of samples are never written).
    three_hours = os.path.join(w, "three-hours.wav")
    size = 3 * 3600 * 16000 * 2
    with open(three_hours, "wb") as f:
        f.write(wav_bytes([], 16000, data_bytes=size))
        f.truncate(44 + size)
    files["3 hours"] = three_hours
    file_expect = {what: expect for what, (_, expect) in bad.items()}
    file_expect["3 hours"] = "is 10800.00 s long; at most 30.00 s is accepted"

    def refused(what, proc, expect):
        """Exit 1 and a last line holding expect; `complete` says only that line and writes no response."""
        lines = proc.stderr.decode().strip().splitlines()
        quiet = len(lines) == 1 and not proc.stdout.strip() if what.startswith("complete") else True
        check(what, proc.returncode == 1 and lines and expect in lines[-1] and quiet,
              lines[-1] if lines else "(nothing said)")

    for what, path in files.items():
        refused(f"run refuses {what}", common.run([args.saguaro, "run", model, "-p", rendered, "--audio", path, "-t",
                                                   "0", *COMPILE], args, check=False),
                f"{path}: {file_expect[what]}")
        refused(f"complete refuses {what} (Cactus' audio)",
                complete([{"role": "user", "content": QUESTION, "audio": [path]}], check_rc=False),
                f"messages_json: {path}: {file_expect[what]}")
    for what, (data, expect) in bad.items():
        refused(f"complete refuses {what} (input_audio)",
                complete(one_clip(base64.b64encode(data).decode()), check_rc=False),
                f"messages_json: messages[0].content[0]: {expect}")
    refused("complete refuses mp3", complete(one_clip(clip_b64, "mp3"), check_rc=False),
            "input_audio.format \"mp3\" is not read here (only wav)")
    refused("complete refuses data that is not base64", complete(one_clip("not base64!"), check_rc=False),
            "messages[0].content[0]: input_audio.data is not base64")
    refused("run refuses audio to a model without an audio tower",
            common.run([args.saguaro, "run", text_only, "-p", rendered, "--audio", clip, "-t", "0", *COMPILE], args,
                       check=False), f"the model has no audio tower to take {clip}")
    text_question = [{"role": "user", "content": QUESTION}]
    text_answer = json.loads(complete(text_question, on=text_only).stdout)["response"]  # compiles it: one line below
    refused("complete refuses audio to a model without an audio tower", complete(one_clip(clip_b64), text_only, False),
            "messages_json: the model has no audio tower to take messages[0].content[0]")

    refusals = [(what, one_clip(base64.b64encode(data).decode()), expect) for what, (data, expect) in bad.items()]
    refusals += [
        ("a 3-hour header (its samples cut short)",
         one_clip(base64.b64encode(wav_bytes(pcm[:1600], 16000, data_bytes=size)).decode()),
         f"'data' chunk claims {size} bytes but only 3200 remain"),
        ("a file path", [{"role": "user", "content": QUESTION, "audio": [clip]}], "file paths are not accepted here"),
        ("a C API stream", [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"stream": 1}}]}],
         "input_audio.stream names a clip only the C API that streamed it holds; send input_audio data here"),
        ("mp3", one_clip(clip_b64, "mp3"), "input_audio.format \"mp3\" is not read here (only wav)"),
        ("data that is not base64", one_clip("not base64!"), "input_audio.data is not base64")]
    common.check_serve_answers_and_refusals(args, model, COMPILE, one_clip(clip_b64), answer, refusals, check, GREEDY)
    common.check_serve_answers_and_refusals(
        args, text_only, COMPILE, text_question, text_answer,
        [("audio to a model without an audio tower", one_clip(clip_b64),
          "messages_json: the model has no audio tower to take messages[0].content[0]")], check, GREEDY)

if __name__ == "__main__":
    main()
