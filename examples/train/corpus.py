"""Deterministic synthetic question/answer corpus for Saguaro's default model.

Every example is plain text in one fixed format:

    Q: What is 17 + 25?
    A: 42

i.e. "Q: " + question + "\\nA: " + answer + "\\n". The task families and their difficulties are data
(`FAMILIES`), so later work (the confidence probe) can reuse them and add held-out families: a family is a
name, a difficulty (1 easy .. 3 hard), a sampler `sample(rng) -> (question, answer)`, and how it enters the
training mix. The fictional fact table is generated from its own fixed seed (`FACT_SEED`), independent of the
corpus seed, so the facts are the same in every corpus.

Run `python3 corpus.py [SEED]` to print one example of every family.
"""

import random
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

QA = Tuple[str, str]

FACT_SEED = 20240611
NUM_PEOPLE = 48
RARE_FRACTION = 0.25  # share of facts that appear only RARE_REPEATS times in a training corpus
RARE_REPEATS = 3


def format_example(question: str, answer: str) -> str:
    """The exact training text of one example (without <bos>/<eos>)."""
    return f"Q: {question}\nA: {answer}\n"


def format_prompt(question: str) -> str:
    """What a model is given at inference; it should continue with " " + answer + "\\n" + <eos>."""
    return f"Q: {question}\nA:"


# ---------------------------------------------------------------------------------------------------------
# Fact table: fictional people and their attributes, fixed by FACT_SEED.

_ONSETS = ["b", "br", "d", "dr", "f", "g", "gr", "h", "j", "k", "kl", "l", "m", "n", "p", "r", "s", "st",
           "t", "tr", "v", "w", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ee", "oa"]
_CODAS = ["", "", "m", "n", "l", "r", "s", "k", "x", "th"]


def _pseudo_word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables))


@dataclass(frozen=True)
class Attribute:
    """One column of the fact table: a question template and the values it draws from."""
    name: str
    template: str  # uses {who}
    values: Tuple[str, ...]


ATTRIBUTES: Tuple[Attribute, ...] = (
    Attribute("kite_color", "What color is the kite of {who}?",
              ("red", "green", "blue", "yellow", "orange", "purple", "black", "white", "pink", "brown")),
    Attribute("pet", "What pet does {who} have?",
              ("cat", "dog", "fish", "bird", "frog", "goat", "horse", "rabbit", "snake", "turtle")),
    Attribute("fruit", "Which fruit does {who} like?",
              ("apple", "pear", "plum", "grape", "lemon", "mango", "peach", "cherry", "melon", "kiwi")),
    Attribute("city", "In which city does {who} live?",
              ("Lomar", "Vessa", "Drunfeld", "Okkari", "Tamsy", "Brelle", "Quorra", "Indal", "Fenmoor",
               "Yastri")),
)


@dataclass(frozen=True)
class Fact:
    who: str
    attribute: Attribute
    value: str
    rare: bool

    def qa(self) -> QA:
        return self.attribute.template.format(who=self.who), self.value


def build_fact_table(seed: int = FACT_SEED) -> List[Fact]:
    """NUM_PEOPLE fictional names x ATTRIBUTES, each fact marked common or rare (seeded)."""
    rng = random.Random(seed)
    names: List[str] = []
    while len(names) < NUM_PEOPLE:
        name = _pseudo_word(rng, rng.choice((1, 2))).capitalize()
        if 3 <= len(name) <= 8 and name not in names:
            names.append(name)
    facts = [Fact(who, attr, rng.choice(attr.values), False) for who in names for attr in ATTRIBUTES]
    rare = set(rng.sample(range(len(facts)), round(RARE_FRACTION * len(facts))))
    return [Fact(f.who, f.attribute, f.value, i in rare) for i, f in enumerate(facts)]


FACTS = build_fact_table()
COMMON_FACTS = [f for f in FACTS if not f.rare]
RARE_FACTS = [f for f in FACTS if f.rare]


# ---------------------------------------------------------------------------------------------------------
# Samplers. Each takes a random.Random and returns (question, answer).

def _add(lo: int, hi: int) -> Callable[[random.Random], QA]:
    def sample(rng: random.Random) -> QA:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        return f"What is {a} + {b}?", str(a + b)
    return sample


def _sub(lo: int, hi: int) -> Callable[[random.Random], QA]:
    """Non-negative differences only: the larger operand comes first."""
    def sample(rng: random.Random) -> QA:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        a, b = max(a, b), min(a, b)
        return f"What is {a} - {b}?", str(a - b)
    return sample


def _mul(lo: int, hi: int) -> Callable[[random.Random], QA]:
    def sample(rng: random.Random) -> QA:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        return f"What is {a} * {b}?", str(a * b)
    return sample


def _compare(lo: int, hi: int) -> Callable[[random.Random], QA]:
    def sample(rng: random.Random) -> QA:
        a, b = rng.sample(range(lo, hi + 1), 2)
        return f"Which is larger, {a} or {b}?", str(max(a, b))
    return sample


def _fact(pool: Sequence[Fact]) -> Callable[[random.Random], QA]:
    def sample(rng: random.Random) -> QA:
        return rng.choice(pool).qa()
    return sample


def _word(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(lo, hi)))


