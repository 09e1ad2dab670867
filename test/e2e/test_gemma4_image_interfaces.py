"""Issue 29, interfaces and acceptance 5: images through the C API (`saguaro complete`, which runs the bundle's
saguaro_complete) and `saguaro serve`, on a tiny random Gemma 4 with a vision tower (make_random_gemma4.py
--conditional --vision clipped, a 70-token budget from its preprocessor_config.json) and the Gemma 4 tokenizer and
chat template fixture (test/fixtures/chat_templates/gemma4/).

- `complete` with an image part (a file path, a file:// URL, a data: URI, and Cactus' "images": [path]) answers,
  greedy, exactly what the bundle program writes for the prompt Python jinja2 renders from the same conversation
  (test/reference/render_chat_template.py, the image item as {"type": "image"}) with `--image` (the path
  test_gemma4_vision.py checks against the numpy reference), from a prefill of as many positions: the rendered
  text's tokens with the placeholder expanded to begin-image, the soft tokens and end-image.
- `serve` answers a data: URI the same text; refuses a remote URL, a file path, a truncated image and an image of
  20,000 x 20,000 pixels with 400 and one message each, and keeps answering correctly afterwards.
- `saguaro chat` on a pseudo-terminal: `/image FILE` then the question streams the same answer.
- `complete` refuses, with one line and exit 1: a truncated image, the 20,000 x 20,000 image, a remote URL, more
  images than the context holds, a budget above the compiled one, and an image to a model without a vision tower.
"""
import base64
import json
import os
import shutil
import struct
import zlib

import numpy as np

import common
from terminal import Terminal, check_reply, reply_of

GREEDY = {"max_tokens": 6, "temperature": 0}
COMPILE = ["--target", "generic", "--max-seq", "200"]  # one image prompt is about 90 positions, three overflow
QUESTION = "What is it?"


def png_bytes(width, height, idat):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def write_png(path, rgb):
    raw = b"".join(b"\x00" + row.tobytes() for row in rgb)  # filter type 0 on every row
    open(path, "wb").write(png_bytes(rgb.shape[1], rgb.shape[0], zlib.compress(raw)))


