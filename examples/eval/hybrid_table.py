"""Local-only, cloud-only and hybrid accuracy on the probe's held-out task families, in one table (issue 7).

    /usr/bin/python3 examples/eval/hybrid_table.py --saguaro build/bin/saguaro --tasks build/probe/tasks.jsonl \\
        --data build/probe/data.spd --probe build/probe/probe.bin --cloud-url http://127.0.0.1:8090 [--json OUT]

The local answers, their labels and entropies come from the probe data file (`saguaro probe collect`), the
probe's p(wrong) from `saguaro probe eval --scores` (the same float computation the compiled probe reproduces
exactly), and the thresholds from `saguaro probe calibrate` on the validation samples of the training families
(hand-off rates 0.1, 0.25, 0.5), so nothing is tuned on the held-out families. The "cloud" is any
OpenAI-compatible server (`saguaro serve examples/models/cloud`); every held-out question is sent to it once
(temperature 0) and graded by examples/tasks/grade.py. A hybrid row hands a question to the cloud when the local
confidence (1 − p(wrong), or exp(−mean token entropy) for the entropy policy) is below the threshold.

Thresholds from the training families' validation samples move when the traffic does: on the held-out families
the probe's p(wrong) sits lower, so the stricter ones hand off almost nothing. A deployment sets its hand-off rate
on its own traffic instead, which needs no labels — only the confidences of recent requests. The "deployment"
rows do that without looking at a question's own confidence: the held-out questions are cut in two folds (by a
hash of their id), each fold's threshold is the quantile of the *other* fold's confidences that hands off the
target rate, and no label is used. The "random" rows hand off the same fractions at random (their expected
accuracy, computed exactly): what a confidence signal must beat to be worth anything.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tasks"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "reference"))
import grade  # noqa: E402
import probe_reference  # noqa: E402

RATES = (0.1, 0.25, 0.5)


def ask_cloud(url, question, max_tokens=64):
    """The cloud's answer and its token count; worked answers (examples/train/worked.py) run to ~50 tokens."""
    body = {"model": "cloud", "messages": [{"role": "user", "content": question}], "max_tokens": max_tokens,
            "temperature": 0}
    req = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        reply = json.loads(r.read())
    return reply["choices"][0]["message"]["content"], reply["usage"]["total_tokens"]


def threshold_at(rate, scores_by_role):
    """The confidence threshold that hands off `rate` of the validation samples (highest 1 − confidence first),
    computed as `saguaro probe calibrate` does for the probe."""
    p = sorted(scores_by_role, reverse=True)
    k = round(rate * len(p))
    if k == 0:
        return 1.0 - p[0] - 1e-9
    if k >= len(p):
        return 1.0
    return 1.0 - (p[k - 1] + p[k]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--saguaro", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--cloud-url", required=True)
    ap.add_argument("--json", help="also write the table as JSON here")
    a = ap.parse_args()

    tasks = {t["id"]: t for t in map(json.loads, open(a.tasks))}
    data = probe_reference.read_data(a.data)["samples"]
    with tempfile.TemporaryDirectory() as tmp:
        scores_path = os.path.join(tmp, "scores.json")
        subprocess.run([a.saguaro, "probe", "eval", a.probe, a.data, "--scores", scores_path], check=True,
                       stdout=subprocess.DEVNULL)
        scores = json.load(open(scores_path))
    p_wrong = dict(zip(scores["id"], scores["probe"]))
    role = dict(zip(scores["id"], scores["role"]))
    entropy_conf = {s["id"]: math.exp(-float(sum(s["entropy"])) / len(s["entropy"])) for s in data}

    validation = [s["id"] for s in data if role[s["id"]] == "validation"]
    heldout = [s for s in data if s["heldout"]]
    probe_thresholds = {}
    for r in RATES:  # `saguaro probe calibrate` gives the p(wrong) threshold; hand off when p(wrong) exceeds it
        out = subprocess.run([a.saguaro, "probe", "calibrate", a.probe, a.data, "--handoff-rate", str(r), "--json"],
                             check=True, capture_output=True).stdout
        probe_thresholds[r] = 1.0 - json.loads(out)["threshold"]
    entropy_thresholds = {r: threshold_at(r, [1 - entropy_conf[i] for i in validation]) for r in RATES}

    cloud_right, cloud_tokens = {}, {}
    for s in heldout:
        text, tokens = ask_cloud(a.cloud_url, tasks[s["id"]]["question"])
        cloud_right[s["id"]] = grade.is_right(text, tasks[s["id"]]["accept"])
        cloud_tokens[s["id"]] = tokens

    confidence = {"probe": lambda i: 1 - p_wrong[i], "entropy": lambda i: entropy_conf[i]}
    # Deployment calibration: each fold's threshold from the other fold's unlabeled confidences.
    fold = {s["id"]: zlib.crc32(s["id"].encode()) % 2 for s in heldout}
    deployment = {}
    for name, conf in confidence.items():
        for r in RATES:
            deployment[name, r] = {f: threshold_at(r, [1 - conf(s["id"]) for s in heldout if fold[s["id"]] != f])
                                   for f in (0, 1)}

    n = len(heldout)
    rows = [{"policy": "local only", "accuracy": sum(not s["wrong"] for s in heldout) / n, "handoff": 0.0,
             "cloud_tokens": 0},
            {"policy": "cloud only", "accuracy": sum(cloud_right.values()) / n, "handoff": 1.0,
             "cloud_tokens": sum(cloud_tokens.values())}]
    for name, thresholds in (("probe", probe_thresholds), ("entropy", entropy_thresholds)):
        conf = confidence[name]
        for r in RATES:
            t = thresholds[r]
            sent = [s["id"] for s in heldout if conf(s["id"]) < t]
            right = sum(cloud_right[s["id"]] if conf(s["id"]) < t else not s["wrong"] for s in heldout)
            rows.append({"policy": f"hybrid, {name}, threshold {t:.3f} (validation hand-off {r:.2f})",
                         "accuracy": right / n, "handoff": len(sent) / n,
                         "cloud_tokens": sum(cloud_tokens[i] for i in sent)})

    local_acc = rows[0]["accuracy"]
    for name, conf in confidence.items():
        for r in RATES:
            t = deployment[name, r]
            sent = {s["id"] for s in heldout if conf(s["id"]) < t[fold[s["id"]]]}
            right = sum(cloud_right[s["id"]] if s["id"] in sent else not s["wrong"] for s in heldout)
            rows.append({"policy": f"hybrid, {name}, deployment hand-off {r:.2f} (thresholds {t[0]:.3f} / "
                                   f"{t[1]:.3f} from the other fold)",
                         "accuracy": right / n, "handoff": len(sent) / n,
                         "cloud_tokens": sum(cloud_tokens[i] for i in sent)})
    cloud_acc = rows[1]["accuracy"]
    for r in RATES:
        rows.append({"policy": f"random hand-off {r:.2f} (expected)", "accuracy": (1 - r) * local_acc + r * cloud_acc,
                     "handoff": r, "cloud_tokens": round(r * rows[1]["cloud_tokens"])})

    print(f"held-out families: {n} questions\n")
    print("| policy | accuracy | hand-off fraction | cloud tokens |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['policy']} | {100 * r['accuracy']:.1f} % | {100 * r['handoff']:.1f} % | {r['cloud_tokens']} |")
    if a.json:
        json.dump({"heldout_n": n, "rows": rows}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
