"""Issue 30: a clip streamed through the C API and then named by a message of saguaro_complete ({"type":
"input_audio", "input_audio": {"stream": ID}}, ID from saguaro_audio_id) answers as the same clip sent as
input_audio data: same response, prompt and answer lengths, and the same confidence (the answer's mean token entropy,
so the logits agree too). Tiny random Gemma 4 with an audio tower and the Gemma 4 chat template fixture
(common.chat_gemma4), its bundle's libsaguaro.so through ctypes; the clip is the first 1.5 s of
../shared/data/audio/jfk.wav, pushed as 16-bit samples in pieces of 1600. Another clip (the next 1.5 s) streamed and
named must answer differently, so the clip does reach the answer.

Each bad reference: -1 and one line "messages_json: messages[0].content[0]: ..." from saguaro_last_error: an id never
given, a stream not ended, one ended without soft tokens, a destroyed one, one of another model (a second
saguaro_init of the same bundle, also after that model is destroyed; the stream is destroyed after its model), a
model without an audio tower (a text-only bundle), and an id that is not a
positive integer.

The Python package's AudioStream (bindings/python) does the same in a fresh virtual environment: the clip pushed as
int16 bytes and as float32 samples answers as the data does; a stream of the text-only model and a message naming
a destroyed stream raise SaguaroError with the C API's line. The Node package's AudioStream (bindings/node), in a
fresh npm project, does the same.
"""
import base64
import ctypes
import io
import json
import os
import wave

import numpy as np

import common

COMPILE = ["--target", "generic", "--kv-cache", "f32", "--max-seq", "128"]
GREEDY = json.dumps({"max_tokens": 8, "temperature": 0})
QUESTION = "What is said?"
CLIP_SAMPLES = 24000  # 1.5 s at 16 kHz
PIECE = 1600  # samples per push
SAME = ("response", "prefill_tokens", "decode_tokens", "confidence")  # what must agree between the two forms


class Library:
    """A bundle's libsaguaro.so: its C API with ctypes signatures."""

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        lib.saguaro_init.restype = ctypes.c_void_p
        lib.saguaro_init.argtypes = [ctypes.c_char_p]
        lib.saguaro_last_error.restype = ctypes.c_char_p
        lib.saguaro_complete.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
        lib.saguaro_audio_begin.restype = ctypes.c_void_p
        lib.saguaro_audio_begin.argtypes = [ctypes.c_void_p]
        lib.saguaro_audio_push_int16.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16), ctypes.c_size_t]
        lib.saguaro_audio_end.argtypes = [ctypes.c_void_p]
        lib.saguaro_audio_id.restype = ctypes.c_long
        lib.saguaro_audio_id.argtypes = [ctypes.c_void_p]
        lib.saguaro_audio_destroy.argtypes = [ctypes.c_void_p]
        lib.saguaro_destroy.argtypes = [ctypes.c_void_p]

    def error(self):
        return self.lib.saguaro_last_error().decode()

    def init(self, bundle):
        model = self.lib.saguaro_init(bundle.encode())
        if not model:
            raise SystemExit(f"FAIL: saguaro_init({bundle}): {self.error()}")
        return model

    def complete(self, model, messages):
        """(return value, parsed response or None, last error) of a greedy saguaro_complete."""
        out = ctypes.create_string_buffer(1 << 16)
        n = self.lib.saguaro_complete(model, json.dumps(messages).encode(), GREEDY.encode(), out, len(out), None,
                                      None)
        return n, json.loads(out.value) if n >= 0 else None, self.error()

    def stream(self, model, samples, end=True):
        """A stream of `model` with the int16 `samples` pushed PIECE at a time, ended when `end`; its handle."""
        audio = self.lib.saguaro_audio_begin(model)
        if not audio:
            raise SystemExit(f"FAIL: saguaro_audio_begin: {self.error()}")
        for at in range(0, len(samples), PIECE):
            piece = np.ascontiguousarray(samples[at:at + PIECE])
            if self.lib.saguaro_audio_push_int16(audio, piece.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)),
                                                 len(piece)) != 0:
                raise SystemExit(f"FAIL: saguaro_audio_push_int16: {self.error()}")
        if end and len(samples) and self.lib.saguaro_audio_end(audio) < 0:
            raise SystemExit(f"FAIL: saguaro_audio_end: {self.error()}")
        return audio


