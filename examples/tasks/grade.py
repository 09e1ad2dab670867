"""The suite's grading rule, shared by Python users and tests (the C++ collector implements the same rule).

The model is given the prompt `Q: {question}\\nA:`. Its answer is the generated text after the prompt up to
the first newline or <eos> (or all of it if neither comes), with leading and trailing ASCII whitespace
removed. A worked answer (reasoning, then ", so " and the answer, as the cloud model writes:
`n0 v0 w1 w2 w3, so 3`) is cut to the text after the last ", so " of that line. The answer is right iff it
equals one of the task's `accept` strings exactly (case-sensitive).
"""

from typing import Sequence

ASCII_WHITESPACE = " \t\n\r\x0b\x0c"
WORKED_SEPARATOR = ", so "


def prompt(question: str) -> str:
    return f"Q: {question}\nA:"


def extract_answer(generated: str) -> str:
    """`generated` is the decoded text after the prompt, with <eos> (if produced) already cut off."""
    line = generated.split("\n", 1)[0]
    return line.rsplit(WORKED_SEPARATOR, 1)[-1].strip(ASCII_WHITESPACE)


def is_right(generated: str, accept: Sequence[str]) -> bool:
    return extract_answer(generated) in accept
