"""`saguaro chat` driven through a pseudo-terminal, as a person at a terminal drives it:
- each reply streams the answer `saguaro complete` gives for the same conversation (temperature 0), so the history,
  the system message (/system) and /reset reach the compiled chat template as they should;
- /save writes the conversation (JSON chat messages, or a text transcript); /image on a model without a vision
  tower and an unknown command are one-line complaints, and the chat goes on;
- Ctrl-C in the middle of a long reply stops it (a random-weight model whose greedy reply is checked to run for at
  least LONG tokens first) with "[stopped · K tokens]", K < LONG, and the chat goes on;
- with a hand-off policy in --options (threshold 1, a fake OpenAI-compatible cloud) the local reply streams, then
  the cloud's answer follows under its provider and model, the status says why, and the cloud's answer is what the
  next turn's history holds;
- Ctrl-D leaves with status 0; bad arguments are one-line errors before anything is compiled.
The screen of the whole session is printed (what the terminal showed, \\r\\n as \\n)."""
import json
import os
import re
import shutil

import common
from terminal import Terminal, check_reply, reply_of

LONG = 200  # the slow model's greedy reply has no end of text in its first LONG tokens (checked)


CLOUD_TEXT = "The cloud says 42."


def complete(args, bundle, messages, options):
    out = common.run([args.saguaro, "complete", bundle, "--messages", json.dumps(messages), "--options",
                      json.dumps(options)], args).stdout
    return json.loads(out)


def check_bad_arguments(args):
    for argv, expect in [
        (["chat", os.path.join(args.work_dir, "no-such-model")], "no-such-model"),
        (["chat", os.path.join(args.source_dir, "examples", "models", "default"), "--options", "{"], "--options"),
        (["chat", os.path.join(args.source_dir, "examples", "models", "default"), "--options",
          json.dumps({"confidence_threshold": "high"})], "confidence_threshold"),
    ]:
        proc = common.run([args.saguaro, *argv], args, check=False)
        lines = proc.stderr.decode().strip().splitlines()
        if proc.returncode != 1 or len(lines) != 1 or expect not in lines[0] or proc.stdout:
            raise SystemExit(f"FAIL: saguaro {' '.join(argv)}: status {proc.returncode}, stderr {proc.stderr!r}")
    print("ok: a missing model and bad --options are one-line errors (status 1), no chat starts")


def conversation_session(args, env, bundle):
    """The default model at temperature 0: replies, history, /system, /reset, /save, complaints, Ctrl-D."""
    options = {"temperature": 0, "max_tokens": 24}
    q1, q2 = "What is 17 + 25?", "What is 3 + 4?"
    saved_json, saved_text = os.path.join(args.work_dir, "chat.json"), os.path.join(args.work_dir, "chat.txt")
    terminal = Terminal([args.saguaro, "chat", bundle, "--options", json.dumps(options)], env)
    terminal.expect(r"saguaro chat: .*?\n> ", "the banner and the prompt")

    r1 = complete(args, bundle, [{"role": "user", "content": q1}], options)["response"]
    streamed, status = reply_of(terminal, q1, "the first turn")
    check_reply(streamed, r1, "the first turn")
    if not re.fullmatch(r"\[local · confidence [01]\.\d\d \(entropy\) · \d+ tokens · [\d.]+ tok/s\]", status):
        raise SystemExit(f"FAIL: the status line {status!r}")

    history = [{"role": "user", "content": q1}, {"role": "assistant", "content": r1},
               {"role": "user", "content": q2}]
    r2 = complete(args, bundle, history, options)["response"]
    streamed, _ = reply_of(terminal, q2, "the second turn")
    check_reply(streamed, r2, "the second turn (with the first in the history)")
    print("ok: two turns stream what `saguaro complete` answers for the conversation so far")

    terminal.type(f"/save {saved_json}")
    terminal.expect(r"\(saved 4 messages to .*?\)\n> ", "/save FILE.json")
    saved = json.load(open(saved_json))
    if saved != history + [{"role": "assistant", "content": r2}]:
        raise SystemExit(f"FAIL: /save wrote {saved}")
    terminal.type("/image " + saved_json)
    terminal.expect(r"saguaro: /image: the model has no vision tower\n", "/image without a vision tower")
    terminal.type("/frobnicate")
    terminal.expect(r"saguaro: /frobnicate: unknown command \(/help lists them\)\n", "an unknown command")

    terminal.type("/reset")
    terminal.expect(r"\(the conversation is forgotten\)\n", "/reset")
    system = "Answer in one word."
    terminal.type("/system " + system)
    terminal.expect(r"\(system message set\)\n", "/system")
    r3 = complete(args, bundle, [{"role": "system", "content": system}, {"role": "user", "content": q2}],
                  options)["response"]
    streamed, _ = reply_of(terminal, q2, "after /reset and /system")
    check_reply(streamed, r3, "after /reset and /system (the history gone, the system message first)")
    terminal.type(f"/save {saved_text}")
    terminal.expect(r"\(saved 2 messages to .*?\)\n> ", "/save FILE")
    if open(saved_text).read() != f"system: {system}\n\nuser: {q2}\n\nassistant: {r3}\n\n":
        raise SystemExit(f"FAIL: /save wrote the transcript {open(saved_text).read()!r}")
    print("ok: /reset forgets the history, /system leads the next prompt, /save writes JSON and text")

    terminal.send_eof()
    status = terminal.wait()
    if status != 0:
        raise SystemExit(f"FAIL: Ctrl-D: the chat exited with {status}")
    print("ok: /image without a tower and an unknown command are complaints; Ctrl-D leaves with status 0")
    return terminal.screen


