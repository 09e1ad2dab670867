"""What the default model's training corpus covers and what it deliberately does not (docs/tasks.md):
suite questions of unbounded cells are unseen, shift cells never occur in training, multi-answer questions
are trained with several answers, birthplaces with both sources, rare and look-alike facts a fixed number
of times."""
import collections
import re
import unittest

import tasks_path  # noqa: F401
import corpus
import facts
from families import CELL_BY_NAME, FAMILIES, has_carry_chain
from generate import build_suite


class TrainingCoverageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus = corpus.default_corpus()
        cls.questions = frozenset(q for _, q, _ in cls.corpus)
        cls.answers = collections.defaultdict(collections.Counter)
        for _, q, a in cls.corpus:
            cls.answers[q][a] += 1
        cls.tasks = build_suite(seed=1, per_cell=100, training_questions=cls.questions)

    def test_size(self):
        self.assertEqual(len(self.corpus), corpus.TRAIN_STEPS * corpus.BATCH)

    def test_unbounded_cells_are_unseen(self):
        for t in self.tasks:
            if CELL_BY_NAME[f"{t['family']}/{t['difficulty']}"].space is None:
                self.assertNotIn(t["question"], self.questions, t)

    def test_bounded_cells_are_mostly_seen(self):
        # The README says these small spaces are covered (almost) completely by training.
        by_cell = collections.defaultdict(list)
        for t in self.tasks:
            by_cell[f"{t['family']}/{t['difficulty']}"].append(t["question"] in self.questions)
        for fam in FAMILIES:
            if fam.space is not None:
                seen = by_cell[fam.cell]
                self.assertGreaterEqual(sum(seen) / len(seen), 0.6, fam.cell)

    def test_shift_cells_never_trained(self):
        for fam in FAMILIES:
            if fam.train_weight == 0 and fam.train_items is None:
                self.assertFalse(any(c == fam.cell for c, _, _ in self.corpus), fam.cell)
        for _, q, _ in self.corpus:
            m = re.fullmatch(r"(?:What is|Is) (\d+) \+ (\d+)(?:\?| equal to \d+\?)", q)
            if m:
                self.assertFalse(has_carry_chain(int(m.group(1)), int(m.group(2))), q)
            m = re.fullmatch(r"Reverse the word ([a-z]+)\.", q)
            if m:
                self.assertLessEqual(len(m.group(1)), 5, q)
            m = re.fullmatch(r"How many times does [a-z] occur in ([a-z]+)\?", q)
            if m:
                self.assertLessEqual(len(m.group(1)), 9, q)

    def test_multi_answer_questions_trained_with_several_answers(self):
        for t in self.tasks:
            if len(t["accept"]) >= 2 and self.answers[t["question"]].total() >= 10:
                got = self.answers[t["question"]]
                self.assertGreaterEqual(len(got), 2, t)
                self.assertTrue(set(got) <= set(t["accept"]), t)

    def test_rare_and_lookalike_fact_counts(self):
        for f in facts.RARE_FACTS + facts.LOOKALIKE_FACTS:
            q, a = f.qa()
            self.assertEqual(self.answers[q], {a: facts.RARE_REPEATS}, q)

    def test_birthplaces_from_two_sources(self):
        shares = set()
        for b in facts.BIRTHS:
            got = self.answers[b.question()]
            self.assertEqual(got, {b.city: b.true_count, b.stale: facts.CONFLICT_REPEATS - b.true_count})
            shares.add(b.true_count)
        # Truth is the majority for some people and the minority for others.
        self.assertTrue(min(shares) < facts.CONFLICT_REPEATS / 2 < max(shares))

    def test_single_answer_questions_have_one_training_answer(self):
        for t in self.tasks:
            if len(t["accept"]) == 1 and t["family"] != "birthplace" and t["question"] in self.answers:
                self.assertEqual(set(self.answers[t["question"]]), set(t["accept"]), t)


if __name__ == "__main__":
    unittest.main()
