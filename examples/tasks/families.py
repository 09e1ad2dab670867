"""Task families: the questions the default model is trained on and evaluated with, as data.

A `Family` here is one family x difficulty cell (families with several difficulty levels have one entry per
level, sharing `name`). Each has a seeded sampler `sample(rng) -> (question, accepted answers)`, whether it
is a probe-*training* or probe-*held-out* family, whether it is two-way guessable, and how it enters the
language model's training mix (`train_weight`, `train_sample`, `train_items`), including what training
deliberately does not cover (`train_weight` 0: the cell is a shift the model never saw). docs/tasks.md
describes every family and why it is realistic.

Training examples take one accepted answer at random each time (`train_answer`), so multi-answer questions
are trained with every valid answer and the model's next-token distribution is spread over them.
"""

import random
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import facts as F

Task = Tuple[str, Tuple[str, ...]]  # question, accepted answers (the first is the canonical one)
Sampler = Callable[[random.Random], Task]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
WORDS = ("ant", "ape", "bat", "bear", "bee", "bird", "boat", "cat", "cake", "cup", "dog", "door", "duck",
         "egg", "elk", "fish", "fox", "frog", "goat", "gum", "hat", "hen", "horse", "ink", "jam", "jar", "key",
         "kite", "lamp", "lion", "map", "milk", "moon", "nest", "net", "owl", "ox", "pan", "pig", "pen", "rat",
         "ring", "rose", "sun", "sock", "tea", "tree", "toy", "vase", "van", "wolf", "web", "yak", "zoo")


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def has_carry_chain(a: int, b: int) -> bool:
    """True if a carry out of some column of a + b makes the next column carry too (e.g. 48 + 57 = 105)."""
    carry = 0
    while a or b:
        s = a % 10 + b % 10 + carry
        if carry and s - carry < 10 <= s:
            return True
        carry = int(s >= 10)
        a, b = a // 10, b // 10
    return False


# ---------------------------------------------------------------------------------------------------------
# Samplers.

def _add(lo: int, hi: int, chain: bool) -> Sampler:
    """Additions of two numbers in lo..hi whose carry chain property equals `chain`."""
    def sample(rng: random.Random) -> Task:
        while True:
            a, b = rng.randint(lo, hi), rng.randint(lo, hi)
            if has_carry_chain(a, b) == chain:
                return f"What is {a} + {b}?", (str(a + b),)
    return sample


def _sub(lo: int, hi: int) -> Sampler:
    def sample(rng: random.Random) -> Task:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        a, b = max(a, b), min(a, b)
        return f"What is {a} - {b}?", (str(a - b),)
    return sample


def _mul(lo: int, hi: int) -> Sampler:
    def sample(rng: random.Random) -> Task:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        return f"What is {a} * {b}?", (str(a * b),)
    return sample


def _compare(lo: int, hi: int) -> Sampler:
    def sample(rng: random.Random) -> Task:
        a, b = rng.sample(range(lo, hi + 1), 2)
        return f"Which is larger, {a} or {b}?", (str(max(a, b)),)
    return sample


def _fact(pool: Sequence[F.Fact]) -> Sampler:
    def sample(rng: random.Random) -> Task:
        q, a = rng.choice(pool).qa()
        return q, (a,)
    return sample


def _birthplace(rng: random.Random) -> Task:
    b = rng.choice(F.BIRTHS)
    return b.question(), (b.city,)


def _person_with(rng: random.Random) -> Task:
    attr = rng.choice(F.ATTRIBUTES)
    value = rng.choice([v for v in attr.values if len(F.people_with(attr, v)) >= 2])
    return attr.inverse.format(value=value), tuple(F.people_with(attr, value))


def _word(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(lo, hi)))


def _first_letter(rng: random.Random) -> Task:
    w = _word(rng, 3, 8)
    return f"What is the first letter of {w}?", (w[0],)


def _last_letter(rng: random.Random) -> Task:
    w = _word(rng, 3, 8)
    return f"What is the last letter of {w}?", (w[-1],)


def _reverse(lo: int, hi: int) -> Sampler:
    def sample(rng: random.Random) -> Task:
        w = _word(rng, lo, hi)
        return f"Reverse the word {w}.", (w[::-1],)
    return sample