def main():
    args = common.parse_args()
    w = args.work_dir
    fixture = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4")

    def with_chat_files(model):
        for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja"):
            shutil.copy(os.path.join(fixture, name), model)
        return model

    model = with_chat_files(common.random_gemma4(args, os.path.join(w, "vision"), "full", "--conditional",
                                                 "--vision", "clipped", "--seed", "3"))
    config = {"image_processor_type": "Gemma4ImageProcessor", "patch_size": 4, "pooling_kernel_size": 3,
              "max_soft_tokens": 70, "do_resize": True, "resample": 3, "do_rescale": True,
              "rescale_factor": 1 / 255, "do_normalize": False, "do_convert_rgb": True}
    json.dump(config, open(os.path.join(model, "preprocessor_config.json"), "w"))
    text_only = with_chat_files(common.random_gemma4(args, os.path.join(w, "text-only"), "plain", "--conditional"))

    png = os.path.join(w, "picture.png")
    write_png(png, np.random.default_rng(11).integers(0, 256, (90, 120, 3), dtype=np.uint8))
    data_uri = "data:image/png;base64," + base64.b64encode(open(png, "rb").read()).decode()
    truncated = os.path.join(w, "truncated.png")
    open(truncated, "wb").write(open(png, "rb").read()[:300])
    huge = os.path.join(w, "huge.png")
    open(huge, "wb").write(png_bytes(20000, 20000, zlib.compress(b"\x00" * 64)))

    def check(what, ok, detail):
        print(f"{what}: {detail}")
        if not ok:
            raise SystemExit(f"FAIL: {what}")

    def image_part(url):
        return {"type": "image_url", "image_url": {"url": url}}

    def complete(messages, options=GREEDY, on=model, check_rc=True):
        return common.run([args.saguaro, "complete", on, "--messages", json.dumps(messages), "--options",
                           json.dumps(options), *COMPILE], args, check=check_rc)

    # The oracle: jinja2's rendering of the conversation (the tokenizer adds BOS itself) run with --image.
    rendered = common.run([common.python(), common.reference_script(args, "render_chat_template.py"),
                           os.path.join(model, "tokenizer_config.json"),
                           json.dumps([{"role": "user", "content": [{"type": "image"},
                                                                    {"type": "text", "text": QUESTION}]}])],
                          args).stdout.decode()
    check("the rendering holds the image placeholder", rendered.startswith("<bos>") and "\n\n<|image|>\n\n" in rendered,
          repr(rendered))
    text_tokens = len(common.run([args.saguaro, "tokenize", model, rendered], args).stdout.split())
    proc = common.run([args.saguaro, "run", model, "-p", rendered, "--image", png, "-n", "200", "-t", "0", *COMPILE],
                      args)
    ran = proc.stdout.decode()
    run_prefill = int(proc.stderr.decode().split("prefill_tokens=")[1].split()[0])
    check("the bundle program's prompt holds the image", run_prefill > text_tokens + 2,
          f"{run_prefill} positions, {text_tokens} tokens in the rendering")
    generated = ran[ran.index("model\n") + len("model\n"):]  # the program echoes the prompt's text

    answers = {}
    for how, messages in (
            ("a file path", [{"role": "user", "content": [image_part(png), {"type": "text", "text": QUESTION}]}]),
            ("a file:// URL", [{"role": "user", "content": [image_part("file://" + png),
                                                            {"type": "text", "text": QUESTION}]}]),
            ("a data: URI", [{"role": "user", "content": [image_part(data_uri), {"type": "text", "text": QUESTION}]}]),
            ("Cactus' images", [{"role": "user", "content": QUESTION, "images": [png]}])):
        r = json.loads(complete(messages).stdout)
        answers[how] = r["response"]
        prefill = r["prefill_tokens"]
        check(f"complete, the image as {how}: {r['response']!r}",
              r["response"] and generated.startswith(r["response"]) and prefill == run_prefill,
              f"the bundle program wrote {generated[:40]!r}...; prefill {prefill} positions, {run_prefill} in the "
              "bundle program's")
    check("every form of the image gives one answer", len(set(answers.values())) == 1, str(answers))
    answer = answers["a file path"]

    def refused(what, messages, expect, options=GREEDY, on=model):
        proc = complete(messages, options, on, check_rc=False)
        lines = proc.stderr.decode().strip().splitlines()
        check(f"complete refuses {what}", proc.returncode == 1 and len(lines) == 1 and expect in lines[0] and
              lines[0].startswith("saguaro: messages_json: ") == ("max_soft_tokens" not in expect) and
              not proc.stdout.strip(), lines[-1] if lines else "(nothing said)")

    def one_image(url):
        return [{"role": "user", "content": [image_part(url), {"type": "text", "text": QUESTION}]}]

    refused("a truncated image", one_image(truncated), "truncated.png")
    refused("an image of 20000 x 20000 pixels", one_image(huge), "huge.png: image is 20000x20000 = 400000000 pixels")
    refused("a remote URL", one_image("https://example.com/cat.png"),
            "remote URLs are not fetched (the device is offline by design)")
    refused("more images than the context holds", [{"role": "user", "content": QUESTION, "images": [png] * 3}],
            "prompt has 216 tokens, the model's max_seq is 200")
    refused("a budget above the compiled one", one_image(png), "\"max_soft_tokens\" 560 is above the 70",
            dict(GREEDY, max_soft_tokens=560))
    complete([{"role": "user", "content": QUESTION}], on=text_only)  # compiles it: the refusal below is then one line
    refused("an image to a model without a vision tower", one_image(png), "the model has no vision tower",
            on=text_only)

    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(w, "cache"))
    env.pop("SAGUARO_SERVE_API_KEY", None)
    chat = Terminal([args.saguaro, "chat", model, "--options", json.dumps(GREEDY), *COMPILE], env)
    chat.expect(r"\n> ", "saguaro chat's prompt")
    chat.type("/image " + png)
    chat.expect(r"goes with your next message\)\n> ", "/image")
    streamed, _ = reply_of(chat, QUESTION, "saguaro chat, /image then the question")
    check_reply(streamed, answer, "saguaro chat, /image then the question")
    chat.type("/exit")
    check("saguaro chat: /image then the question streams complete's answer", chat.wait() == 0, repr(streamed))

    refusals = [
        ("a remote URL", one_image("http://example.com/cat.png"), "remote URLs are not fetched"),
        ("a file path", one_image(png), "file paths are not accepted here"),
        ("a truncated image",
         one_image("data:image/png;base64," + base64.b64encode(open(truncated, "rb").read()).decode()),
         "messages[0].content[0]"),
        ("an image of 20000 x 20000 pixels",
         one_image("data:image/png;base64," + base64.b64encode(open(huge, "rb").read()).decode()),
         "image is 20000x20000 = 400000000 pixels")]
    common.check_serve_answers_and_refusals(args, model, COMPILE, one_image(data_uri), answer, refusals, check, GREEDY)


if __name__ == "__main__":
    main()