def wav_base64(samples):
    """`samples` (int16, 16 kHz mono) as a WAV file's bytes in base64."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(16000)
        f.writeframes(samples.astype("<i2").tobytes())
    return base64.b64encode(buffer.getvalue()).decode()


def question(audio_part):
    return [{"role": "user", "content": [{"type": "input_audio", "input_audio": audio_part},
                                         {"type": "text", "text": QUESTION}]}]


def main():
    args = common.parse_args()
    w = args.work_dir
    jfk = common.require_shared(args, "data", "audio", "jfk.wav")
    with wave.open(jfk, "rb") as f:
        pcm = np.frombuffer(f.readframes(2 * CLIP_SAMPLES), dtype="<i2")
    clip, other_clip = pcm[:CLIP_SAMPLES], pcm[CLIP_SAMPLES:]

    def bundle(name, *extra):
        model = common.chat_gemma4(args, os.path.join(w, name), "--conditional", *extra)
        common.build_bundle(args, model, os.path.join(w, name + "-bundle"), COMPILE)
        return os.path.join(w, name + "-bundle")

    audio_bundle = bundle("audio", "--audio", "--seed", "6")
    lib = Library(os.path.join(audio_bundle, "build", "libsaguaro.so"))
    model = lib.init(audio_bundle)

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    n, as_data, err = lib.complete(model, question({"data": wav_base64(clip), "format": "wav"}))
    check("the clip as input_audio data", n >= 0, err or as_data["response"])
    audio = lib.stream(model, clip)
    stream_id = lib.lib.saguaro_audio_id(audio)
    n, as_stream, err = lib.complete(model, question({"stream": stream_id}))
    check(f"the clip streamed, named as stream {stream_id}", n >= 0, err or as_stream["response"])
    common.check_response_schema(as_stream, "the streamed clip's response")
    for key in SAME:
        check(f"  {key}", as_stream[key] == as_data[key], f"{as_stream[key]!r} streamed, {as_data[key]!r} as data")
    n, again, err = lib.complete(model, question({"stream": stream_id}))  # a stream may be named again
    check("the same stream named again", n >= 0 and all(again[k] == as_stream[k] for k in SAME), err or "same answer")
    lib.lib.saguaro_audio_destroy(audio)

    other = lib.stream(model, other_clip)
    n, other_answer, err = lib.complete(model, question({"stream": lib.lib.saguaro_audio_id(other)}))
    check("another clip streamed", n >= 0 and any(other_answer[k] != as_stream[k] for k in SAME),
          err or f"{other_answer['response']!r}, confidence {other_answer['confidence']}")
    lib.lib.saguaro_audio_destroy(other)

    def refused(what, library, on, audio_part, expect):
        n, _, said = library.complete(on, question(audio_part))
        check(f"refused: {what}", n == -1 and said == "messages_json: messages[0].content[0]: " + expect, said)

    refused("an id never given", lib, model, {"stream": 1000000},
            "audio stream 1000000 was never begun (saguaro_audio_id gives a stream's id)")
    for bad in ("1", 0, 1.5):
        refused(f"stream {bad!r}", lib, model, {"stream": bad},
                "input_audio.stream must be a stream id (a positive integer) and the only key")
    open_stream = lib.stream(model, clip, end=False)
    sid = lib.lib.saguaro_audio_id(open_stream)
    refused("a stream not ended", lib, model, {"stream": sid},
            f"audio stream {sid} has not ended (saguaro_audio_end computes its soft tokens)")
    lib.lib.saguaro_audio_destroy(open_stream)
    refused("a destroyed stream", lib, model, {"stream": sid}, f"audio stream {sid} was destroyed")
    empty = lib.stream(model, clip[:0], end=False)
    lib.lib.saguaro_audio_end(empty)  # fails: no samples
    sid = lib.lib.saguaro_audio_id(empty)
    refused("a stream ended without soft tokens", lib, model, {"stream": sid},
            f"audio stream {sid} ended without soft tokens")
    lib.lib.saguaro_audio_destroy(empty)
    second = lib.init(audio_bundle)
    theirs = lib.stream(second, clip)
    sid = lib.lib.saguaro_audio_id(theirs)
    refused("a stream of another model", lib, model, {"stream": sid}, f"audio stream {sid} belongs to another model")
    # A stream may outlive its model: it is still refused by name, and destroying it afterwards touches nothing of
    # the destroyed model (the stream owns its step arena).
    lib.lib.saguaro_destroy(second)
    refused("a stream of a destroyed model", lib, model, {"stream": sid},
            f"audio stream {sid} belongs to another model")
    lib.lib.saguaro_audio_destroy(theirs)

    text_bundle = bundle("text-only")
    text_lib = Library(os.path.join(text_bundle, "build", "libsaguaro.so"))
    refused("a model without an audio tower", text_lib, text_lib.init(text_bundle), {"stream": 1},
            "the model has no audio tower")

    clip_path = os.path.join(w, "clip.s16")
    clip.astype("<i2").tofile(clip_path)

    def binding(name, command, cwd):
        """Runs a binding's script (PYTHON_STREAM, NODE_STREAM) with `command` in `cwd` and checks what it prints."""
        out = common.run([*command, audio_bundle, text_bundle, clip_path, QUESTION, GREEDY], args,
                         cwd=cwd).stdout.decode().splitlines()
        for line in out[:2]:
            how, r = line.split(" ", 1)
            r = json.loads(r)
            check(f"{name} AudioStream, {how}", all(r[k] == as_data[k] for k in SAME),
                  f"{r['response']!r}, confidence {r['confidence']}")
        for line, expect in zip(out[2:], ("saguaro_audio_begin: the model has no audio tower",
                                          "messages_json: messages[0].content[0]: audio stream 1 was destroyed")):
            check(f"{name} AudioStream refused: {expect}", line == expect, line)
        if len(out) != 4:
            raise SystemExit(f"FAIL: the {name} script printed {out}")

    # The Python package in a fresh virtual environment, the Node package installed into a fresh npm project.
    script = os.path.join(w, "python_stream.py")
    open(script, "w").write(PYTHON_STREAM)
    binding("Python", [common.python_package(args), script], w)
    app = common.node_package(args)
    open(os.path.join(app, "stream.js"), "w").write(NODE_STREAM)
    binding("Node", ["node", "stream.js"], app)
    return 0


