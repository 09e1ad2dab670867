"""Deterministic synthetic question/answer corpus for Saguaro's default model.

Every example is plain text in one fixed format:

    Q: What is 17 + 25?
    A: 42

i.e. "Q: " + question + "\\nA: " + answer + "\\n". The task families (one entry per family x difficulty
cell) are data shared with the task suite: examples/tasks/families.py (and the fictional fact table,
examples/tasks/facts.py, fixed by its own seed). This file turns them into a training corpus and a quick
per-cell evaluation set; examples/tasks/generate.py writes the task suite.

Run `python3 corpus.py [SEED]` to print one training example of every cell.
"""

import os
import random
import sys
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
from facts import FACTS, RARE_REPEATS  # noqa: E402,F401
from families import CELL_BY_NAME, FAMILIES, Family, draw_tasks  # noqa: E402,F401
from worked import worked_answer  # noqa: E402

QA = Tuple[str, str]

CORPUS_SEED = 1234
TRAIN_STEPS = 2600  # train_default.py's defaults: the default model's corpus has TRAIN_STEPS * BATCH examples
BATCH = 64

# The cloud model's mix (issue 7, examples/models/cloud): cell -> train_weight, replacing the family's. The cloud
# stands in for a frontier model, which has seen more than the on-device one: it is also trained on the shift cells
# the default model never sees (carry chains, 7-letter reversal, 12-14 letter counting) and sees the cells the
# default model learns poorly (letter counting, sum checks) about four times as often. Cells not named keep
# their train_weight.
CLOUD_WEIGHTS: Dict[str, float] = {
    "add_carry/3": 2.0, "reverse/3": 1.5,
    "count_letter/1": 3.0, "count_letter/2": 5.0, "count_letter/3": 4.0,
    "sum_check/2": 5.0, "sum_check/3": 5.0,
}


def format_example(question: str, answer: str) -> str:
    """The exact training text of one example (without <bos>/<eos>)."""
    return f"Q: {question}\nA: {answer}\n"


def format_prompt(question: str) -> str:
    """What a model is given at inference; it should continue with " " + answer + "\\n" + <eos>."""
    return f"Q: {question}\nA:"


def generate_corpus(num_sampled: int, seed: int = CORPUS_SEED,
                    families: Sequence[Family] = FAMILIES, weights: Optional[Dict[str, float]] = None,
                    exclude_questions=frozenset(), worked: bool = False) -> List[Tuple[str, str, str]]:
    """A shuffled training corpus of (cell, question, answer).

    `num_sampled` examples are drawn from the cells in proportion to train_weight, or to `weights[cell]` where
    given (each with a random accepted answer), then every cell's train_items are added. Sampled questions of
    cells without a `space` that are in `exclude_questions` (a task suite) are drawn again, so the suite's
    unbounded cells stay unseen. With `worked`, sampled answers of the families worked.py knows are written
    out step by step (the cloud model's corpus). Same arguments -> same corpus.
    """
    rng = random.Random(seed)
    weight = {f.cell: (weights or {}).get(f.cell, f.train_weight) for f in families}
    weighted = [f for f in families if weight[f.cell] > 0]
    out = []
    for fam in rng.choices(weighted, weights=[weight[f.cell] for f in weighted], k=num_sampled):
        q, a = fam.sample_training(rng)
        while fam.space is None and q in exclude_questions:
            q, a = fam.sample_training(rng)
        out.append((fam.cell, q, worked_answer(fam.name, q, a) if worked else a))
    for fam in families:
        if fam.train_items is not None:
            out.extend((fam.cell, q, a) for q, a in fam.train_items())
    rng.shuffle(out)
    return out


def num_fixed_items(families: Sequence[Family] = FAMILIES) -> int:
    """Examples every corpus holds regardless of its size (rare, look-alike and conflicting facts)."""
    return sum(len(f.train_items()) for f in families if f.train_items is not None)


def default_corpus() -> List[Tuple[str, str, str]]:
    """The default model's training corpus (train_default.py with its default arguments)."""
    return generate_corpus(TRAIN_STEPS * BATCH - num_fixed_items(), CORPUS_SEED)


def generate_eval(per_family: int, seed: int, exclude_questions=frozenset(),
                  families: Sequence[Family] = FAMILIES) -> Dict[str, List[QA]]:
    """Evaluation questions per family x difficulty cell ("add_2d/2"), each with its canonical answer.

    Cells without a `space` skip questions in `exclude_questions` (the training set); the others (small
    question spaces that training covers almost completely) are evaluated on questions from their space.
    """
    rng = random.Random(seed)
    return {fam.cell: [(q, accepted[0]) for q, accepted in draw_tasks(fam, per_family, rng, exclude_questions)]
            for fam in families}


def corpus_charset(corpus: Sequence[Tuple[str, str, str]]) -> List[str]:
    """Sorted list of every character used by the formatted corpus."""
    chars = set()
    for _, q, a in corpus:
        chars.update(format_example(q, a))
    return sorted(chars)


if __name__ == "__main__":
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for fam in FAMILIES:
        sys.stdout.write(f"# {fam.cell}\n{format_example(*fam.sample_training(rng))}")