def handoff_session(args, env, bundle):
    """Threshold 1: every reply is handed off to the fake cloud, after the local one has streamed."""
    cloud = common.FakeOpenAI(CLOUD_TEXT)
    options = {"temperature": 0, "max_tokens": 24, "confidence_threshold": 1.0, "cloud_provider": "openai",
               "cloud_base_url": cloud.url, "cloud_model": "fake-frontier",
               "cloud_timeout_ms": 20000, "spend_ledger_path": os.path.join(args.work_dir, "ledger")}
    env = dict(env, SAGUARO_CLOUD_API_KEY="sk-test-chat")
    terminal = Terminal([args.saguaro, "chat", bundle, "--options", json.dumps(options)], env)
    terminal.expect(r"\(with the hand-off policy of --options\).*?\n> ", "the banner of a hybrid chat")
    q1 = "What is 17 + 25?"
    local = complete(args, bundle, [{"role": "user", "content": q1}], {"temperature": 0, "max_tokens": 24})
    streamed, status = reply_of(terminal, q1, "a handed-off turn")
    shown = local["response"] + ("" if local["response"].endswith("\n") else "\n")
    if streamed != f"{shown}── openai (fake-frontier):\n{CLOUD_TEXT}\n":
        raise SystemExit(f"FAIL: a handed-off turn showed {streamed!r}")
    if not re.fullmatch(r"\[cloud · local confidence [01]\.\d\d \(entropy\) · below_threshold\]", status):
        raise SystemExit(f"FAIL: the status line of a handed-off turn: {status!r}")
    reply_of(terminal, "And 1 + 1?", "the turn after a hand-off")
    sent = [body["messages"] for body in cloud.requests]
    if len(sent) != 2 or sent[1][1] != {"role": "assistant", "content": CLOUD_TEXT}:
        raise SystemExit(f"FAIL: the cloud's answer is not in the next turn's history: {sent}")
    terminal.type("/exit")
    if terminal.wait() != 0:
        raise SystemExit("FAIL: /exit from a hybrid chat")
    cloud.close()
    print("ok: with the policy the local reply streams, the cloud's answer follows with its provider and the reason, "
          "and the next turn's history holds the cloud's answer")
    return terminal.screen


def interrupt_session(args, env):
    """A reply that would run on is stopped by Ctrl-C; the chat answers the next message."""
    model = os.path.join(args.work_dir, "slow-model")
    if not os.path.exists(os.path.join(model, "model.safetensors")):
        common.run([common.python(), os.path.join(args.source_dir, "test", "reference", "make_random_hf.py"),
                    "--arch", "gemma3", "-o", model, "--hidden", "512", "--layers", "6", "--intermediate", "2048",
                    "--heads", "8", "--kv-heads", "2", "--head-dim", "64", "--vocab", "71", "--seed", "0"], args)
        for name in ("tokenizer.json", "tokenizer_config.json"):  # the default model's characters
            shutil.copy(os.path.join(args.source_dir, "examples", "models", "default", name), model)
    bundle = os.path.join(args.work_dir, "slow-bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle], args)
    messages = [{"role": "user", "content": "hello"}]
    long = complete(args, bundle, messages, {"temperature": 0, "max_tokens": LONG})
    if long["decode_tokens"] != LONG:
        raise SystemExit(f"FAIL: the slow model's greedy reply ended after {long['decode_tokens']} tokens: "
                         f"the Ctrl-C check needs one of at least {LONG}")

    terminal = Terminal([args.saguaro, "chat", bundle, "--options", json.dumps({"temperature": 0, "max_tokens": 480})],
                        env)
    terminal.expect(r"\n> ", "the prompt")
    terminal.type("hello")
    terminal.expect("hello\n(?=.)", "the first streamed piece")
    terminal.send_interrupt()
    match = terminal.expect(r"(.*?)\n\[stopped · (\d+) tokens\]\n> ", "Ctrl-C in the middle of a reply")
    partial, tokens = match.group(1).replace("^C", "", 1), int(match.group(2))  # the terminal echoes Ctrl-C
    if tokens >= LONG or not partial:
        raise SystemExit(f"FAIL: Ctrl-C stopped the reply after {tokens} tokens, {partial!r} shown")
    saved = os.path.join(args.work_dir, "stopped.json")
    terminal.type(f"/save {saved}")  # the chat goes on, the partial reply in its history
    terminal.expect(r"\(saved 2 messages to .*?\)\n> ", "/save after Ctrl-C")
    if json.load(open(saved)) != messages + [{"role": "assistant", "content": partial}]:
        raise SystemExit(f"FAIL: after Ctrl-C the chat showed {partial!r} ({tokens} tokens), its conversation is "
                         f"{open(saved).read()}")
    terminal.send_interrupt()  # at the prompt: a fresh prompt, nothing else
    terminal.expect(r"\n> ", "Ctrl-C at the prompt")
    terminal.type("/exit")
    status = terminal.wait()
    if status != 0:
        raise SystemExit(f"FAIL: /exit: the chat exited with {status}")
    print(f"ok: Ctrl-C stopped a reply after {tokens} of at least {LONG} tokens, kept in the history; "
          "Ctrl-C at the prompt gives a fresh one; /exit leaves with status 0")
    return terminal.screen


def main():
    args = common.parse_args()
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"), TERM="dumb")
    check_bad_arguments(args)
    bundle = os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "compile", os.path.join(args.source_dir, "examples", "models", "default"), "-o",
                bundle], args)
    screen = conversation_session(args, env, bundle)
    print("---- the screen of the conversation ----\n" + screen + "---- end ----")
    screen = handoff_session(args, env, bundle)
    print("---- the screen of a hybrid chat ----\n" + screen + "---- end ----")
    screen = interrupt_session(args, env)
    print("---- the screen of the interrupted reply ----\n" + screen[-1500:] + "---- end ----")


if __name__ == "__main__":
    main()
