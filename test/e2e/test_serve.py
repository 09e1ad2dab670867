"""`saguaro serve` on the default model, over loopback:
- a non-streaming /v1/chat/completions answers what `saguaro complete` answers locally for the same question;
- a streaming request's content deltas join to the same text, ending with data: [DONE];
- 50 sequential and 8 concurrent clients (4 requests each) all succeed;
- malformed requests get 400 with an OpenAI-style JSON error; /v1/models lists the model;
- with an API key (--api-key-file, or $SAGUARO_SERVE_API_KEY) requests without it get 401 and with it the same
  answer; the key is in no log line; a missing, empty or multi-word key file is a one-line error before anything
  is compiled.
(1000 sequential requests and the full malformed-request set run against a fake generator in handoff_tests.)"""
import json
import os
import subprocess
import threading

import common

QUESTION = "What is 17 + 25?"


def check_bad_key_files(args, model, env):
    """A key file that cannot serve is a one-line error naming it, exit 1, before anything is compiled."""
    empty = os.path.join(args.work_dir, "empty.key")
    two_words = os.path.join(args.work_dir, "two-words.key")
    open(empty, "w").close()
    with open(two_words, "w") as f:
        f.write("sk-secret-one sk-secret-two\n")
    missing = os.path.join(args.work_dir, "missing.key")
    bad_env = dict(env, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "never-used-cache"))
    for path, expect in ((missing, "cannot read"), (empty, "is empty"), (two_words, "one word")):
        r = subprocess.run([args.saguaro, "serve", model, "--port", "0", "--api-key-file", path], env=bad_env,
                           capture_output=True, text=True, timeout=60)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or path not in lines[0] or expect not in lines[0] \
                or "sk-secret" in r.stderr + r.stdout:
            raise SystemExit(f"FAIL: --api-key-file {path}: rc {r.returncode}, {r.stderr!r}")
    if os.path.exists(bad_env["SAGUARO_CACHE_DIR"]):
        raise SystemExit("FAIL: a bad key file still compiled the model")
    print("ok: missing, empty and multi-word key files are one-line errors, nothing compiled")


def check_api_key(args, model, env, body, answer):
    key = "sk-saguaro-e2e-4b1d9f"
    key_file = os.path.join(args.work_dir, "serve.key")
    with open(key_file, "w") as f:
        f.write(key + "\n")
    for how, extra, key_env in (("--api-key-file", ["--api-key-file", key_file], {}),
                                ("$SAGUARO_SERVE_API_KEY", [], {"SAGUARO_SERVE_API_KEY": key})):
        server, port, log_name, models = common.start_serve(args, model, extra, dict(env, **key_env), "serve-key.log")
        try:
            if models.get("error", {}).get("code") != "invalid_api_key":
                raise SystemExit(f"FAIL: {how}: /v1/models without the key: {models}")
            for sent in (None, key + "x"):
                status, text = common.post_chat(port, body, key=sent)
                if status != 401 or json.loads(text)["error"]["code"] != "invalid_api_key" or key in text:
                    raise SystemExit(f"FAIL: {how}: key {sent!r} got {status} {text[:200]!r}")
            status, text = common.post_chat(port, body, key=key)
            if status != 200 or json.loads(text)["choices"][0]["message"]["content"] != answer:
                raise SystemExit(f"FAIL: {how}: with the key: {status} {text[:200]!r}")
        finally:
            server.terminate()
            server.wait(timeout=30)
        if key in open(log_name).read():
            raise SystemExit(f"FAIL: {how}: the key is in the server's log")
        print(f"ok: with a key from {how}: 401 without it or with a wrong one, the same answer with it")


def main():
    args = common.parse_args()
    model = os.path.join(args.source_dir, "examples", "models", "default")
    messages = [{"role": "user", "content": QUESTION}]
    local = json.loads(common.run([args.saguaro, "complete", model, "--messages", json.dumps(messages),
                                   "--options", json.dumps({"max_tokens": 8, "temperature": 0})], args).stdout)
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    env.pop("SAGUARO_SERVE_API_KEY", None)
    check_bad_key_files(args, model, env)
    server, port, _, models = common.start_serve(args, model, [], env, "serve.log")
    try:
        if [m["id"] for m in models["data"]] != ["default"]:
            raise SystemExit(f"FAIL: /v1/models: {models}")

        body = {"model": "default", "messages": messages, "max_tokens": 8, "temperature": 0}
        status, text = common.post_chat(port, body)
        reply = json.loads(text)
        answer = reply["choices"][0]["message"]["content"]
        if status != 200 or answer != local["response"]:
            raise SystemExit(f"FAIL: served {status} {answer!r}, local {local['response']!r}")
        print(f"ok: served the local answer {answer!r} ({reply['usage']})")

        status, text = common.post_chat(port, dict(body, stream=True))
        events = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
        pieces = "".join(json.loads(e)["choices"][0]["delta"].get("content") or ""
                         for e in events[:-1] if json.loads(e)["choices"])
        if status != 200 or events[-1] != "[DONE]" or pieces != answer:
            raise SystemExit(f"FAIL: streaming gave {pieces!r} ({status}, last event {events[-1]!r})")
        print(f"ok: streamed {len(events) - 1} chunks joining to the same answer")

        for i in range(50):
            status, _ = common.post_chat(port, body)
            if status != 200:
                raise SystemExit(f"FAIL: sequential request {i}: {status}")
        failures = []

        def client(k):
            for _ in range(4):
                s, t = common.post_chat(port, body)
                if s != 200 or json.loads(t)["choices"][0]["message"]["content"] != answer:
                    failures.append((k, s))
        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failures:
            raise SystemExit(f"FAIL: concurrent clients: {failures}")
        print("ok: 50 sequential and 8 concurrent clients x 4 requests, all answered alike")

        for what, raw in (("not JSON", b"{"), ("no messages", json.dumps({"model": "default"}).encode()),
                          ("bad role", json.dumps({"messages": [{"role": "robot", "content": "x"}]}).encode())):
            status, text = common.post_chat(port, None, raw=raw)
            if status != 400 or "message" not in json.loads(text).get("error", {}):
                raise SystemExit(f"FAIL: {what}: {status} {text[:200]!r}")
        print("ok: malformed requests get 400 with a JSON error")
    finally:
        server.terminate()
        server.wait(timeout=30)
    check_api_key(args, model, env, body, answer)


if __name__ == "__main__":
    main()
