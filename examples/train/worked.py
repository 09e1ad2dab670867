"""Worked answers: the cloud model writes its reasoning before the answer, as frontier models do.

The cloud model (issue 7, examples/models/cloud) stands in for a frontier model. Such models do not answer
"how many times does w occur in nvwwwgqsh?" in one step: they walk through the string. The cloud's training
corpus therefore states the answers of the two held-out families a one-step model learns poorly as a short
worked line that ends in ", so " + the answer (docs/tasks.md, "Grading", takes the answer from after the last
", so "):

    Q: How many times does w occur in nvwwwgqsh?
    A: n0 v0 w1 w2 w3 g3 q3 s3 h3, so 3

    Q: Is 24 + 14 equal to 37?
    A: 24 + 14 is 38, so no

Every character is one the default model's tokenizer already has, so both models keep one tokenizer. The default
model's corpus is unchanged: it answers in one step.
"""

import os
import re
import sys
from typing import Callable, Dict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
from grade import WORKED_SEPARATOR as SO  # noqa: E402  (the grader cuts worked answers at this separator)

_COUNT = re.compile(r"How many times does ([a-z]) occur in ([a-z]+)\?")
_SUM_CHECK = re.compile(r"Is (\d+) \+ (\d+) equal to (\d+)\?")


def count_letter(question: str, answer: str) -> str:
    """Every letter of the string followed by the running count of the asked letter."""
    letter, word = _COUNT.fullmatch(question).groups()
    steps, n = [], 0
    for c in word:
        n += c == letter
        steps.append(f"{c}{n}")
    return " ".join(steps) + SO + answer


def sum_check(question: str, answer: str) -> str:
    """The sum first, then the comparison."""
    a, b, _ = _SUM_CHECK.fullmatch(question).groups()
    return f"{a} + {b} is {int(a) + int(b)}{SO}{answer}"


# family name -> writer of the worked answer from (question, the one-step answer)
WORKED: Dict[str, Callable[[str, str], str]] = {
    "count_letter": count_letter,
    "sum_check": sum_check,
}


def worked_answer(family: str, question: str, answer: str) -> str:
    """The worked form of `answer` if the family has one, else `answer` itself."""
    write = WORKED.get(family)
    return write(question, answer) if write else answer
