"""Could the hand-off learn from the cloud's own answers? A measurement on the probe's held-out families (issue 7).

    /usr/bin/python3 examples/eval/cloud_label_probe.py --tasks build/probe/tasks.jsonl \\
        --data build/probe/data.spd --cloud-url http://127.0.0.1:8090

A deployment that hands requests to a cloud model sees the cloud's answers to them: where the local answer differs
from the cloud's, the local one is probably wrong. That is a label that needs no grader, on the deployment's own
traffic, so a probe trained on it does not have to transfer to unseen task families. This script measures how
far that goes. The held-out questions are cut into the two folds of examples/eval/hybrid_table.py (a hash of their
id); on one fold a logistic regression (test/reference/probe_reference.py: Newton, L2, standardized features)
learns p(wrong) from the mean-pooled hidden states and the answer's entropy statistics, and it scores the other
fold, whose hand-off threshold is the quantile of the first fold's scores (as the "deployment" rows of
hybrid_table.py). Labels:

- `cloud`: the local answer's extracted text (examples/tasks/grade.py) differs from the cloud's, on all of the
  fold, or on a random quarter of it (what an exploration phase that hands off a quarter of the requests at
  random would collect);
- `grader` (a bound, not a deployable policy): the fold's true labels — the best a linear read-out of these
  hidden states can do on these families with perfect labels.

Accuracy counts a handed-off question as the cloud's graded answer and a kept one as the local answer's.
"""
import argparse
import json
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tasks"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "reference"))
import grade  # noqa: E402
import hybrid_table  # noqa: E402
import probe_reference  # noqa: E402

RATES = (0.1, 0.25, 0.5)


def features(sample):
    e = np.asarray(sample["entropy"], np.float64)
    return np.concatenate([sample["hidden"].mean(0), [e.mean(), e.max(), e[0], len(e)]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--cloud-url", required=True)
    ap.add_argument("--seed", type=int, default=1, help="the exploration sample's seed")
    a = ap.parse_args()

    tasks = {t["id"]: t for t in map(json.loads, open(a.tasks))}
    heldout = [s for s in probe_reference.read_data(a.data)["samples"] if s["heldout"]]
    cloud_text, cloud_right = {}, {}
    for s in heldout:
        text, _ = hybrid_table.ask_cloud(a.cloud_url, tasks[s["id"]]["question"])
        cloud_text[s["id"]] = text
        cloud_right[s["id"]] = grade.is_right(text, tasks[s["id"]]["accept"])

    X = np.array([features(s) for s in heldout])
    wrong = np.array([s["wrong"] for s in heldout], bool)
    differs = np.array([grade.extract_answer(s["answer"]) != grade.extract_answer(cloud_text[s["id"]])
                        for s in heldout])
    cloud_ok = np.array([cloud_right[s["id"]] for s in heldout])
    fold = np.array([zlib.crc32(s["id"].encode()) % 2 for s in heldout])
    n = len(heldout)
    print(f"held-out families: {n} questions; local accuracy {100 * (1 - wrong.mean()):.1f} %, cloud "
          f"{100 * cloud_ok.mean():.1f} %; the local answer differs from the cloud's on {100 * differs.mean():.1f} %, "
          f"which agrees with the grader's label on {100 * (differs == wrong).mean():.1f} %\n")

    rng = np.random.default_rng(a.seed)
    explored = rng.random(n) < 0.25
    print("| labels | trained on | AUROC | " + " | ".join(f"hand-off {r:.2f}: accuracy (fraction)" for r in RATES)
          + " |")
    print("|---|---|---|" + "---|" * len(RATES))
    for name, labels, use in (("cloud", differs, np.ones(n, bool)), ("cloud", differs, explored),
                              ("grader (bound)", wrong, np.ones(n, bool))):
        score = np.zeros(n)
        for f in (0, 1):
            train = (fold == f) & use
            score[fold != f] = probe_reference.logistic_regression(X[train], labels[train].astype(float))(
                X[fold != f])
        cells = []
        for r in RATES:
            sent = np.zeros(n, bool)
            for f in (0, 1):
                t = hybrid_table.threshold_at(r, list(score[fold != f]))  # a confidence threshold: 1 - p(wrong)
                sent[fold == f] = 1 - score[fold == f] < t
            accuracy = np.where(sent, cloud_ok, ~wrong).mean()
            cells.append(f"{100 * accuracy:.1f} % ({100 * sent.mean():.1f} %)")
        trained = int(use.sum() / 2)
        print(f"| {name} | ~{trained} per fold | {probe_reference.auroc(score, wrong):.3f} | " + " | ".join(cells)
              + " |")


if __name__ == "__main__":
    main()
