"""Write the task suite as JSON Lines, one task per line (docs/tasks.md):

    /usr/bin/python3 examples/tasks/generate.py --seed 1 --per-cell 100 -o tasks.jsonl

{"id": "add_2d/17", "family": "add_2d", "difficulty": 2, "heldout": false, "guessable": false,
 "question": "What is 17 + 25?", "accept": ["42"]}

Deterministic for a seed. Cells with an unbounded question space hold only questions absent from the default
model's training corpus (corpus.default_corpus()); cells with a small space (facts, 1-2 digit arithmetic,
...) hold questions from their space, which training covers (almost) completely.
"""

import argparse
import json
import os
import random
import sys
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import corpus  # noqa: E402
from families import FAMILIES, draw_tasks  # noqa: E402


def build_suite(seed: int, per_cell: int, training_questions=None) -> List[Dict]:
    """Every cell's tasks, in FAMILIES order; ids are family/index, numbered across a family's cells."""
    if training_questions is None:
        training_questions = frozenset(q for _, q, _ in corpus.default_corpus())
    tasks, counts = [], {}
    for fam in FAMILIES:
        rng = random.Random(f"{seed}/{fam.cell}")  # a cell's tasks do not depend on the other cells
        for q, accepted in draw_tasks(fam, per_cell, rng, training_questions):
            i = counts.get(fam.name, 0)
            counts[fam.name] = i + 1
            tasks.append({"id": f"{fam.name}/{i}", "family": fam.name, "difficulty": fam.difficulty,
                          "heldout": fam.heldout, "guessable": fam.guessable, "question": q,
                          "accept": list(accepted)})
    return tasks


def write_jsonl(tasks: List[Dict], path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for t in tasks:
            f.write(json.dumps(t, ensure_ascii=True) + "\n")


def read_jsonl(path: str) -> List[Dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser(description="Write the task suite (JSON Lines).")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-cell", type=int, default=100, help="tasks per family x difficulty cell (fewer if "
                    "the cell's question space is smaller)")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    tasks = build_suite(args.seed, args.per_cell)
    write_jsonl(tasks, args.output)
    print(f"{len(tasks)} tasks in {len(FAMILIES)} cells -> {args.output}")


if __name__ == "__main__":
    main()
