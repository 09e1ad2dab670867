"""Accuracy and hand-off rate on the task suite's arithmetic families, with and without the built-in tools tier.

    /usr/bin/python3 examples/eval/builtin_tools_table.py --saguaro build/bin/saguaro [--json OUT]

Compiles the tool-calling model (examples/models/tools) into a bundle with the cloud hand-off
(`saguaro compile --handoff`), serves the cloud model (examples/models/cloud) as the OpenAI-compatible cloud
(`saguaro serve`), and answers every question of the arithmetic families of the suite
(`examples/tasks/generate.py --seed 1 --per-cell 100`) through the bundle's C API (the Python package) four ways:

- local only: the model alone;
- local + built-in tools: `"builtin_tools": ["math", "dates", "units"]`: the model's `math` calls run in-process
  and their results are fed back (docs/builtin-tools.md);
- hybrid: the model alone, its answer handed to the cloud when its confidence is below the threshold;
- hybrid + built-in tools: the same policy applied to the answer after the built-in calls.

Greedy decoding; answers graded by examples/tasks/grade.py. The confidence is the runtime's entropy confidence
(the model has no compiled probe), and one threshold serves both hybrid rows.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "examples", "tasks"))
sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
import generate  # noqa: E402
import grade  # noqa: E402
import saguaro  # noqa: E402
from families import ARITHMETIC_FAMILIES  # noqa: E402

BUILTIN = ["math", "dates", "units"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_cloud(saguaro_bin, model, work):
    """`saguaro serve` of the cloud model on a free port, once it answers: (process, base URL)."""
    port = free_port()
    log = open(os.path.join(work, "cloud.log"), "w")
    proc = subprocess.Popen([saguaro_bin, "serve", model, "--port", str(port), "--model-id", "cloud",
                             "--threads", "1"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 900  # the first start compiles and builds the bundle
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5).read()
            return proc, f"http://127.0.0.1:{port}/v1"
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                raise SystemExit(f"the cloud server did not start: see {log.name}")
            time.sleep(1)


def modes(threshold, cloud_url, ledger):
    local = {"max_tokens": 120, "temperature": 0, "auto_handoff": False}
    # The spend caps (60 hand-offs an hour by default) would cut the table short: lifted, in a ledger of its own.
    hybrid = dict(local, auto_handoff=True, confidence_threshold=threshold, cloud_provider="openai",
                  cloud_base_url=cloud_url, cloud_model="cloud", max_cloud_tokens=64, spend_ledger_path=ledger,
                  max_handoffs_per_hour=100000, max_handoffs_per_day=100000, max_cloud_tokens_per_hour=10 ** 8,
                  max_cloud_tokens_per_day=10 ** 8)
    return [("local only", local), ("local + built-in tools", dict(local, builtin_tools=BUILTIN)),
            ("hybrid", hybrid), ("hybrid + built-in tools", dict(hybrid, builtin_tools=BUILTIN))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--saguaro", required=True, help="build/bin/saguaro")
    ap.add_argument("--model", default=os.path.join(REPO, "examples", "models", "tools"))
    ap.add_argument("--cloud", default=os.path.join(REPO, "examples", "models", "cloud"))
    ap.add_argument("--per-cell", type=int, default=100)
    ap.add_argument("--threshold", type=float, default=0.8, help="hand off when the confidence is below this")
    ap.add_argument("--hybrid-only", action="store_true", help="only the two hybrid rows (another threshold)")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "builtin-tools-table"))
    ap.add_argument("--json", help="also write every answer as JSON here")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(a.work, "cache"))
    os.environ.update(env)

    tasks = [t for t in generate.build_suite(1, a.per_cell) if t["family"] in ARITHMETIC_FAMILIES]
    bundle = os.path.join(a.work, "bundle")
    subprocess.run([a.saguaro, "compile", a.model, "-o", bundle, "--handoff"], check=True,
                   stdout=subprocess.DEVNULL)
    cloud, cloud_url = serve_cloud(a.saguaro, a.cloud, a.work)
    rows, answers = [], []
    try:
        with saguaro.init(bundle) as model:
            ledger = os.path.join(a.work, "spend-ledger.json")
            for name, options in modes(a.threshold, cloud_url, ledger)[2 if a.hybrid_only else 0:]:
                right = handed = called = errors = failed = 0
                t0 = time.time()
                for t in tasks:
                    try:
                        r = model.complete([{"role": "user", "content": t["question"]}], options)
                    except saguaro.SaguaroError as e:  # e.g. a call the model does not close: a wrong answer
                        r = e.response if isinstance(getattr(e, "response", None), dict) else {}
                        r.update(success=False, response=None, error=str(e))
                        failed += 1
                    ok = r["success"] and grade.is_right(r["response"] or "", t["accept"])
                    calls = r.get("builtin_tool_calls", [])
                    right += ok
                    handed += bool(r.get("cloud_handoff"))
                    called += bool(calls)
                    errors += any("error" in c for c in calls)
                    answers.append({"mode": name, "id": t["id"], "right": ok, "response": r["response"],
                                    "cloud_handoff": r.get("cloud_handoff"), "confidence": r.get("confidence"),
                                    "handoff_reason": r.get("handoff_reason"),
                                    "builtin_tool_calls": calls, "error": r.get("error")})
                n = len(tasks)
                rows.append((name, 100 * right / n, 100 * handed / n, 100 * called / n, errors, failed))
                print(f"{name}: {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        cloud.terminate()
        cloud.wait()
    print(f"{len(tasks)} questions (families {', '.join(ARITHMETIC_FAMILIES)}; suite seed 1, {a.per_cell} per "
          f"cell); hand-off threshold {a.threshold} on the entropy confidence\n")
    print("| mode | accuracy | hand-off rate | questions with a built-in call | tool errors | failed completions |")
    print("|---|---|---|---|---|---|")
    for name, acc, hand, call, err, fail in rows:
        print(f"| {name} | {acc:.1f} % | {hand:.1f} % | {call:.1f} % | {err} | {fail} |")
    cells = list(dict.fromkeys(f"{t['family']}/{t['difficulty']}" for t in tasks))
    cell_of = {t["id"]: f"{t['family']}/{t['difficulty']}" for t in tasks}
    print("\n| cell | n | " + " | ".join(name for name, *_ in rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for cell in cells:
        n = sum(cell_of[t["id"]] == cell for t in tasks)
        accs = [100 * sum(x["right"] for x in answers if x["mode"] == name and cell_of[x["id"]] == cell) / n
                for name, *_ in rows]
        print(f"| {cell} | {n} | " + " | ".join(f"{v:.0f} %" for v in accs) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(answers, f, indent=1)


if __name__ == "__main__":
    main()
