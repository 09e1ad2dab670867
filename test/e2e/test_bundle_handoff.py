"""The cloud handoff inside a bundle's own C API (`saguaro compile --handoff`), driven through the bundle program's
`--serve-stdio` (token lines, then the response) and `--complete` modes, with a fake OpenAI-compatible cloud on
loopback that answers after a delay:
(a) confidence_threshold 0: the local answer, cloud_handoff false, its pieces delivered (after the decision);
(b) threshold 1 (the option's maximum) with the cloud reachable: the cloud's text as the response, provider and model set, and the only
    piece delivered is the cloud's text, after the cloud answered (no local piece leaks out before the decision);
(c) threshold 1 with a refused port: the local answer, cloud_handoff false, error set, within the time budget, its
    pieces delivered after the failed cloud step;
(d) "stream_local": true: the local pieces arrive before the cloud answered, then the cloud's text as one piece;
(e) a bundle compiled without --handoff refuses cloud_base_url with one line naming --handoff, and still accepts
    confidence_threshold (its local answer equals the --handoff bundle's local answer);
(f) `saguaro serve` with a hand-off policy in --options (any bundle; here the plain one) answers as `saguaro
    complete`: threshold 1 gives the cloud's text (streamed too) with "saguaro": {"cloud_handoff": true}, a refused
    cloud port the local answer with the error set; a bad policy option is one line before anything is compiled;
and the API key (SAGUARO_CLOUD_API_KEY) appears in no output."""
import json
import os
import subprocess
import time

import common

KEY = "sk-test-SECRET-bundle-4242"
MESSAGES = [{"role": "user", "content": "What is 17 + 25?"}]
CLOUD_TEXT = "The cloud says 42."
CLOUD_DELAY_S = 1.0  # the fake cloud answers after this long, so "before" and "after" the decision are far apart