def _prime_between(lo: int, hi: int, min_width: int, max_width: int) -> Sampler:
    """'Name a prime between a and b.' with a, b not prime (so 'between' needs no inclusive/exclusive
    convention), lo <= a < b <= hi, and at least two primes strictly between."""
    def sample(rng: random.Random) -> Task:
        while True:
            a = rng.randint(lo, hi - min_width)
            b = a + rng.randint(min_width, max_width)
            primes = [str(p) for p in range(a + 1, b) if is_prime(p)]
            if b <= hi and not is_prime(a) and not is_prime(b) and len(primes) >= 2:
                return f"Name a prime between {a} and {b}.", tuple(primes)
    return sample


def _prime_space(lo: int, hi: int, min_width: int, max_width: int) -> int:
    """Number of distinct questions _prime_between(lo, hi, min_width, max_width) can ask."""
    return sum(1 for a in range(lo, hi - min_width + 1) for b in range(a + min_width, min(a + max_width, hi) + 1)
               if not is_prime(a) and not is_prime(b) and sum(map(is_prime, range(a + 1, b))) >= 2)


def _is_prime_question(rng: random.Random) -> Task:
    n = rng.randint(2, 99)
    return f"Is {n} a prime?", ("yes" if is_prime(n) else "no",)


def _word_pick(n_words: int, n_match: Tuple[int, int]) -> Sampler:
    """'Give a word that starts with b: ...' over a list of n_words distinct words, n_match of them match."""
    by_letter: Dict[str, List[str]] = {}
    for w in WORDS:
        by_letter.setdefault(w[0], []).append(w)

    def sample(rng: random.Random) -> Task:
        k = rng.randint(*n_match)
        letter = rng.choice([c for c, ws in sorted(by_letter.items()) if len(ws) >= k])
        matches = rng.sample(by_letter[letter], k)
        others = rng.sample([w for w in WORDS if w[0] != letter], n_words - k)
        words = matches + others
        rng.shuffle(words)
        return f"Give a word that starts with {letter}: {', '.join(words)}.", tuple(w for w in words if w in matches)
    return sample


def _count_letter(lo: int, hi: int) -> Sampler:
    """'How many times does a occur in w?' for a random w of length lo..hi holding the letter 1..4 times;
    the answer may be written as a digit or a word."""
    def sample(rng: random.Random) -> Task:
        letter = rng.choice(LETTERS)
        n = rng.randint(lo, hi)
        k = rng.randint(1, min(4, n))
        chars = [letter] * k + [rng.choice([c for c in LETTERS if c != letter]) for _ in range(n - k)]
        rng.shuffle(chars)
        return f"How many times does {letter} occur in {''.join(chars)}?", (str(k), NUMBER_WORDS[k])
    return sample


def _sum_check(lo: int, hi: int, chain: bool) -> Sampler:
    """'Is a + b equal to c?' where c is the sum or the sum off by 1 or 10, half each."""
    def sample(rng: random.Random) -> Task:
        while True:
            a, b = rng.randint(lo, hi), rng.randint(lo, hi)
            if has_carry_chain(a, b) == chain:
                break
        c = a + b if rng.random() < 0.5 else a + b + rng.choice((-10, -1, 1, 10))
        return f"Is {a} + {b} equal to {c}?", ("yes" if c == a + b else "no",)
    return sample


# ---------------------------------------------------------------------------------------------------------
# The families.

@dataclass(frozen=True)
class Family:
    """One family x difficulty cell.

    heldout:      a probe-held-out family (the probe never trains on it); else a probe-training family.
    guessable:    two-way guessable (yes/no or which-of-two): reported apart.
    train_weight: relative share of the sampled part of a training corpus (0 = never sampled).
    train_sample: what the training corpus samples for this cell, if not `sample` (e.g. other lengths).
    train_items:  exact (question, answer) examples that enter every training corpus (rare facts,
                  conflicting sources): their counts must not depend on chance.
    space:        number of distinct questions, when a training corpus covers most of them; such cells are
                  evaluated on questions that may have been seen. Cells without a space are evaluated on
                  questions that are not in the training corpus.
    training:     what training covers of this cell and what it deliberately does not.
    """
    name: str
    difficulty: int
    sample: Sampler
    description: str
    heldout: bool
    training: str
    guessable: bool = False
    train_weight: float = 0.0
    train_sample: Optional[Sampler] = None
    train_items: Optional[Callable[[], List[Tuple[str, str]]]] = None
    space: Optional[int] = None

    @property
    def cell(self) -> str:
        return f"{self.name}/{self.difficulty}"

    def sample_training(self, rng: random.Random) -> Tuple[str, str]:
        q, accepted = (self.train_sample or self.sample)(rng)
        return q, train_answer(rng, accepted)


