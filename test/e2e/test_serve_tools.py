"""Issue 31, acceptance 3 and the tool parts of 5: tool calls through `saguaro serve` and `saguaro complete`.

A tiny random-weight Qwen3 with Qwen3's own tokenizer and chat template cannot be asked to call a tool, so the test
forces the call with tool_choice ("required", or a named function): the prompt opens Qwen3's <tool_call> block and
the token mask constrains the answer to a call of an offered function whose arguments validate against its
parameters (validated here with python3-jsonschema). What is checked is everything after the model's text: the call is read back, checked against the
tools, and sent in OpenAI's shapes, as the OpenAI Python SDK sends and reads them:
- non-streamed: message.tool_calls (id, type, function.name, function.arguments a JSON string), content null,
  finish_reason "tool_calls";
- streamed: delta.tool_calls chunks that, joined by index as the SDK joins them, give the same calls (greedy);
- the next turn (the assistant's calls, the tools' results, tool_choice "none") is answered with text;
- `saguaro complete --tools FILE` gives the same call in the response schema (tool_calls, finish_reason);
- bad input is one clear error each: tools that are not an array (400), a malformed tool (400 naming tools[0]),
  tool_choice naming an unknown function (400), parameters the mask cannot take (400), a model whose template
  cannot express tools (complete: one line, exit 1), a --tools file that does not parse (one line naming it)."""
import json
import os
import shutil
import subprocess

import jsonschema

import common

CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 32,
    "max_position_embeddings": 1024,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": True,
    "vocab_size": 151936,  # Qwen3's tokenizer
}
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12},
                                                    "unit": {"enum": ["C", "F"]}},
                   "required": ["city", "unit"], "additionalProperties": False}}}
NOW = {"type": "function", "function": {"name": "now", "description": "The time",
                                        "parameters": {"type": "object", "properties": {},
                                                       "additionalProperties": False}}}
TOOLS = [WEATHER, NOW]
MESSAGES = [{"role": "user", "content": "What is the weather in Oslo for 3 days?"}]


def qwen3_model(args):
    """A random Qwen3 with the shared Qwen3 tokenizer and chat template beside its weights."""
    qwen = common.require_shared(args, "data", "tokenizers", "qwen3")
    config = os.path.join(args.work_dir, "config.json")
    json.dump(CONFIG, open(config, "w"))
    model = os.path.join(args.work_dir, "qwen3-tiny")
    common.run([args.saguaro, "synth", config, "-o", model, "--seed", "5"], args)
    with open(os.path.join(model, "tokenizer.json"), "wb") as f:
        subprocess.run(["xz", "-dc", os.path.join(qwen, "tokenizer.json.xz")], stdout=f, check=True)
    shutil.copy(os.path.join(qwen, "tokenizer_config.json"), model)
    return model


def check_call(call, what):
    """One OpenAI tool call that names an offered function and whose arguments validate against its parameters."""
    if set(call) != {"id", "type", "function"} or call["type"] != "function" or not call["id"].startswith("call_"):
        raise SystemExit(f"FAIL: {what}: not an OpenAI tool call: {call}")
    name, text = call["function"]["name"], call["function"]["arguments"]
    if not isinstance(text, str):
        raise SystemExit(f"FAIL: {what}: arguments must be a JSON string: {call}")
    params = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
    try:
        jsonschema.validate(json.loads(text), params[name])  # Debian's python3-jsonschema, independent of Saguaro
        ok = True
    except (KeyError, ValueError, jsonschema.ValidationError):
        ok = False
    if not ok:
        raise SystemExit(f"FAIL: {what}: arguments {text!r} do not fit {name}'s parameters")