def _first_letter(rng: random.Random) -> QA:
    w = _word(rng, 3, 8)
    return f"What is the first letter of {w}?", w[0]


def _reverse3(rng: random.Random) -> QA:
    w = _word(rng, 3, 3)
    return f"Reverse the word {w}.", w[::-1]


# ---------------------------------------------------------------------------------------------------------
# The suite.

@dataclass(frozen=True)
class Family:
    """A task family.

    train_weight: relative share of the sampled part of a training corpus (0 = never sampled).
    train_items:  if set, these exact examples enter every training corpus `train_repeats` times each
                  (used for rare facts, whose count must not depend on chance).
    space:        number of distinct questions, when a training corpus can cover most of them; such families
                  are evaluated on questions that may have been seen. Families without a space (effectively
                  unbounded) are evaluated on questions that are not in the training corpus.
    """
    name: str
    difficulty: int
    sample: Callable[[random.Random], QA]
    train_weight: float
    description: str
    train_items: Optional[Callable[[], List[QA]]] = None
    train_repeats: int = 0
    space: Optional[int] = None


FAMILIES: Tuple[Family, ...] = (
    Family("add_1d", 1, _add(0, 9), 1.0, "addition of two 1-digit numbers", space=100),
    Family("add_2d", 2, _add(10, 99), 3.0, "addition of two 2-digit numbers", space=90 * 90),
    Family("add_3d", 3, _add(100, 999), 5.0, "addition of two 3-digit numbers"),
    Family("sub_1d", 1, _sub(0, 9), 1.0, "subtraction, 1-digit, non-negative result", space=55),
    Family("sub_2d", 2, _sub(10, 99), 3.0, "subtraction, 2-digit, non-negative result",
           space=90 * 91 // 2),
    Family("sub_3d", 3, _sub(100, 999), 5.0, "subtraction, 3-digit, non-negative result"),
    Family("mul_small", 2, _mul(2, 12), 2.0, "multiplication of numbers 2..12", space=121),
    Family("compare", 1, _compare(1, 999), 2.0, "which of two numbers 1..999 is larger"),
    Family("fact_common", 1, _fact(COMMON_FACTS), 3.0, "fact-table look-up, frequent in training",
           space=len(COMMON_FACTS)),
    Family("fact_rare", 3, _fact(RARE_FACTS), 0.0,
           f"fact-table look-up, each fact seen exactly {RARE_REPEATS} times in training",
           train_items=lambda: [f.qa() for f in RARE_FACTS], train_repeats=RARE_REPEATS,
           space=len(RARE_FACTS)),
    Family("first_letter", 1, _first_letter, 1.0, "first letter of a random 3-8 letter string"),
    Family("reverse3", 2, _reverse3, 2.0, "reverse a random 3-letter string"),
)

FAMILY_BY_NAME: Dict[str, Family] = {f.name: f for f in FAMILIES}


def generate_corpus(num_sampled: int, seed: int,
                    families: Sequence[Family] = FAMILIES) -> List[Tuple[str, str, str]]:
    """A shuffled training corpus of (family, question, answer).

    `num_sampled` examples are drawn from the families in proportion to train_weight, then every family's
    train_items are added train_repeats times each. Same arguments -> same corpus.
    """
    rng = random.Random(seed)
    weighted = [f for f in families if f.train_weight > 0]
    weights = [f.train_weight for f in weighted]
    out = []
    for fam in rng.choices(weighted, weights=weights, k=num_sampled):
        q, a = fam.sample(rng)
        out.append((fam.name, q, a))
    for fam in families:
        if fam.train_items is not None:
            for q, a in fam.train_items():
                out.extend([(fam.name, q, a)] * fam.train_repeats)
    rng.shuffle(out)
    return out


def generate_eval(per_family: int, seed: int, exclude_questions=frozenset(),
                  families: Sequence[Family] = FAMILIES) -> Dict[str, List[QA]]:
    """Held-out evaluation questions per family, distinct within a family.

    Questions in `exclude_questions` (the training set) are skipped for families without a `space`; the
    others (1- and 2-digit arithmetic, the multiplication table, facts) are evaluated on questions from their
    small space, which training covers (almost) completely.
    """
    rng = random.Random(seed)
    out: Dict[str, List[QA]] = {}
    for fam in families:
        n = per_family if fam.space is None else min(per_family, fam.space)
        seen, items, rejected = set(), [], 0
        while len(items) < n:
            q, a = fam.sample(rng)
            if q in seen or (fam.space is None and q in exclude_questions):
                rejected += 1
                if rejected > 1000 * n:
                    raise ValueError(f"{fam.name}: cannot find {n} held-out questions; give it a space")
                continue
            seen.add(q)
            items.append((q, a))
        out[fam.name] = items
    return out


def corpus_charset(corpus: Sequence[Tuple[str, str, str]]) -> List[str]:
    """Sorted list of every character used by the formatted corpus."""
    chars = set()
    for _, q, a in corpus:
        chars.update(format_example(q, a))
    return sorted(chars)


if __name__ == "__main__":
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for fam in FAMILIES:
        sys.stdout.write(f"# {fam.name} (difficulty {fam.difficulty})\n{format_example(*fam.sample(rng))}")
