"""`saguaro serve` on the default model, over loopback:
- a non-streaming /v1/chat/completions answers what `saguaro complete` answers locally for the same question;
- a streaming request's content deltas join to the same text, ending with data: [DONE];
- 50 sequential and 8 concurrent clients (4 requests each) all succeed;
- malformed requests get 400 with an OpenAI-style JSON error; /v1/models lists the model.
(1000 sequential requests and the full malformed-request set run against a fake generator in handoff_tests.)"""
import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import common

QUESTION = "What is 17 + 25?"


def post(port, body, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    args = common.parse_args()
    model = os.path.join(args.source_dir, "examples", "models", "default")
    messages = [{"role": "user", "content": QUESTION}]
    local = json.loads(common.run([args.saguaro, "complete", model, "--messages", json.dumps(messages),
                                   "--options", json.dumps({"max_tokens": 8, "temperature": 0})], args).stdout)
    port = free_port()
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    log = open(os.path.join(args.work_dir, "serve.log"), "w")
    server = subprocess.Popen([args.saguaro, "serve", model, "--port", str(port), "--model-id", "default"],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 600  # the first start may compile and build the bundle
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
                    models = json.loads(r.read())
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"FAIL: the server did not start: {open(log.name).read()[-2000:]}")
                time.sleep(0.5)
        if [m["id"] for m in models["data"]] != ["default"]:
            raise SystemExit(f"FAIL: /v1/models: {models}")

        body = {"model": "default", "messages": messages, "max_tokens": 8, "temperature": 0}
        status, text = post(port, body)
        reply = json.loads(text)
        answer = reply["choices"][0]["message"]["content"]
        if status != 200 or answer != local["response"]:
            raise SystemExit(f"FAIL: served {status} {answer!r}, local {local['response']!r}")
        print(f"ok: served the local answer {answer!r} ({reply['usage']})")

        status, text = post(port, dict(body, stream=True))
        events = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
        pieces = "".join(json.loads(e)["choices"][0]["delta"].get("content") or ""
                         for e in events[:-1] if json.loads(e)["choices"])
        if status != 200 or events[-1] != "[DONE]" or pieces != answer:
            raise SystemExit(f"FAIL: streaming gave {pieces!r} ({status}, last event {events[-1]!r})")
        print(f"ok: streamed {len(events) - 1} chunks joining to the same answer")

        for i in range(50):
            status, _ = post(port, body)
            if status != 200:
                raise SystemExit(f"FAIL: sequential request {i}: {status}")
        failures = []

        def client(k):
            for _ in range(4):
                s, t = post(port, body)
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
            status, text = post(port, None, raw=raw)
            if status != 400 or "message" not in json.loads(text).get("error", {}):
                raise SystemExit(f"FAIL: {what}: {status} {text[:200]!r}")
        print("ok: malformed requests get 400 with a JSON error")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