class StdioProgram:
    """The bundle program in --serve-stdio mode: one request line in, timestamped token lines and the reply out."""

    def __init__(self, exe, bundle, log):
        self.proc = subprocess.Popen([exe, bundle, "--serve-stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=log, text=True)

    def ask(self, options):
        start = time.monotonic()
        self.proc.stdin.write(json.dumps({"messages": MESSAGES, "options": options}) + "\n")
        self.proc.stdin.flush()
        tokens = []  # (seconds since the request, piece)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("FAIL: the bundle program exited")
            if KEY in line:
                raise SystemExit("FAIL: the API key was printed")
            msg = json.loads(line)
            if "token" in msg:
                tokens.append((time.monotonic() - start, msg["token"]))
            elif "error" in msg:
                raise SystemExit(f"FAIL: {options}: {msg['error']}")
            else:
                common.check_response_schema(msg["response"], f"saguaro_complete with {options}")
                return msg["response"], tokens, time.monotonic() - start

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def check(ok, what, detail):
    if not ok:
        raise SystemExit(f"FAIL: {what}: {detail}")
    print(f"ok: {what}")


def main():
    args = common.parse_args()
    w = args.work_dir
    for var in ("SAGUARO_CLOUD_PROVIDER", "SAGUARO_CLOUD_BASE_URL", "SAGUARO_CLOUD_MODEL"):
        os.environ.pop(var, None)
    os.environ["SAGUARO_CLOUD_API_KEY"] = KEY  # inherited by every program; none may print it

    fake = common.FakeOpenAI(CLOUD_TEXT, delay=CLOUD_DELAY_S)
    cloud = fake.url

    t0 = time.monotonic()
    exe = common.build_default_bundle(args, os.path.join(w, "handoff"), ["--handoff"])
    print(f"built the --handoff bundle in {time.monotonic() - t0:.0f} s")
    manifest = json.load(open(os.path.join(w, "handoff", "manifest.json")))
    check(manifest.get("handoff") is True, "manifest.json records handoff: true", manifest.get("handoff"))
    base = {"max_tokens": 8, "temperature": 0, "cloud_provider": "openai", "cloud_base_url": cloud,
            "cloud_model": "fake-frontier", "cloud_timeout_ms": 5000, "spend_ledger_path": os.path.join(w, "ledger")}
    stderr_path = os.path.join(w, "stdio.stderr")
    with open(stderr_path, "w") as log:
        program = StdioProgram(exe, os.path.join(w, "handoff"), log)
        try:
            r, tokens, _ = program.ask(dict(base, confidence_threshold=0.0))
            local = r["response"]
            check(not r["cloud_handoff"] and r["error"] is None and local.strip() and r["handoff_reason"] == "confident"
                  and "".join(t for _, t in tokens) == local and not fake.requests
                  and r["decode_tokens"] > 0 and r["confidence_source"] == "entropy",
                  f"(a) threshold 0 kept the local answer {local!r} (confidence {r['confidence']:.3f}), "
                  f"{len(tokens)} pieces", (r, tokens))

            r, tokens, took = program.ask(dict(base, confidence_threshold=1.0))
            check(r["cloud_handoff"] and r["response"] == CLOUD_TEXT and r["error"] is None
                  and r["provider"] == "openai" and r["model"] == "fake-frontier" and r["local_response"] == local
                  and [b.get("model") for b in fake.requests] == ["fake-frontier"] and r["cloud_tokens"]["total"] == 16
                  and [t for _, t in tokens] == [CLOUD_TEXT] and tokens[0][0] >= CLOUD_DELAY_S
                  and r["timings"]["cloud_ms"] >= CLOUD_DELAY_S * 1000 and r["decode_tokens"] > 0,
                  f"(b) threshold 1 handed off: {r['response']!r} from {r['provider']}/{r['model']}, the only piece "
                  f"delivered {tokens[0][0]:.2f} s after the request (cloud delay {CLOUD_DELAY_S} s)", (r, tokens))

            r, tokens, took = program.ask(dict(base, confidence_threshold=1.0, stream_local=True))
            pieces = [t for _, t in tokens]
            check(r["cloud_handoff"] and r["response"] == CLOUD_TEXT and pieces[-1] == CLOUD_TEXT
                  and "".join(pieces[:-1]) == local and len(pieces) >= 2 and tokens[0][0] < CLOUD_DELAY_S / 2
                  and tokens[-1][0] >= CLOUD_DELAY_S,
                  f"(d) stream_local: {len(pieces) - 1} local pieces from {tokens[0][0]:.2f} s, then the cloud's "
                  f"text at {tokens[-1][0]:.2f} s", (r, tokens))

            refused = dict(base, confidence_threshold=1.0, cloud_base_url="http://127.0.0.1:9/v1",
                           cloud_timeout_ms=1500)
            r, tokens, took = program.ask(refused)
            check(not r["cloud_handoff"] and r["error"] and r["response"] == local
                  and "".join(t for _, t in tokens) == local and tokens[0][0] >= r["timings"]["cloud_ms"] / 1000
                  and took < 1.5 + 1.0 + 2.0,
                  f"(c) refused cloud: the local answer with error {r['error']!r} in {took:.2f} s, its pieces "
                  f"delivered after the {r['timings']['cloud_ms']} ms cloud step", (r, tokens))
        finally:
            program.close()
    stderr = open(stderr_path).read()
    check(KEY not in stderr, "the key is in no stderr line of the bundle program", stderr[-500:])

    # --complete (what `saguaro complete` runs) takes the same options: a bad policy option is one line, exit 1.
    msgs, opts = os.path.join(w, "messages.json"), os.path.join(w, "options.json")
    with open(msgs, "w") as f:
        json.dump(MESSAGES, f)
    with open(opts, "w") as f:
        json.dump(dict(base, colour="blue"), f)
    proc = common.run([exe, os.path.join(w, "handoff"), "--complete", msgs, "--options", opts], args, check=False)
    err = proc.stderr.decode()
    check(proc.returncode != 0 and "colour" in err and len(err.strip().splitlines()) == 1 and KEY not in err,
          f"--complete with an unknown option: {err.strip()}", (proc.returncode, err))

    t0 = time.monotonic()
    plain = common.build_default_bundle(args, os.path.join(w, "plain"), [])
    print(f"built the plain bundle in {time.monotonic() - t0:.0f} s")
    manifest = json.load(open(os.path.join(w, "plain", "manifest.json")))
    check(manifest.get("handoff") is False, "manifest.json records handoff: false", manifest.get("handoff"))
    with open(opts, "w") as f:
        json.dump({"max_tokens": 8, "cloud_base_url": cloud}, f)
    proc = common.run([plain, os.path.join(w, "plain"), "--complete", msgs, "--options", opts], args, check=False)
    err = proc.stderr.decode()
    check(proc.returncode != 0 and "cloud_base_url" in err and "--handoff" in err
          and len(err.strip().splitlines()) == 1 and KEY not in err,
          f"(e) plain bundle: {err.strip()}", (proc.returncode, err))
    with open(opts, "w") as f:
        json.dump({"max_tokens": 8, "temperature": 0, "confidence_threshold": 0.5, "auto_handoff": True,
                   "cloud_timeout_ms": 1000}, f)
    proc = common.run([plain, os.path.join(w, "plain"), "--complete", msgs, "--options", opts], args)
    r = json.loads(proc.stdout)
    check(r["response"] == local and not r["cloud_handoff"] and "handoff_reason" not in r,
          f"(e) the plain bundle accepts the three old policy keys and answers {r['response']!r} locally", r)

    check_hybrid_serve(args, os.path.join(w, "plain"), dict(base, confidence_threshold=1.0), local)
    fake.close()


def check_hybrid_serve(args, bundle, policy, local):
    """(f) `saguaro serve BUNDLE --options POLICY`: the chat server applies the hand-off policy to every request."""
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "serve-cache"))
    body = {"model": "default", "messages": MESSAGES, "max_tokens": 8, "temperature": 0}
    proc, port, log, _ = common.start_serve(args, bundle, ["--options", json.dumps(policy)], env, "hybrid.log")
    try:
        status, text = common.post_chat(port, body)
        reply = json.loads(text)
        check(status == 200 and reply["choices"][0]["message"]["content"] == CLOUD_TEXT
              and reply["saguaro"]["cloud_handoff"] is True and reply["saguaro"]["error"] is None
              and reply["usage"]["completion_tokens"] == 5,
              "(f) served with a policy: the cloud's answer, saguaro.cloud_handoff true, the cloud's token count",
              (status, text[:500]))
        status, text = common.post_chat(port, dict(body, stream=True))
        events = [json.loads(e[6:]) for e in text.splitlines() if e.startswith("data: {")]
        pieces = "".join(e["choices"][0]["delta"].get("content") or "" for e in events if e["choices"])
        finish = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
        check(status == 200 and pieces == CLOUD_TEXT and finish and finish[0]["saguaro"]["cloud_handoff"] is True,
              "(f) streamed: the pieces join to the cloud's answer, the finish chunk says cloud_handoff", text[:500])
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    refused = dict(policy, cloud_base_url=f"http://127.0.0.1:{common.free_port()}/v1", cloud_timeout_ms=2000)
    proc, port, log2, _ = common.start_serve(args, bundle, ["--options", json.dumps(refused)], env, "hybrid-refused.log")
    try:
        status, text = common.post_chat(port, body)
        reply = json.loads(text)
        check(status == 200 and reply["choices"][0]["message"]["content"] == local
              and reply["saguaro"]["cloud_handoff"] is False and reply["saguaro"]["error"],
              f"(f) cloud port refused: the local answer {local!r}, error {reply['saguaro']['error']!r}",
              (status, text[:500]))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    check(KEY not in open(log).read() + open(log2).read(), "(f) the key is in no line of the servers' logs", "")

    model = os.path.join(args.source_dir, "examples", "models", "default")
    bad = subprocess.run([args.saguaro, "serve", model, "--port", "0", "--options", json.dumps({"colour": "blue"})],
                         env=dict(env, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "never-used")),
                         capture_output=True, text=True, timeout=60)
    check(bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "colour" in bad.stderr
          and not os.path.exists(os.path.join(args.work_dir, "never-used")),
          f"(f) an unknown policy option is one line before compiling: {bad.stderr.strip()}", bad.stderr)


if __name__ == "__main__":
    main()
