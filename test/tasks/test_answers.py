"""Every task's accepted answers are correct and complete, checked independently of the samplers: sums by
digit-wise string arithmetic, primes by trial division, strings by slicing, facts against the table."""
import re
import unittest

import tasks_path  # noqa: F401
import facts
from generate import build_suite

DIGIT_WORDS = "zero one two three four five six seven eight nine".split()


def prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


def column_add(a, b):
    """a + b by schoolbook column addition on decimal strings; also whether a carry ever made the next
    column carry (a carry chain)."""
    x, y = str(a)[::-1], str(b)[::-1]
    carry, digits, chain, carried_in = 0, [], False, False
    for i in range(max(len(x), len(y))):
        s = (int(x[i]) if i < len(x) else 0) + (int(y[i]) if i < len(y) else 0) + carry
        chain |= carried_in and s >= 10 and s - carry < 10
        carried_in = s >= 10
        digits.append(s % 10)
        carry = int(s >= 10)
    if carry:
        digits.append(1)
    return int("".join(map(str, digits[::-1]))), chain


def expected(t):
    """(accepted answers, exact: True if the list must equal them, else as a set) for a task."""
    q, fam = t["question"], t["family"]
    if fam.startswith(("add_", "sub_", "mul_")) or fam == "add_carry":
        a, op, b = re.fullmatch(r"What is (\d+) ([-+*]) (\d+)\?", q).groups()
        a, b = int(a), int(b)
        if op == "+":
            s, chain = column_add(a, b)
            assert chain == (fam == "add_carry"), (q, chain)
            return [str(s)]
        return [str(a - b) if op == "-" else str(a * b)]
    if fam == "compare":
        a, b = map(int, re.fullmatch(r"Which is larger, (\d+) or (\d+)\?", q).groups())
        assert a != b
        return [str(max(a, b))]
    if fam == "is_prime":
        n = int(re.fullmatch(r"Is (\d+) a prime\?", q).group(1))
        return ["yes" if prime(n) else "no"]
    if fam == "prime_between":
        a, b = map(int, re.fullmatch(r"Name a prime between (\d+) and (\d+)\.", q).groups())
        assert not prime(a) and not prime(b), q  # no inclusive/exclusive ambiguity
        return {str(p) for p in range(a + 1, b) if prime(p)}
    if fam in ("fact_common", "fact_rare", "fact_lookalike"):
        for attr in facts.ATTRIBUTES:
            m = re.fullmatch(re.escape(attr.template).replace(r"\{who\}", "([A-Za-z]+)"), q)
            if m:
                return [f.value for f in facts.FACTS if f.who == m.group(1) and f.attribute is attr]
        raise AssertionError(q)
    if fam == "birthplace":
        who = re.fullmatch(r"In which city was ([A-Za-z]+) born\?", q).group(1)
        return [b.city for b in facts.BIRTHS if b.who == who]
    if fam == "person_with":
        for attr in facts.ATTRIBUTES:
            m = re.fullmatch(re.escape(attr.inverse).replace(r"\{value\}", "([A-Za-z]+)"), q)
            if m:
                return {f.who for f in facts.FACTS if f.attribute is attr and f.value == m.group(1)}
        raise AssertionError(q)
    if fam in ("first_letter", "last_letter"):
        w = re.fullmatch(r"What is the (?:first|last) letter of ([a-z]+)\?", q).group(1)
        return [w[0] if fam == "first_letter" else w[-1]]
    if fam == "reverse":
        w = re.fullmatch(r"Reverse the word ([a-z]+)\.", q).group(1)
        assert len(w) == {1: 3, 2: 5, 3: 7}[t["difficulty"]], q
        return ["".join(reversed(w))]
    if fam == "word_pick":
        letter, words = re.fullmatch(r"Give a word that starts with ([a-z]): ([a-z, ]+)\.", q).groups()
        return {w for w in words.split(", ") if w[0] == letter}
    if fam == "count_letter":
        letter, w = re.fullmatch(r"How many times does ([a-z]) occur in ([a-z]+)\?", q).groups()
        n = sum(c == letter for c in w)
        return {str(n), DIGIT_WORDS[n]}
    if fam == "sum_check":
        a, b, c = map(int, re.fullmatch(r"Is (\d+) \+ (\d+) equal to (\d+)\?", q).groups())
        s, chain = column_add(a, b)
        assert chain == (t["difficulty"] == 3), q
        return ["yes" if s == c else "no"]
    raise AssertionError(f"no independent check for family {fam}")


class AnswersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tasks = build_suite(seed=3, per_cell=60)

    def test_accepted_answers_are_exactly_the_right_ones(self):
        for t in self.tasks:
            want = expected(t)
            if isinstance(want, set):
                self.assertEqual(set(t["accept"]), want, t)
                self.assertGreaterEqual(len(want), 2, t)  # these families are multi-answer by design
            else:
                self.assertEqual(t["accept"], want, t)

    def test_checker_can_fail(self):
        t = dict(self.tasks[0], accept=["999"])
        self.assertNotEqual(t["accept"], expected(t))

    def test_lookalike_names_differ_by_one_letter_and_answers_differ(self):
        base = {f.who for f in facts.FACTS if f.kind != "lookalike"}
        for f in facts.LOOKALIKE_FACTS:
            self.assertNotIn(f.who, base)
            self.assertIn(f.twin, base)
            self.assertEqual(len(f.who), len(f.twin))
            self.assertEqual(sum(x != y for x, y in zip(f.who, f.twin)), 1, (f.who, f.twin))
            twin_value = [g.value for g in facts.FACTS if g.who == f.twin and g.attribute is f.attribute]
            self.assertEqual(len(twin_value), 1)
            self.assertNotEqual(f.value, twin_value[0])
            self.assertTrue(all(g.kind == "common" for g in facts.FACTS if g.who == f.twin))

    def test_one_value_per_person_and_attribute(self):
        keys = [(f.who, f.attribute.name) for f in facts.FACTS]
        self.assertEqual(len(keys), len(set(keys)))

    def test_guessable_items_are_two_way(self):
        for t in self.tasks:
            if t["guessable"]:
                two = (["yes", "no"] if t["family"] in ("is_prime", "sum_check")
                       else re.findall(r"\d+", t["question"]))
                self.assertEqual(len(two), 2, t)
                self.assertIn(t["accept"][0], two, t)


if __name__ == "__main__":
    unittest.main()
