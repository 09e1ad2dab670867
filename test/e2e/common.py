"""Shared helpers for Saguaro's end-to-end tests: paths, running the CLI, skipping."""
import argparse
import http.server
import json
import os
import re
import shutil
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests
# The independent oracles of test/reference/ import as modules in every e2e test.
REFERENCE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
sys.path.insert(1, REFERENCE_DIR)
# ... and so does the checker of the one response schema (test/schema/response.schema.json).
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema"))
import check_response  # noqa: E402


def parse_args(extra=None):
    """Parses the arguments every e2e test gets from CMake."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--saguaro", required=True, help="path of build/bin/saguaro")
    ap.add_argument("--source-dir", required=True, help="the Saguaro checkout")
    ap.add_argument("--shared-dir", required=True, help="the ../shared test material")
    ap.add_argument("--work-dir", required=True, help="scratch directory of this test")
    for name, kwargs in (extra or {}).items():
        ap.add_argument(name, **kwargs)
    args = ap.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    return args


def require_shared(args, *relative):
    """Returns the path of a file in ../shared, or exits with SKIP and a clear message."""
    path = os.path.join(args.shared_dir, *relative)
    if not os.path.exists(path):
        print(f"SKIP: {path} is absent (this test needs the ../shared material beside the checkout)")
        sys.exit(SKIP)
    return path


def reference_script(args, name):
    """Path of an independent oracle in test/reference/."""
    return os.path.join(args.source_dir, "test", "reference", name)


def random_gemma4(args, out, variant, *extra):
    """Writes a tiny random Gemma 4 model (test/reference/make_random_gemma4.py --variant full|plain, then its other
    options in extra) to out."""
    run([python(), reference_script(args, "make_random_gemma4.py"), "--variant", variant, *extra, "-o", out], args)
    return out


def chat_gemma4(args, out, *extra):
    """random_gemma4 (variant plain, extra options) with the Gemma 4 tokenizer and chat template fixture
    (test/fixtures/chat_templates/gemma4/); with --audio, its audio ids moved to the fixture's <|audio> 20,
    <audio|> 21, <|audio|> 22."""
    random_gemma4(args, out, "plain", *extra)
    fixture = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4")
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja"):
        shutil.copy(os.path.join(fixture, name), out)
    if "--audio" in extra:
        config_path = os.path.join(out, "config.json")
        config = json.load(open(config_path))
        config.update({"boa_token_id": 20, "eoa_token_index": 21, "eoa_token_id": 21, "audio_token_id": 22})
        json.dump(config, open(config_path, "w"), indent=1)
    return out


def run(cmd, args, check=True, **kwargs):
    """Runs a command with the test's private bundle cache; returns the CompletedProcess."""
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    proc = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, **kwargs)
    if check and proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode(errors="replace"))
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))} exited with {proc.returncode}")
    return proc


def refused(args, what, cmd, expect):
    """Runs cmd, which writes its -o file, and fails the test unless it is refused: exit 1, a last line on stderr
    holding expect, nothing written."""
    out = cmd[cmd.index("-o") + 1]
    proc = run(cmd, args, check=False)
    lines = proc.stderr.decode().strip().splitlines()
    said = lines[-1] if lines else "(nothing said)"
    print(f"refused: {what}: {said}")
    if not (proc.returncode == 1 and lines and expect in lines[-1] and not os.path.exists(out)):
        raise SystemExit(f"FAIL: refused: {what}")


def cpu_flags():
    """The x86 feature flags /proc/cpuinfo lists (the kernel's spelling, e.g. avx512_vnni); empty elsewhere."""
    if os.path.exists("/proc/cpuinfo"):
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def target_flags(args, target):
    """The compiler flags of `target`, read from the compiler's one target table (kernels/targets.h)."""
    header = os.path.join(args.source_dir, "codegen", "kernels", "include", "saguaro", "kernels", "targets.h")
    match = re.search(r'\{"' + re.escape(target) + r'",\s*TargetArch::\w+,\s*"([^"]*)"', open(header).read())
    if not match:
        raise SystemExit(f"FAIL: {target} is not a row of {header}")
    return match.group(1)


def cpu_refusal(bundle, target, missing):
    """The one line a bundle program compiled for `target` prints when the CPU lacks `missing` (space-separated
    extension names): BoundModel::bind in runtime-min/src/model_state.cpp."""
    return (f"saguaro: {bundle}/weights.sgw: the model was compiled for {target}, but this CPU lacks {missing} "
            "(compile it with --target native, or generic)")