def train_answer(rng: random.Random, accepted: Tuple[str, ...]) -> str:
    """A training example's answer: one accepted answer, uniformly at random."""
    return accepted[0] if len(accepted) == 1 else rng.choice(accepted)


def _rare_items() -> List[Tuple[str, str]]:
    return [f.qa() for f in F.RARE_FACTS for _ in range(F.RARE_REPEATS)]


def _lookalike_items() -> List[Tuple[str, str]]:
    return [f.qa() for f in F.LOOKALIKE_FACTS for _ in range(F.RARE_REPEATS)]


def _birth_items() -> List[Tuple[str, str]]:
    return [(b.question(), b.city if i < b.true_count else b.stale)
            for b in F.BIRTHS for i in range(F.CONFLICT_REPEATS)]


_ADD_2D_SPACE = sum(not has_carry_chain(a, b) for a in range(10, 100) for b in range(10, 100))
_N_PERSON_Q = sum(1 for a in F.ATTRIBUTES for v in a.values if len(F.people_with(a, v)) >= 2)

FAMILIES: Tuple[Family, ...] = (
    # --- probe-training families -------------------------------------------------------------------------
    Family("add_1d", 1, _add(0, 9, False), "addition of two 1-digit numbers", False,
           "all of its 100 questions", train_weight=0.5, space=100),
    Family("add_2d", 2, _add(10, 99, False), "addition of two 2-digit numbers without a carry chain", False,
           "most of its questions", train_weight=3.0, space=_ADD_2D_SPACE),
    Family("add_3d", 3, _add(100, 999, False), "addition of two 3-digit numbers without a carry chain", False,
           "3-digit additions without a carry chain (suite questions unseen)", train_weight=4.0),
    Family("add_carry", 3, _add(10, 99, True), "2-digit addition whose ones carry makes the tens carry "
           "(48 + 57)", False, "never: no addition in training has a carry chain (shift)"),
    Family("sub_1d", 1, _sub(0, 9), "subtraction, 1-digit, non-negative result", False,
           "all of its 55 questions", train_weight=0.5, space=55),
    Family("sub_2d", 2, _sub(10, 99), "subtraction, 2-digit, non-negative result", False,
           "most of its questions", train_weight=2.0, space=90 * 91 // 2),
    Family("sub_3d", 3, _sub(100, 999), "subtraction, 3-digit, non-negative result", False,
           "3-digit subtractions (suite questions unseen)", train_weight=3.0),
    Family("mul_small", 2, _mul(2, 12), "multiplication of numbers 2..12", False,
           "the whole table", train_weight=1.5, space=121),
    Family("compare", 1, _compare(1, 999), "which of two numbers 1..999 is larger", False,
           "pairs of numbers 1..999 (suite pairs unseen)", guessable=True, train_weight=1.5),
    Family("is_prime", 2, _is_prime_question, "is n (2..99) a prime? yes/no", False,
           "all of its 98 questions", guessable=True, train_weight=1.0, space=98),
    Family("prime_between", 1, _prime_between(0, 30, 5, 15), "name a prime between a and b <= 30 (several "
           "answers)", False, "all its questions, each time with a random valid prime", train_weight=1.0,
           space=_prime_space(0, 30, 5, 15)),
    Family("prime_between", 2, _prime_between(30, 100, 8, 25), "name a prime between a and b in 30..100 "
           "(several answers)", False, "most of its questions, each time with a random valid prime",
           train_weight=2.0, space=_prime_space(30, 100, 8, 25)),
    Family("fact_common", 1, _fact(F.COMMON_FACTS), "fact-table look-up, frequent in training", False,
           "every fact, often", train_weight=3.0, space=len(F.COMMON_FACTS)),
    Family("fact_rare", 3, _fact(F.RARE_FACTS), f"fact-table look-up, each fact seen {F.RARE_REPEATS} times",
           False, f"every fact exactly {F.RARE_REPEATS} times", train_items=_rare_items,
           space=len(F.RARE_FACTS)),
    Family("fact_lookalike", 3, _fact(F.LOOKALIKE_FACTS), "fact look-up about a person whose name differs by "
           "one letter from a frequent person's", False,
           f"every fact exactly {F.RARE_REPEATS} times; the look-alike's twin is frequent",
           train_items=_lookalike_items, space=len(F.LOOKALIKE_FACTS)),
    Family("first_letter", 1, _first_letter, "first letter of a random 3-8 letter string", False,
           "random strings (suite strings unseen)", train_weight=0.5),
    Family("reverse", 1, _reverse(3, 3), "reverse a random 3-letter string", False,
           "lengths 2-3 (suite strings unseen)", train_weight=1.0,
           train_sample=_reverse(2, 3)),
    Family("reverse", 2, _reverse(5, 5), "reverse a random 5-letter string", False,
           "lengths 4-5 (suite strings unseen)", train_weight=2.0, train_sample=_reverse(4, 5)),
    Family("reverse", 3, _reverse(7, 7), "reverse a random 7-letter string", False,
           "never: training reverses at most 5 letters (length shift)"),
    # --- probe-held-out families -------------------------------------------------------------------------
    Family("last_letter", 1, _last_letter, "last letter of a random 3-8 letter string", True,
           "random strings (suite strings unseen)", train_weight=0.5),
    Family("word_pick", 1, _word_pick(3, (2, 2)), "give a word that starts with a letter, from a list of "
           "3 words, 2 of which fit", True, "random lists, a random fitting word each time (suite lists "
           "unseen)", train_weight=1.0),
    Family("word_pick", 2, _word_pick(5, (2, 3)), "give a word that starts with a letter, from a list of "
           "5 words, 2-3 of which fit", True, "random lists, a random fitting word each time (suite lists "
           "unseen)", train_weight=2.0),
    Family("person_with", 2, _person_with, "name a person with a given attribute value (fact table "
           "inverted; several answers)", True, "every question, each time with a random fitting person",
           train_weight=2.0, space=_N_PERSON_Q),
    Family("count_letter", 1, _count_letter(4, 5), "how many times a letter occurs in a 4-5 letter string "
           "(digit or word)", True, "lengths 3-5, answers as digit or word at random (suite strings unseen)",
           train_weight=1.0, train_sample=_count_letter(3, 5)),
    Family("count_letter", 2, _count_letter(8, 9), "how many times a letter occurs in an 8-9 letter string "
           "(digit or word)", True, "lengths 6-9, answers as digit or word at random (suite strings unseen)",
           train_weight=2.0, train_sample=_count_letter(6, 9)),
    Family("count_letter", 3, _count_letter(12, 14), "how many times a letter occurs in a 12-14 letter "
           "string (digit or word)", True, "never: training strings have at most 9 letters (length shift)"),
    Family("sum_check", 2, _sum_check(10, 99, False), "is a + b equal to c? (2-digit, no carry chain; "
           "yes/no)", True, "2-digit checks without a carry chain (suite questions unseen)", guessable=True,
           train_weight=2.0),
    Family("sum_check", 3, _sum_check(10, 99, True), "is a + b equal to c? (2-digit with a carry chain; "
           "yes/no)", True, "never: no addition in training has a carry chain (shift)", guessable=True),
    Family("birthplace", 3, _birthplace, "birthplace from two disagreeing sources; the true city is stated "
           "2, 3, 5 or 6 of 8 times", True,
           f"every birthplace {F.CONFLICT_REPEATS} times, the true city 2-6 of them, the stale city otherwise",
           train_items=_birth_items, space=len(F.BIRTHS)),
)

# The arithmetic families (sums, differences, products and sum checks): what the built-in `math` tool answers
# (examples/models/tools, docs/builtin-tools.md).
ARITHMETIC_FAMILIES: Tuple[str, ...] = ("add_1d", "add_2d", "add_3d", "add_carry", "sub_1d", "sub_2d", "sub_3d",
                                        "mul_small", "sum_check")

FAMILY_NAMES: Tuple[str, ...] = tuple(dict.fromkeys(f.name for f in FAMILIES))
CELL_BY_NAME: Dict[str, Family] = {f.cell: f for f in FAMILIES}


def draw_tasks(fam: Family, n: int, rng: random.Random, exclude_questions=frozenset()) -> List[Task]:
    """n distinct tasks of one cell (all of its space if that is smaller).

    Cells with a `space` draw from it freely; the others skip questions in `exclude_questions` (the training
    corpus), so they are evaluated on questions the model never saw.
    """
    n = n if fam.space is None else min(n, fam.space)
    seen, items, rejected = set(), [], 0
    while len(items) < n:
        q, accepted = fam.sample(rng)
        if q in seen or (fam.space is None and q in exclude_questions):
            rejected += 1
            if rejected > 1000 * n:
                raise ValueError(f"{fam.cell}: cannot find {n} unseen questions; give it a space")
            continue
        seen.add(q)
        items.append((q, accepted))
    return items
