"""The cloud model's worked answers (examples/train/worked.py): graded right exactly when the one-step answer
is, every step checked independently of worked.py, and no one-step answer of the suite is touched by the cut."""
import random
import re
import unittest

import tasks_path  # noqa: F401
import corpus
import grade
import worked
from families import CELL_BY_NAME, FAMILIES
from generate import build_suite


class WorkedAnswerTest(unittest.TestCase):
    def test_count_letter_steps_are_the_running_count(self):
        rng = random.Random(5)
        for cell in ("count_letter/1", "count_letter/2", "count_letter/3"):
            for _ in range(200):
                q, accept = CELL_BY_NAME[cell].sample(rng)
                letter, word = re.fullmatch(r"How many times does (.) occur in (.+)\?", q).groups()
                text = worked.worked_answer("count_letter", q, accept[1])
                steps, answer = text.split(", so ")
                pairs = steps.split(" ")
                self.assertEqual("".join(p[0] for p in pairs), word)
                self.assertEqual([int(p[1:]) for p in pairs],
                                 [word[:i + 1].count(letter) for i in range(len(word))])
                self.assertEqual(answer, accept[1])
                self.assertTrue(grade.is_right(" " + text, accept))

    def test_sum_check_states_the_true_sum(self):
        rng = random.Random(6)
        for cell in ("sum_check/2", "sum_check/3"):
            for _ in range(200):
                q, accept = CELL_BY_NAME[cell].sample(rng)
                a, b, c = map(int, re.findall(r"\d+", q))
                text = worked.worked_answer("sum_check", q, accept[0])
                self.assertEqual(text, f"{a} + {b} is {a + b}, so {'yes' if c == a + b else 'no'}")
                self.assertTrue(grade.is_right(" " + text, accept))
                self.assertFalse(grade.is_right(" " + text[:-3] + ("no" if accept[0] == "yes" else "yes"),
                                                accept))

    def test_other_families_answer_in_one_step(self):
        for fam in FAMILIES:
            if fam.name not in worked.WORKED:
                self.assertEqual(worked.worked_answer(fam.name, "Q?", "42"), "42")

    def test_no_accepted_answer_contains_the_separator(self):
        for t in build_suite(seed=1, per_cell=100):
            for a in t["accept"]:
                self.assertNotIn(grade.WORKED_SEPARATOR, a)
                self.assertEqual(grade.extract_answer(" " + a + "\n"), a)

    def test_only_the_cloud_corpus_is_worked(self):
        default = corpus.generate_corpus(3000, seed=3)
        cloud = corpus.generate_corpus(3000, seed=3, worked=True)
        self.assertEqual([q for _, q, _ in default], [q for _, q, _ in cloud])
        for (cell, q, a), (_, _, w) in zip(default, cloud):
            self.assertNotIn(grade.WORKED_SEPARATOR, a)
            family = cell.split("/")[0]
            if family in worked.WORKED:
                self.assertTrue(w.endswith(grade.WORKED_SEPARATOR + a), (q, w))
            else:
                self.assertEqual(w, a)


if __name__ == "__main__":
    unittest.main()