def python():
    """Debian's python3, which has numpy (the pyenv one on PATH may not)."""
    return "/usr/bin/python3"


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post_chat(port, body, raw=None, key=None):
    """POST /v1/chat/completions on 127.0.0.1:port (JSON `body`, or `raw` bytes); returns (status, text)."""
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def run_concurrently(client, n):
    """client(0) ... client(n - 1), each on its own thread; returns when all have."""
    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def start_serve(args, model, extra, env, log_name):
    """`saguaro serve MODEL --port P --model-id default EXTRA...`, once /v1/models answers (any status): returns
    (process, port, log path, /v1/models JSON)."""
    port = free_port()
    log = open(os.path.join(args.work_dir, log_name), "w")
    server = subprocess.Popen([args.saguaro, "serve", model, "--port", str(port), "--model-id", "default"] + extra,
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 600  # the first start may compile and build the bundle
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
                return server, port, log.name, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return server, port, log.name, json.loads(e.read())
        except (urllib.error.URLError, ConnectionError):
            if server.poll() is not None or time.time() > deadline:
                server.kill()
                raise SystemExit(f"FAIL: the server did not start: {open(log.name).read()[-2000:]}")
            time.sleep(0.5)


def python_package(args):
    """A fresh virtual environment (Debian's python3-venv) with the Python package (bindings/python) installed
    from a copy of the checkout's, offline: no index, no build isolation. Its setuptools and wheel are Debian's
    (python3-setuptools, python3-wheel), seen through --system-site-packages: ensurepip installs pip and setuptools
    but not wheel, which setuptools needs to build. Returns the environment's python."""
    venv = os.path.join(args.work_dir, "venv")
    source = os.path.join(args.work_dir, "python-package")  # pip builds in place: keep the checkout clean
    shutil.copytree(os.path.join(args.source_dir, "bindings", "python"), source)
    run([python(), "-m", "venv", "--system-site-packages", venv], args)
    pip_env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}  # no extra sources of packages
    proc = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-index", "--no-build-isolation",
                           "--no-deps", source], env=dict(pip_env, PIP_NO_INDEX="1"), capture_output=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace"))
        raise SystemExit(f"FAIL: installing {source} into {venv} offline failed")
    return os.path.join(venv, "bin", "python")


def binding_example(args, page, language, interpreter, directory):
    """The bindings' docs examples as tests: compiles the default model into WORK/bundle (its library not built),
    writes the first ```LANGUAGE block of docs/PAGE into DIRECTORY and runs it there with INTERPRETER on the bundle.
    Fails unless it exits 0, init built BUNDLE/build/libsaguaro.so, and it printed the streamed answer, then
    "answered on the device (confidence C): ANSWER" with the same, non-blank, answer. Returns the bundle."""
    bundle = os.path.join(args.work_dir, "bundle")
    run([args.saguaro, "compile", os.path.join(args.source_dir, "examples", "models", "default"), "-o", bundle], args)
    match = re.search(r"```" + language + r"\n(.*?)```", open(os.path.join(args.source_dir, "docs", page)).read(),
                      re.S)
    if not match:
        raise SystemExit(f"FAIL: docs/{page} has no ```{language} block")
    example = os.path.join(directory, "example")
    open(example, "w").write(match.group(1))
    proc = subprocess.run([interpreter, example, bundle], cwd=directory, capture_output=True)
    out = proc.stdout.decode()
    if proc.returncode != 0:
        raise SystemExit(f"FAIL: the docs/{page} example exited with {proc.returncode}: {out}"
                         f"{proc.stderr.decode(errors='replace')}")
    if not os.path.exists(os.path.join(bundle, "build", "libsaguaro.so")):
        raise SystemExit("FAIL: init did not build BUNDLE/build/libsaguaro.so")
    streamed, _, verdict = out.rstrip("\n").rpartition("\n")
    match = re.fullmatch(r"answered on the device \(confidence (0\.\d\d|1\.00)\): (.*)", verdict, re.S)
    if not match or match.group(2) != streamed or not streamed.strip():
        raise SystemExit(f"FAIL: the docs/{page} example printed {out!r}")
    print(f"ok: the docs/{page} example streamed {streamed!r}, confidence {match.group(1)}")
    return bundle


