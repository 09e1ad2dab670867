"""Every character of every prompt and accepted answer is in the default model's tokenizer vocabulary, and
the training corpus uses exactly that vocabulary (so the tokenizer of a retrained model keeps its ids)."""
import json
import os
import unittest

import tasks_path
import corpus
import grade
from generate import build_suite


class VocabTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = os.path.join(tasks_path.REPO, "examples", "models", "default", "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            cls.vocab = json.load(f)["model"]["vocab"]

    def test_suite_characters(self):
        for t in build_suite(seed=1, per_cell=100):
            for text in [grade.prompt(t["question"])] + [" " + a + "\n" for a in t["accept"]]:
                missing = {c for c in text if c not in self.vocab}
                self.assertEqual(missing, set(), (t["id"], text))

    def test_training_corpus_characters_are_the_vocabulary(self):
        chars = corpus.corpus_charset(corpus.default_corpus())
        self.assertEqual(chars, sorted(k for k, i in self.vocab.items() if i >= 4))
        self.assertEqual([self.vocab[c] for c in chars], list(range(4, 4 + len(chars))))


if __name__ == "__main__":
    unittest.main()
