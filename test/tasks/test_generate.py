"""examples/tasks/generate.py: deterministic for a seed, well-formed JSON Lines, every cell present."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import tasks_path
from families import FAMILIES

GENERATE = os.path.join(tasks_path.REPO, "examples", "tasks", "generate.py")
KEYS = ["id", "family", "difficulty", "heldout", "guessable", "question", "accept"]


def run_generate(seed, per_cell, out):
    subprocess.run([sys.executable, GENERATE, "--seed", str(seed), "--per-cell", str(per_cell), "-o", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out, "rb") as f:
        return f.read()


class GenerateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        cls.a = run_generate(7, 20, os.path.join(d, "a.jsonl"))
        cls.b = run_generate(7, 20, os.path.join(d, "b.jsonl"))
        cls.c = run_generate(8, 20, os.path.join(d, "c.jsonl"))
        cls.tasks = [json.loads(line) for line in cls.a.decode().splitlines()]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_same_seed_same_bytes(self):
        self.assertEqual(self.a, self.b)

    def test_other_seed_other_tasks(self):
        self.assertNotEqual(self.a, self.c)

    def test_schema(self):
        for t in self.tasks:
            self.assertEqual(list(t), KEYS, t)
            self.assertIsInstance(t["difficulty"], int)
            self.assertIsInstance(t["heldout"], bool)
            self.assertIsInstance(t["guessable"], bool)
            self.assertIsInstance(t["question"], str)
            self.assertTrue(t["question"] and "\n" not in t["question"], t)
            self.assertTrue(t["id"].startswith(t["family"] + "/"), t)

    def test_accept_lists(self):
        for t in self.tasks:
            self.assertTrue(t["accept"], t)
            self.assertEqual(len(set(t["accept"])), len(t["accept"]), t)
            for a in t["accept"]:
                self.assertTrue(a and a == a.strip() and "\n" not in a, t)

    def test_unique_ids_and_questions_per_cell(self):
        self.assertEqual(len({t["id"] for t in self.tasks}), len(self.tasks))
        cells = {}
        for t in self.tasks:
            cells.setdefault((t["family"], t["difficulty"]), []).append(t["question"])
        for cell, qs in cells.items():
            self.assertEqual(len(set(qs)), len(qs), cell)

    def test_every_cell_with_its_flags(self):
        got = {(t["family"], t["difficulty"]): (t["heldout"], t["guessable"]) for t in self.tasks}
        want = {(f.name, f.difficulty): (f.heldout, f.guessable) for f in FAMILIES}
        self.assertEqual(got, want)
        counts = {}
        for t in self.tasks:
            counts[(t["family"], t["difficulty"])] = counts.get((t["family"], t["difficulty"]), 0) + 1
        for f in FAMILIES:
            self.assertEqual(counts[(f.name, f.difficulty)], 20 if f.space is None else min(20, f.space), f.cell)


if __name__ == "__main__":
    unittest.main()