def joined_stream(text):
    """The tool calls, content and finish_reason of an SSE stream, deltas joined by index as the OpenAI SDK does."""
    calls, content, finish = [], "", None
    for line in text.splitlines():
        if not line.startswith("data: {"):
            continue
        choice = json.loads(line[6:])["choices"][0]
        delta = choice["delta"]
        content += delta.get("content") or ""
        finish = choice["finish_reason"] or finish
        for d in delta.get("tool_calls", []):
            while len(calls) <= d["index"]:
                calls.append({"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
            call = calls[d["index"]]
            if "id" in d:
                call["id"] = d["id"]
            call["function"]["name"] += d["function"].get("name", "")
            call["function"]["arguments"] += d["function"].get("arguments", "")
    return calls, content, finish


def post(port, body, expect_status=200):
    status, text = common.post_chat(port, body)
    if status != expect_status:
        raise SystemExit(f"FAIL: {json.dumps(body)[:300]}: expected {expect_status}, got {status} {text[:500]}")
    return text


def check_serve(args, model, env):
    server, port, _, _ = common.start_serve(args, model, [], env, "serve.log")
    try:
        base = {"model": "default", "messages": MESSAGES, "tools": TOOLS, "max_tokens": 48}
        for choice in ("required", {"type": "function", "function": {"name": "get_weather"}}):
            for temperature in (1.0, 0):
                body = dict(base, tool_choice=choice, temperature=temperature)
                reply = json.loads(post(port, body))["choices"][0]
                message = reply["message"]
                if reply["finish_reason"] != "tool_calls" or message["content"] is not None \
                        or len(message.get("tool_calls", [])) != 1:
                    raise SystemExit(f"FAIL: tool_choice {choice}: {reply}")
                check_call(message["tool_calls"][0], f"tool_choice {choice}, temperature {temperature}")
                if isinstance(choice, dict) and message["tool_calls"][0]["function"]["name"] != "get_weather":
                    raise SystemExit(f"FAIL: the named function was not called: {reply}")
            # Greedy: the stream's joined deltas are the same call.
            calls, content, finish = joined_stream(post(port, dict(body, stream=True)))
            want = message["tool_calls"]
            if finish != "tool_calls" or content != "" or [c["function"] for c in calls] != [c["function"] for c in want]:
                raise SystemExit(f"FAIL: streamed tool_choice {choice}: {calls} {content!r} {finish} vs {want}")
            check_call(calls[0], "streamed")
            print(f"ok: tool_choice {json.dumps(choice)}: {want[0]['function']}, the same call streamed")
        # The next turn: the assistant's call and the tool's result go back; "none" answers with text.
        turn = MESSAGES + [{"role": "assistant", "content": None, "tool_calls": want},
                           {"role": "tool", "tool_call_id": want[0]["id"], "content": "12 C, rain"}]
        reply = json.loads(post(port, dict(base, messages=turn, tool_choice="none", temperature=0)))["choices"][0]
        if not isinstance(reply["message"]["content"], str) or "tool_calls" in reply["message"]:
            raise SystemExit(f"FAIL: the tool result turn: {reply}")
        print("ok: the tool-result turn is answered with text")
        bad = [
            ({"tools": {"type": "function"}}, "tools must be an array"),
            ({"tools": [{"type": "function", "function": {"description": "x"}}]},
             "tools[0]: \"function\" needs a string \"name\""),
            ({"tool_choice": {"type": "function", "function": {"name": "get_time"}}},
             "names \"get_time\", which is not among the tools"),
            ({"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "wat"}}}],
              "tool_choice": "required"}, "the parameters are no schema the token mask takes"),
        ]
        for extra, want_text in bad:
            error = json.loads(post(port, dict(base, **extra), 400))["error"]
            if want_text not in error["message"] or "\n" in error["message"]:
                raise SystemExit(f"FAIL: {extra}: {error}")
        post(port, dict(base, tool_choice="required", temperature=0))  # the server still answers
        print(f"ok: {len(bad)} bad tool requests are 400 with one line each, the server answers afterwards")
    finally:
        server.terminate()
        server.wait(timeout=30)


def check_complete(args, model, env):
    tools = os.path.join(args.work_dir, "tools.json")
    json.dump(TOOLS, open(tools, "w"))
    options = json.dumps({"tool_choice": "required", "max_tokens": 48, "temperature": 0})
    out = subprocess.run([args.saguaro, "complete", model, "--messages", json.dumps(MESSAGES), "--tools", tools,
                          "--options", options], env=env, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"FAIL: complete --tools: {out.stderr}")
    response = json.loads(out.stdout)
    common.check_response_schema(response, "complete --tools")
    if response["finish_reason"] != "tool_calls" or len(response["tool_calls"]) != 1:
        raise SystemExit(f"FAIL: complete --tools: {response}")
    check_call(response["tool_calls"][0], "complete --tools")
    print(f"ok: complete --tools: {response['tool_calls'][0]['function']}, in the response schema")
    broken = os.path.join(args.work_dir, "broken-tools.json")
    open(broken, "w").write("[{")
    default = os.path.join(args.source_dir, "examples", "models", "default")
    for cmd, want in (([model, "--tools", broken], [broken, "not valid JSON"]),
                      ([default, "--tools", tools], ["\"tools\":", "template"])):
        r = subprocess.run([args.saguaro, "complete", *cmd, "--messages", json.dumps(MESSAGES)], env=env,
                           capture_output=True, text=True, timeout=900)
        lines = [line for line in r.stderr.strip().splitlines()  # leave out the bundle cache's progress
                 if not line.startswith(("saguaro: compiling ", "saguaro: building "))]
        if r.returncode != 1 or len(lines) != 1 or not all(w in lines[0] for w in want):
            raise SystemExit(f"FAIL: complete {cmd}: exit {r.returncode}, {r.stderr!r}")
        print(f"ok: complete {os.path.basename(cmd[0])} --tools {os.path.basename(cmd[2])}: {lines[0]}")


def main():
    args = common.parse_args()
    model = qwen3_model(args)
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    env.pop("SAGUARO_SERVE_API_KEY", None)
    check_serve(args, model, env)
    check_complete(args, model, env)


if __name__ == "__main__":
    main()
