"""The fictional fact table shared by the training corpus and the task suite, fixed by FACT_SEED.

- 48 people (pseudo-word names) x 4 attributes; a quarter of these facts are "rare" (each seen exactly
  RARE_REPEATS times in a training corpus), the others "common" (sampled often).
- 12 look-alike people: each is a copy of a common person's name with one letter changed (Brelk / Brenk),
  with a different value for every attribute than that person. Their facts are seen RARE_REPEATS times each,
  the twin's facts often: the frequent name overshadows the similar rare one.
- Birthplaces of the 48 people come from two disagreeing sources: a current (true) city and a stale one.
  A training corpus states each birthplace CONFLICT_REPEATS times, the true city CONFLICT_TRUE_COUNTS[i] of
  them, so for some people the truth is the majority and for others the minority.

The table does not depend on the corpus seed, so every corpus and every task file use the same facts.
"""

import random
from dataclasses import dataclass
from typing import List, Tuple

FACT_SEED = 20240611
NUM_PEOPLE = 48
RARE_FRACTION = 0.25
RARE_REPEATS = 3
NUM_LOOKALIKES = 12
CONFLICT_REPEATS = 8
CONFLICT_TRUE_COUNTS = (2, 3, 5, 6)  # of CONFLICT_REPEATS; drawn per person

_ONSETS = ["b", "br", "d", "dr", "f", "g", "gr", "h", "j", "k", "kl", "l", "m", "n", "p", "r", "s", "st",
           "t", "tr", "v", "w", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ee", "oa"]
_CODAS = ["", "", "m", "n", "l", "r", "s", "k", "x", "th"]


def _pseudo_word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables))


@dataclass(frozen=True)
class Attribute:
    """One column of the fact table: a question template, the values, and an inverse-question template."""
    name: str
    template: str  # uses {who}
    values: Tuple[str, ...]
    inverse: str  # "Name a person who ...", uses {value}


ATTRIBUTES: Tuple[Attribute, ...] = (
    Attribute("kite_color", "What color is the kite of {who}?",
              ("red", "green", "blue", "yellow", "orange", "purple", "black", "white", "pink", "brown"),
              "Name a person whose kite is {value}."),
    Attribute("pet", "What pet does {who} have?",
              ("cat", "dog", "fish", "bird", "frog", "goat", "horse", "rabbit", "snake", "turtle"),
              "Name a person who has a {value}."),
    Attribute("fruit", "Which fruit does {who} like?",
              ("apple", "pear", "plum", "grape", "lemon", "mango", "peach", "cherry", "melon", "kiwi"),
              "Name a person who likes the fruit {value}."),
    Attribute("city", "In which city does {who} live?",
              ("Lomar", "Vessa", "Drunfeld", "Okkari", "Tamsy", "Brelle", "Quorra", "Indal", "Fenmoor",
               "Yastri"),
              "Name a person who lives in {value}."),
)
CITIES = ATTRIBUTES[3].values
BIRTH_TEMPLATE = "In which city was {who} born?"


@dataclass(frozen=True)
class Fact:
    who: str
    attribute: Attribute
    value: str
    kind: str  # "common", "rare" or "lookalike"
    twin: str = ""  # for a look-alike: the frequent person whose name differs by one letter

    def qa(self) -> Tuple[str, str]:
        return self.attribute.template.format(who=self.who), self.value


@dataclass(frozen=True)
class Birth:
    """A birthplace stated by two sources: `true_count` of CONFLICT_REPEATS training mentions say `city`."""
    who: str
    city: str
    stale: str
    true_count: int

    def question(self) -> str:
        return BIRTH_TEMPLATE.format(who=self.who)


def _base_table(rng: random.Random) -> Tuple[List[str], List[Fact]]:
    names: List[str] = []
    while len(names) < NUM_PEOPLE:
        name = _pseudo_word(rng, rng.choice((1, 2))).capitalize()
        if 3 <= len(name) <= 8 and name not in names:
            names.append(name)
    facts = [Fact(who, attr, rng.choice(attr.values), "common") for who in names for attr in ATTRIBUTES]
    rare = set(rng.sample(range(len(facts)), round(RARE_FRACTION * len(facts))))
    return names, [Fact(f.who, f.attribute, f.value, "rare" if i in rare else "common")
                   for i, f in enumerate(facts)]


def _one_letter_variant(rng: random.Random, name: str, taken: set) -> str:
    """`name` with one letter (not the first) replaced by another of the same kind (vowel/consonant)."""
    vowels, consonants = "aeiou", "bdfghklmnprstvz"
    for _ in range(1000):
        i = rng.randrange(1, len(name))
        pool = vowels if name[i] in vowels else consonants
        new = name[:i] + rng.choice([c for c in pool if c != name[i]]) + name[i + 1:]
        if new not in taken:
            return new
    raise ValueError(f"no look-alike for {name}")


def build_fact_table(seed: int = FACT_SEED) -> Tuple[List[Fact], List[Birth]]:
    rng = random.Random(seed)
    names, facts = _base_table(rng)
    rng2 = random.Random(seed + 1)  # separate stream: the base table is unchanged by what follows
    by_who = {}
    for f in facts:
        by_who.setdefault(f.who, []).append(f)
    all_common = [n for n in names if all(f.kind == "common" for f in by_who[n])]
    taken = set(names)
    for twin in rng2.sample(all_common, NUM_LOOKALIKES):
        look = _one_letter_variant(rng2, twin, taken)
        taken.add(look)
        for tf in by_who[twin]:
            value = rng2.choice([v for v in tf.attribute.values if v != tf.value])
            facts.append(Fact(look, tf.attribute, value, "lookalike", twin))
    births = []
    for n in names:
        city, stale = rng2.sample(CITIES, 2)
        births.append(Birth(n, city, stale, rng2.choice(CONFLICT_TRUE_COUNTS)))
    return facts, births


FACTS, BIRTHS = build_fact_table()
COMMON_FACTS = [f for f in FACTS if f.kind == "common"]
RARE_FACTS = [f for f in FACTS if f.kind == "rare"]
LOOKALIKE_FACTS = [f for f in FACTS if f.kind == "lookalike"]
PEOPLE = sorted({f.who for f in FACTS})


def people_with(attribute: Attribute, value: str) -> List[str]:
    return sorted(f.who for f in FACTS if f.attribute is attribute and f.value == value)