# Run by the virtual environment's python: BUNDLE TEXT_ONLY_BUNDLE CLIP.s16 QUESTION OPTIONS. Prints the response of
# the clip pushed as int16 bytes ("int16 {...}") and as float32 ("float32 {...}"), then the errors of a stream on
# the text-only model and of a message naming the destroyed first stream.
PYTHON_STREAM = """
import json, sys
import numpy as np
import saguaro

bundle, text_only, clip_path, question, options = sys.argv[1:]
pcm = np.fromfile(clip_path, dtype="<i2")
with saguaro.init(bundle) as model:
    def ask(stream):
        return model.complete([{"role": "user", "content": [stream.part(), {"type": "text", "text": question}]}],
                              json.loads(options))
    first = model.audio_stream()
    for at in range(0, len(pcm), 1600):
        first.push_int16(pcm[at:at + 1600].tobytes())
    first.end()
    print("int16", json.dumps(ask(first)))
    with model.audio_stream() as second:
        second.push((pcm / 32768.0).astype(np.float32))
        second.end()
        print("float32", json.dumps(ask(second)))
    first.destroy()
    with saguaro.init(text_only) as text_model:
        try:
            text_model.audio_stream()
        except saguaro.SaguaroError as e:
            print(e.message)
    try:
        ask(first)
    except saguaro.SaguaroError as e:
        print(e.message)
"""


# Run by node in the npm project: the same arguments and output as PYTHON_STREAM.
NODE_STREAM = """
const fs = require('node:fs');
const saguaro = require('saguaro');

async function main() {
  const [bundle, textOnly, clipPath, question, options] = process.argv.slice(2);
  const bytes = fs.readFileSync(clipPath);
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
  const model = saguaro.init(bundle);
  const ask = (stream) => model.complete([{ role: 'user', content: [stream.part(), { type: 'text', text: question }] }],
                                         JSON.parse(options));
  const first = await model.audioStream();
  for (let at = 0; at < pcm.length; at += 1600) await first.pushInt16(pcm.slice(at, at + 1600));
  await first.end();
  console.log('int16 ' + JSON.stringify(await ask(first)));
  const second = await model.audioStream();
  await second.push(Float32Array.from(pcm, (v) => v / 32768));
  await second.end();
  console.log('float32 ' + JSON.stringify(await ask(second)));
  await second.destroy();
  await first.destroy();
  const textModel = saguaro.init(textOnly);
  await textModel.audioStream().catch((e) => console.log(e.message));
  await saguaro.destroy(textModel);
  await ask(first).catch((e) => console.log(e.message));
  await saguaro.destroy(model);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
"""


if __name__ == "__main__":
    raise SystemExit(main())
