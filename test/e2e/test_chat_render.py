"""Issue 31, acceptance 1 (rendering): `saguaro render` prints, byte for byte, what Python jinja2 renders from the
same template (test/reference/render_chat_template.py: transformers' environment, tojson, raise_exception,
strftime_now) for a seeded corpus of conversations with tools, tool calls (arguments as objects and as OpenAI's JSON
strings), tool results, several system messages and several turns, with the templates of Qwen3
(../shared/data/tokenizers/qwen3), Llama 3.1 (test/fixtures/chat_templates/llama3.jinja) and Gemma 4
(test/fixtures/chat_templates/gemma4-tools/). A conversation the template itself refuses (Llama 3.1 raises on two
calls in one message) must be refused by `saguaro render` too, with one line naming the file.

Bad input, one clear line and exit 1 each: a template that ignores tools given tools (Gemma 3's) or a tool call;
malformed messages or tools JSON; a tool that is not a function; arguments that are neither string nor object.
"""
import json
import os
import random
import shutil

import common
from render_chat_template import render, template_of

CONVERSATIONS = 64
WORDS = ["weather", "Zürich", "東京", "a \"quoted\" word", "tabs\tand\nnewlines", "emoji 🌵", "back\\slash", "plain",
         "  padded  ", "<b>html</b>", "50% off", "{\"json\": true}"]

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather of a city",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name, e.g. Zürich"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "search", "description": "Search the web",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"},
            "filters": {"type": "object", "description": "narrowing", "properties": {"site": {"type": "string"},
                                                                                     "year": {"type": "integer"}},
                        "required": ["site"]},
            "Tags": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer", "nullable": True, "description": "at most this many"}},
            "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "now", "description": "The time", "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "convert", "description": "Convert units \"exactly\"",
        "parameters": {"type": "object", "properties": {
            "value": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"},
            "points": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}},
                                                  "required": ["x"]}}},
            "required": ["value", "from", "to"]}}},
    # Schema corners: type lists, nullable enums, an object without properties, array items with extra keys, a
    # response declaration, no parameters, parameters without a type.
    {"type": "function", "function": {
        "name": "corners", "parameters": {"type": "object", "properties": {
            "o": {"type": "object"}, "n": {"type": ["string", "null"], "nullable": True, "enum": ["a"]},
            "arr": {"type": "array", "items": {"type": ["string", "null"], "enum": ["x", "y"], "description": "d",
                                               "nested": {"B": 1, "a": None}}},
            "e": {"type": "array", "items": {}}}},
        "response": {"type": "object", "description": "out"}}},
    {"type": "function", "function": {"name": "ping", "description": "no parameters"}},
    {"type": "function", "function": {"name": "untyped", "description": "x",
                                      "parameters": {"properties": {"q": {"type": "string"}}, "required": ["q"]}}},
]


def arguments(rng):
    """A tool call's arguments: floats in both of repr()'s notations, nesting, Unicode, null."""
    choices = [
        {"city": rng.choice(WORDS), "unit": "celsius"},
        {"query": rng.choice(WORDS), "limit": rng.randint(-5, 10 ** 12), "Tags": ["a", rng.choice(WORDS)]},
        {"value": rng.choice([22.5, 0.1, -3.0, 1e-05, 1e16, 123456.789, 2.5e-7]), "from": "km", "to": "mi",
         "points": [{"x": 1.5}, {"x": None}], "flag": rng.choice([True, False])},
        {},
        {"b": 1, "A": {"z": [1, 2, {"k": "v"}], "a": "x"}, "nested": {"deep": {"deeper": rng.choice(WORDS)}}},
    ]
    args = rng.choice(choices)
    return json.dumps(args, ensure_ascii=False) if rng.random() < 0.5 else args  # OpenAI sends a JSON string


def content(rng):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
    return f"\n {text} \t" if rng.random() < 0.2 else text


def conversation(rng, index, calls_per_message):
    """Messages and tools. Every conversation ends with a user or tool message: Qwen3's template treats a final
    assistant message differently from any other (an empty think block), which the pieces do not express."""
    tools = rng.sample(TOOLS, rng.randint(1, len(TOOLS))) if index % 5 else []
    messages = []
    if rng.random() < 0.6:
        messages.append({"role": "system", "content": content(rng)})
    for turn in range(rng.randint(1, 3)):
        if turn and rng.random() < 0.3:
            messages.append({"role": "system", "content": content(rng)})
        messages.append({"role": "user", "content": content(rng)})
        if tools and rng.random() < 0.7:
            calls = [{"id": f"call_{turn}_{k}", "type": "function",
                      "function": {"name": rng.choice(tools)["function"]["name"], "arguments": arguments(rng)}}
                     for k in range(calls_per_message(rng))]
            messages.append({"role": "assistant", "content": content(rng) if rng.random() < 0.3 else "",
                             "tool_calls": calls})
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content(rng)})
            if rng.random() < 0.5:
                messages.append({"role": "assistant", "content": content(rng)})
        elif rng.random() < 0.8:
            messages.append({"role": "assistant", "content": content(rng)})
    if messages[-1]["role"] == "assistant":
        messages.append({"role": "user", "content": content(rng)})
    return messages, tools


