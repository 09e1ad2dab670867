"""Answer a task file greedily with the PyTorch model, grade it, and print accuracy and answer entropy.

    /usr/bin/python3 examples/tasks/evaluate_torch.py examples/models/default TASKS.jsonl [--json OUT]

Per family x difficulty cell it prints the accuracy and the mean answer-token entropy (nats) of right and of
wrong answers. A task's answer-token entropy is the mean, over the generated tokens after the leading space up
to and including the token that ends the answer (newline or <eos>), of the entropy of the model's
next-token distribution at that step. Grading follows grade.py.
"""

import argparse
import json
import math
import os
import sys
from typing import Dict, List, Tuple

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import grade  # noqa: E402
from generate import read_jsonl  # noqa: E402
from hf_files import BOS_ID, EOS_ID, CharTokenizer  # noqa: E402
from torch_logits import load_model  # noqa: E402

MAX_NEW_TOKENS = 16  # one-step answers; the cloud model's worked answers need WORKED_MAX_NEW_TOKENS
WORKED_MAX_NEW_TOKENS = 64


def load_tokenizer(model_dir: str) -> CharTokenizer:
    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    chars = [t for t, i in sorted(vocab.items(), key=lambda kv: kv[1]) if i >= 4]
    return CharTokenizer(chars)


@torch.no_grad()
def answer(model, tok: CharTokenizer, questions: List[str],
           max_new_tokens: int = MAX_NEW_TOKENS) -> List[Tuple[str, List[float]]]:
    """Greedy answers: (generated text without <eos>, entropies of the answer tokens), per question."""
    newline = tok.encode("\n")[0]
    space = tok.encode(" ")[0]
    prompts = [[BOS_ID] + tok.encode(grade.prompt(q)) for q in questions]
    results: List = [None] * len(prompts)
    by_len: Dict[int, List[int]] = {}
    for i, p in enumerate(prompts):
        by_len.setdefault(len(p), []).append(i)
    for _, idx in sorted(by_len.items()):
        ids = torch.tensor([prompts[i] for i in idx])
        gen, ent = [[] for _ in idx], [[] for _ in idx]
        done = [False] * len(idx)
        for _ in range(max_new_tokens):
            logp = torch.log_softmax(model(ids)[:, -1].double(), dim=-1)
            h = (-(logp.exp() * logp).sum(-1)).tolist()
            nxt = logp.argmax(-1)
            for r, t in enumerate(nxt.tolist()):
                if done[r]:
                    continue
                if t != space or gen[r]:
                    ent[r].append(h[r])
                if t == EOS_ID:
                    done[r] = True
                    continue
                gen[r].append(t)
                done[r] = t == newline
            if all(done):
                break
            ids = torch.cat([ids, nxt[:, None]], dim=1)
        for r, i in enumerate(idx):
            results[i] = (tok.decode(gen[r]), ent[r])
    return results


def evaluate(model, tok, tasks: List[Dict], max_new_tokens: int = MAX_NEW_TOKENS) -> List[Dict]:
    """Per task: id, cell, right, answer, mean answer-token entropy."""
    out = []
    for t, (text, ents) in zip(tasks, answer(model, tok, [t["question"] for t in tasks], max_new_tokens)):
        out.append({"id": t["id"], "cell": f"{t['family']}/{t['difficulty']}", "family": t["family"],
                    "difficulty": t["difficulty"], "heldout": t["heldout"], "guessable": t["guessable"],
                    "answer": grade.extract_answer(text), "right": grade.is_right(text, t["accept"]),
                    "entropy": sum(ents) / len(ents) if ents else 0.0})
    return out


def _mean(xs):
    return sum(xs) / len(xs) if xs else math.nan


def summarize(results: List[Dict]) -> List[Dict]:
    """One row per cell (in task-file order) plus pooled rows."""
    groups: Dict[str, List[Dict]] = {}
    for r in results:
        groups.setdefault(r["cell"], []).append(r)
    pools = {"probe-training families": [r for r in results if not r["heldout"]],
             "probe-held-out families": [r for r in results if r["heldout"]],
             "two-way guessable items": [r for r in results if r["guessable"]],
             "all": results}
    rows = []
    for name, rs in list(groups.items()) + list(pools.items()):
        right = [r for r in rs if r["right"]]
        wrong = [r for r in rs if not r["right"]]
        rows.append({"cell": name, "heldout": rs[0]["heldout"] if name in groups else None,
                     "guessable": rs[0]["guessable"] if name in groups else None, "n": len(rs),
                     "accuracy": len(right) / len(rs), "entropy_right": _mean([r["entropy"] for r in right]),
                     "entropy_wrong": _mean([r["entropy"] for r in wrong])})
    return rows


def format_table(rows: List[Dict]) -> str:
    lines = ["| cell | side | n | accuracy | entropy right | entropy wrong |", "|---|---|---|---|---|---|"]
    for r in rows:
        side = "" if r["heldout"] is None else ("held-out" if r["heldout"] else "training")
        if r["guessable"]:
            side += ", guessable"
        fmt = lambda x: "–" if math.isnan(x) else f"{x:.2f}"  # noqa: E731
        lines.append(f"| {r['cell']} | {side} | {r['n']} | {100 * r['accuracy']:.1f} % | "
                     f"{fmt(r['entropy_right'])} | {fmt(r['entropy_wrong'])} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("tasks")
    ap.add_argument("--json", help="write per-task results and the summary here")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-new-tokens", type=int, default=MAX_NEW_TOKENS,
                    help=f"answer length limit ({WORKED_MAX_NEW_TOKENS} for the cloud model's worked answers)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model = load_model(args.model).eval()
    tok = load_tokenizer(args.model)
    results = evaluate(model, tok, read_jsonl(args.tasks), args.max_new_tokens)
    rows = summarize(results)
    print(format_table(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": rows, "tasks": results}, f, indent=1)


if __name__ == "__main__":
    main()