def node_package(args):
    """A fresh npm project (WORK/node-app) with the Node package (bindings/node) installed from the checkout as a
    copy (--install-links): npm fetches node-addon-api from the npm registry, its only source (or its cache), and
    the package's install step builds the addon with node-gyp against this Node.js's headers, downloading none
    (bindings/node/scripts/build.js). Returns the project's directory, whose node_modules has `saguaro`."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"FAIL: no {tool} on PATH (./dev test installs Debian's nodejs and npm)")
    app = os.path.join(args.work_dir, "node-app")
    os.makedirs(app)
    with open(os.path.join(app, "package.json"), "w") as f:
        json.dump({"name": "saguaro-test-app", "private": True}, f)
    proc = subprocess.run(["npm", "install", "--install-links", "--prefer-offline", "--foreground-scripts",
                           os.path.join(args.source_dir, "bindings", "node")], cwd=app, capture_output=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace"))
        raise SystemExit(f"FAIL: installing bindings/node into {app} with npm failed")
    return app


def build_bundle(args, model, out, extra=()):
    """saguaro compile MODEL -o OUT [extra], then the bundle's own CMake build (the program and libsaguaro.so in
    OUT/build); returns the program."""
    run([args.saguaro, "compile", model, "-o", out, *extra], args)
    run(["cmake", "-S", out, "-B", out + "/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
    run(["cmake", "--build", out + "/build"], args)
    return out + "/build/saguaro_bundle"


def build_default_bundle(args, out, extra=()):
    """build_bundle of examples/models/default."""
    return build_bundle(args, os.path.join(args.source_dir, "examples", "models", "default"), out, extra)


def check_response_schema(response, what):
    """Exits with FAIL when `response` (parsed JSON) breaks the response schema; `what` names where it came from."""
    problems = check_response.problems(response)
    if problems:
        raise SystemExit(f"FAIL: {what}: the response breaks test/schema/response.schema.json: {problems}; "
                         f"the response: {response}")


class FakeOpenAI:
    """An OpenAI-compatible cloud on 127.0.0.1 for hand-off tests: POST /v1/chat/completions answers `text` as a
    chat.completion (11 prompt + 5 completion tokens) after `delay` seconds; `requests` holds each request's body.
    `url` is the base URL to give as cloud_base_url."""

    def __init__(self, text, delay=0.0):
        self.requests = []
        cloud = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                cloud.requests.append(body)
                time.sleep(delay)
                reply = json.dumps({"id": "fake", "object": "chat.completion", "model": body.get("model"),
                                    "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": text}}],
                                    "usage": {"prompt_tokens": 11, "completion_tokens": 5,
                                              "total_tokens": 16}}).encode()
                self.send_response(200 if self.path == "/v1/chat/completions" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *_):
                pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()


def greedy_reference(args, command, ids, steps, stop_ids, vocab, tokenizer):
    """The reference's greedy continuation of the prompt `ids` (token id strings): up to `steps` ids (as strings),
    each the argmax of the last row of the logits `command` + [--tokens IDS -o OUT --write-ids EXPANDED] writes, until
    a stop id or one of the random model's ids the tokenizer lacks (>= vocab). Returns (continuation, the expanded
    prompt's length: the positions the program prefills, the continuation's text as `saguaro tokenize TOKENIZER
    --decode` gives it); fails the test when that text is empty, since comparing with it would prove nothing."""
    import numpy as np  # the tests that compare with a reference have it; the others need not
    prompt, expanded = os.path.join(args.work_dir, "greedy-prompt.txt"), os.path.join(args.work_dir, "greedy-ids.txt")
    logits = os.path.join(args.work_dir, "greedy-logits.npy")
    continuation, fed = [], 0
    for _ in range(steps):
        fed = len(continuation)  # the generated ids the expanded prompt of this step holds
        open(prompt, "w").write(" ".join(ids + continuation) + "\n")
        run([*command, "--tokens", prompt, "-o", logits, "--write-ids", expanded], args)
        token = int(np.argmax(np.load(logits)[-1]))
        if token in stop_ids or token >= vocab:
            break
        continuation.append(str(token))
    text = run([args.saguaro, "tokenize", tokenizer, " ".join(continuation), "--decode"], args).stdout.decode()
    if not text.strip():
        raise SystemExit(f"FAIL: the reference's greedy continuation {continuation} decodes to no text; "
                         "the check would prove nothing")
    return continuation, len(open(expanded).read().split()) - fed, text.strip("\n")


def check_serve_answers_and_refusals(args, model, compile_flags, good, answer, refusals, check, fields):
    """Starts `saguaro serve MODEL COMPILE_FLAGS` and checks that the messages `good` get `answer`, that each (what,
    messages, expect) of `refusals` gets 400 and one line holding expect, and that `good` still gets `answer`
    afterwards: the server keeps serving. `fields`: the requests' other fields (max_tokens, temperature, ...)."""
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    env.pop("SAGUARO_SERVE_API_KEY", None)
    server, port, _, _ = start_serve(args, model, compile_flags, env, "serve.log")
    try:
        def ask(messages):
            status, text = post_chat(port, {"model": "default", "messages": messages, **fields})
            return status, json.loads(text)

        status, r = ask(good)
        check("serve answers as complete does", status == 200 and r["choices"][0]["message"]["content"] == answer,
              f"{status} {json.dumps(r)[:200]}")
        for what, messages, expect in refusals:
            status, r = ask(messages)
            message = r.get("error", {}).get("message", "")
            check(f"serve refuses {what} with 400", status == 400 and expect in message and "\n" not in message,
                  f"{status} {message!r}")
        status, r = ask(good)
        check("serve keeps serving", status == 200 and r["choices"][0]["message"]["content"] == answer,
              f"{status} {json.dumps(r)[:200]}")
    finally:
        server.terminate()
        server.wait(timeout=30)