def sources(args):
    """name -> (SOURCE for saguaro render, tokenizer_config.json path, template text)."""
    w = args.work_dir
    qwen = common.require_shared(args, "data", "tokenizers", "qwen3")
    llama = os.path.join(w, "llama3.1")
    os.makedirs(llama)
    shutil.copy(os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "llama3.jinja"),
                os.path.join(llama, "chat_template.jinja"))
    json.dump({"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
              open(os.path.join(llama, "tokenizer_config.json"), "w"))
    gemma = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4-tools")
    out = {}
    for name, folder in (("qwen3", qwen), ("llama3.1", llama), ("gemma4", gemma)):
        config = os.path.join(folder, "tokenizer_config.json")
        out[name] = (folder, config, template_of(config))
    return out


def saguaro_render(args, source, messages, tools, generation_prompt, tag):
    m = os.path.join(args.work_dir, f"{tag}.messages.json")
    json.dump(messages, open(m, "w", encoding="utf-8"), ensure_ascii=False)
    cmd = [args.saguaro, "render", source, "--messages", m]
    if tools:
        t = os.path.join(args.work_dir, f"{tag}.tools.json")
        json.dump(tools, open(t, "w", encoding="utf-8"), ensure_ascii=False)
        cmd += ["--tools", t]
    if not generation_prompt:
        cmd.append("--no-generation-prompt")
    return common.run(cmd, args, check=False)


def check_corpus(args):
    for name, (source, config_path, template) in sources(args).items():
        config = json.load(open(config_path, encoding="utf-8"))
        rng = random.Random(31)  # the same corpus for every template
        equal = refused = 0
        for index in range(CONVERSATIONS):
            # Llama 3.1 renders one call per message and raises on more: every eighth conversation has 2 or 3 calls
            # per message, which checks that refusal (and the other templates' several calls).
            messages, tools = conversation(rng, index, lambda r: r.randint(2, 3) if index % 8 == 4 else 1)
            generation_prompt = index % 7 != 3
            try:
                want = render(template, config, messages, tools, generation_prompt).encode()
            except Exception as e:  # the template's own refusal (raise_exception)
                want = e
            got = saguaro_render(args, source, messages, tools, generation_prompt, f"{name}-{index}")
            if isinstance(want, Exception):
                err = got.stderr.decode()
                if got.returncode != 1 or err.count("\n") != 1 or "saguaro: " not in err:
                    raise SystemExit(f"FAIL: {name} #{index}: the template raises ({want}) but saguaro render gave "
                                     f"exit {got.returncode}, {err!r}")
                refused += 1
                continue
            if got.returncode != 0:
                raise SystemExit(f"FAIL: {name} #{index}: saguaro render failed: {got.stderr.decode()}"
                                 f"messages: {json.dumps(messages, ensure_ascii=False)}")
            if got.stdout != want:
                at = next((k for k in range(min(len(want), len(got.stdout))) if want[k] != got.stdout[k]),
                          min(len(want), len(got.stdout)))
                raise SystemExit(f"FAIL: {name} #{index} differs at byte {at}:\n jinja2: {want[at - 60:at + 60]!r}\n"
                                 f" saguaro: {got.stdout[at - 60:at + 60]!r}\nmessages: "
                                 f"{json.dumps(messages, ensure_ascii=False)}\ntools: {[t['function']['name'] for t in tools]}")
            equal += 1
        print(f"{name}: {equal} of {CONVERSATIONS} conversations byte-identical to jinja2, {refused} refused by both")
        if equal < 50:
            raise SystemExit(f"FAIL: {name}: only {equal} conversations rendered")


def check_bad_input(args):
    w = args.work_dir
    qwen = common.require_shared(args, "data", "tokenizers", "qwen3")
    gemma3 = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma3.jinja")

    def write(name, text):
        path = os.path.join(w, name)
        open(path, "w", encoding="utf-8").write(text)
        return path

    user = write("user.json", json.dumps([{"role": "user", "content": "hi"}]))
    call = write("call.json", json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "",
              "tool_calls": [{"type": "function", "function": {"name": "now", "arguments": "{}"}}]},
              {"role": "user", "content": "and?"}]))
    tools = write("tools.json", json.dumps(TOOLS[:1]))
    cases = [
        ([gemma3, "--messages", user, "--tools", tools], [gemma3, "does not render a tool list"]),
        ([gemma3, "--messages", call], [gemma3, "does not render tool calls"]),
        ([qwen, "--messages", write("bad.json", "[{\"role\": \"user\", ")], ["bad.json", "not valid JSON"]),
        ([qwen, "--messages", write("obj.json", "{}")], ["obj.json", "expected a JSON array"]),
        ([qwen, "--messages", write("norole.json", "[{\"content\": \"x\"}]")], ["norole.json", "messages[0]", "role"]),
        ([qwen, "--messages", user, "--tools", write("badtools.json", "[{")], ["badtools.json", "not valid JSON"]),
        ([qwen, "--messages", user, "--tools", write("notfn.json", "[{\"type\": \"retrieval\"}]")],
         ["notfn.json", "tools[0]", "function"]),
        ([qwen, "--messages", write("args.json", json.dumps([{"role": "user", "content": "hi"}, {
            "role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": 3}}]}]))],
         ["args.json", "tool_calls[0]", "arguments"]),
        ([qwen, "--messages", os.path.join(w, "absent.json")], ["absent.json", "cannot read"]),
    ]
    for argv, words in cases:
        got = common.run([args.saguaro, "render"] + argv, args, check=False)
        err = got.stderr.decode()
        if got.returncode != 1 or got.stdout or err.count("\n") != 1 or not all(word in err for word in words):
            raise SystemExit(f"FAIL: saguaro render {' '.join(argv)}: exit {got.returncode}, stdout "
                             f"{got.stdout[:80]!r}, stderr {err!r} (expected one line with {words})")
    print(f"{len(cases)} bad inputs refused with one line each")


def main():
    args = common.parse_args()
    check_corpus(args)
    check_bad_input(args)


if __name__ == "__main__":
    main()
