"""The grading rule of docs/tasks.md, as examples/tasks/grade.py implements it."""
import unittest

import tasks_path  # noqa: F401
import grade


class GradeTest(unittest.TestCase):
    def test_prompt(self):
        self.assertEqual(grade.prompt("What is 17 + 25?"), "Q: What is 17 + 25?\nA:")

    def test_trims_ascii_whitespace(self):
        self.assertTrue(grade.is_right(" 42", ["42"]))
        self.assertTrue(grade.is_right("\t 42 \r", ["42"]))
        self.assertEqual(grade.extract_answer("  a b  "), "a b")

    def test_cut_at_first_newline(self):
        self.assertTrue(grade.is_right(" 42\nQ: What is 1 + 1?\nA: 2\n", ["42"]))
        self.assertFalse(grade.is_right(" 4\n2", ["42"]))
        self.assertFalse(grade.is_right("\n42", ["42"]))  # the answer line is empty

    def test_no_newline_uses_everything(self):
        self.assertTrue(grade.is_right(" 42", ["42"]))
        self.assertFalse(grade.is_right(" 421", ["42"]))

    def test_multiple_accepted_answers(self):
        self.assertTrue(grade.is_right(" 13\n", ["11", "13", "17"]))
        self.assertTrue(grade.is_right(" 17\n", ["11", "13", "17"]))
        self.assertFalse(grade.is_right(" 15\n", ["11", "13", "17"]))
        self.assertTrue(grade.is_right(" two\n", ["2", "two"]))

    def test_exact_and_case_sensitive(self):
        self.assertFalse(grade.is_right(" Two\n", ["2", "two"]))
        self.assertFalse(grade.is_right(" 42.\n", ["42"]))
        self.assertFalse(grade.is_right(" lomar\n", ["Lomar"]))
        self.assertFalse(grade.is_right("", ["42"]))

    def test_only_ascii_whitespace_is_trimmed(self):
        self.assertFalse(grade.is_right("\u00a042", ["42"]))  # no-break space is not ASCII whitespace

    def test_worked_answer_is_cut_after_the_last_so(self):
        self.assertTrue(grade.is_right(" n0 v0 w1 w2 w3 g3, so 3\n", ["3", "three"]))
        self.assertTrue(grade.is_right(" 24 + 14 is 38, so no", ["no"]))
        self.assertEqual(grade.extract_answer(" a, so b, so  c "), "c")
        self.assertFalse(grade.is_right(" 24 + 14 is 38, so yes", ["no"]))
        self.assertFalse(grade.is_right(" 24 + 14 is 38 so no", ["no"]))  # no comma: not a worked answer
        self.assertFalse(grade.is_right(" 38\nx, so no", ["no"]))  # only the first line counts
        self.assertFalse(grade.is_right(" 24 + 14 is 38, so ", ["no"]))


if __name__ == "__main__":
    unittest.main()
