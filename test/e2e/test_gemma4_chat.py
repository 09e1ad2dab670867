"""Issue 28, "Chat": a tiny random Gemma 4 model (test/reference/make_random_gemma4.py) with the Gemma 4 tokenizer
and chat template fixture (test/fixtures/chat_templates/gemma4/: tokenizer.json with Gemma 4's special tokens,
tokenizer_config.json and chat_template.jinja in the released layout).
- every special token (turn, channel, thinking, tool, image, audio and video markers) is one id, its own;
- `saguaro complete` on the model renders the conversation as Python jinja2 renders the template
  (test/reference/render_chat_template.py): the prompt it prefills has exactly the ids `saguaro tokenize` gives
  the jinja2 rendering, with and without a system message, and with two assistant messages in one turn (checked
  by count, the bundle's `prefill_tokens`, after the rendering's frame of turn markers is checked by hand);
- `saguaro render` on the bundle prints the jinja2 rendering byte for byte (the bundle's compiled template)."""
import json
import os
import shutil

import common

MARKERS = ["<bos>", "<eos>", "<|turn>", "<turn|>", "<|channel>", "<channel|>", "<|think|>", '<|"|>', "<|tool>",
           "<tool|>", "<|tool_call>", "<tool_call|>", "<|tool_response>", "<tool_response|>", "<|image>",
           "<image|>", "<|image|>", "<|audio>", "<audio|>", "<|audio|>", "<|video|>"]


def main():
    args = common.parse_args()
    w = args.work_dir
    model = os.path.join(w, "gemma4")
    common.random_gemma4(args, model, "plain")
    fixture = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4")
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja"):
        shutil.copy(os.path.join(fixture, name), model)
    vocab = {t["content"]: t["id"] for t in json.load(open(os.path.join(model, "tokenizer.json")))["added_tokens"]}

    def tokenize(text):
        return [int(i) for i in common.run([args.saguaro, "tokenize", model, text], args).stdout.decode().split()]

    for marker in MARKERS:
        if tokenize(marker) != [vocab[marker]]:
            raise SystemExit(f"FAIL: {marker} is not the single id {vocab[marker]}: {tokenize(marker)}")
    ids = tokenize("a<|turn>user\n")
    if ids != tokenize("a") + [vocab["<|turn>"]] + tokenize("user\n"):
        raise SystemExit(f"FAIL: a marker inside text is not split out as its own id: {ids}")
    print(f"{len(MARKERS)} special tokens are single ids, also inside text")

    bundle = os.path.join(w, "bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle, "--target", "generic"], args)
    conversations = [
        [{"role": "user", "content": "What is the help?"}],
        [{"role": "system", "content": " You are a helpful assistant. "}, {"role": "user", "content": "Hello!"},
         {"role": "assistant", "content": "How can I help?"}, {"role": "user", "content": "What is 2+2?"}],
        [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi!"},
         {"role": "assistant", "content": "How can I help?"}, {"role": "user", "content": "What is 2+2?"}],
    ]
    for messages in conversations:
        text = common.run([common.python(), common.reference_script(args, "render_chat_template.py"),
                           os.path.join(model, "tokenizer_config.json"), json.dumps(messages)], args).stdout.decode()
        want = tokenize(text)
        # The rendering's frame, by hand: <bos> first, one <|turn> and one <turn|> per turn (consecutive assistant
        # messages are one turn), then <|turn>model.
        turns = len(messages) - sum(a["role"] == b["role"] == "assistant" for a, b in zip(messages, messages[1:]))
        if (want[0] != vocab["<bos>"] or want.count(vocab["<|turn>"]) != turns + 1 or
                want.count(vocab["<turn|>"]) != turns or not text.endswith("<|turn>model\n")):
            raise SystemExit(f"FAIL: the jinja2 rendering {text!r} tokenizes to {want}")
        messages_file = os.path.join(w, "messages.json")
        json.dump(messages, open(messages_file, "w"))
        rendered = common.run([args.saguaro, "render", bundle, "--messages", messages_file], args).stdout.decode()
        if rendered != text:
            raise SystemExit(f"FAIL: saguaro render of the bundle gives {rendered!r}, jinja2 {text!r}")
        out = common.run([args.saguaro, "complete", bundle, "--messages", json.dumps(messages), "--options",
                          json.dumps({"max_tokens": 2, "temperature": 0, "confidence_threshold": 0})], args)
        got = json.loads(out.stdout.decode())["prefill_tokens"]
        if got != len(want):
            raise SystemExit(f"FAIL: complete prefilled {got} tokens, the jinja2 rendering is {len(want)}: {text!r}")
        print(f"{len(messages)} messages: complete prefills the {len(want)} ids of jinja2's rendering")


if __name__ == "__main__":
    main()
