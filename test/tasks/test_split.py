"""The probe split: held-out and training families are different families, and each side holds easy and
hard cells, multi-answer questions, shifts the training did not cover, and two-way guessable items."""
import random
import re
import unittest

import tasks_path  # noqa: F401
from families import FAMILIES

# Cells whose question the training corpus never asks in that form, or asks with misleading evidence.
SHIFT_KINDS = {"never trained": lambda f: f.train_weight == 0 and f.train_items is None,
               "look-alike or conflicting facts": lambda f: f.name in ("fact_lookalike", "birthplace")}


def side(heldout):
    return [f for f in FAMILIES if f.heldout == heldout]


class SplitTest(unittest.TestCase):
    def test_families_are_on_one_side_only(self):
        training = {f.name for f in side(False)}
        heldout = {f.name for f in side(True)}
        self.assertTrue(training and heldout)
        self.assertEqual(training & heldout, set())

    def test_heldout_question_forms_are_new(self):
        # A held-out family asks a different kind of question, not new numbers in a trained form: the first
        # four words of its questions (numbers masked) never begin a training family's question.
        def openings(f):
            rng = random.Random(0)
            return {" ".join(re.sub(r"\d+", "N", f.sample(rng)[0]).split()[:4]) for _ in range(50)}

        training = set().union(*(openings(f) for f in side(False)))
        for f in side(True):
            self.assertEqual(openings(f) & training, set(), f.cell)

    def test_each_side_is_varied(self):
        for heldout in (False, True):
            cells = side(heldout)
            with self.subTest(heldout=heldout):
                self.assertIn(1, {f.difficulty for f in cells})
                self.assertIn(3, {f.difficulty for f in cells})
                self.assertTrue(any(f.guessable for f in cells))
                multi = [f for f in cells if len(f.sample(random.Random(1))[1]) >= 2]
                self.assertTrue(multi)
                self.assertTrue(any(k(f) for f in cells for k in SHIFT_KINDS.values()))

    def test_untrained_cells_have_a_trained_neighbour(self):
        # A shift is only a shift if the same family is trained at other difficulties or the same question
        # form is trained elsewhere (add_carry: add_2d; sum_check/3: sum_check/2).
        trained = {f.name for f in FAMILIES if f.train_weight > 0 or f.train_items is not None}
        neighbours = {"add_carry": "add_2d"}
        for f in FAMILIES:
            if f.train_weight == 0 and f.train_items is None:
                self.assertIn(neighbours.get(f.name, f.name), trained, f.cell)


if __name__ == "__main__":
    unittest.main()
