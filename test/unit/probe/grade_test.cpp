// The grading rule of docs/tasks.md as the C++ collector applies it; the same cases as
// test/tasks/test_grade.py checks against examples/tasks/grade.py.
#include "probe/grade.h"

#include <gtest/gtest.h>

using saguaro::probe::extract_answer;
using saguaro::probe::is_right;

TEST(Grade, TrimsAsciiWhitespaceAndTakesTheFirstLine) {
  EXPECT_TRUE(is_right(" 42", {"42"}));
  EXPECT_TRUE(is_right("\t 42 \r", {"42"}));
  EXPECT_EQ(extract_answer("  a b  "), "a b");
  EXPECT_TRUE(is_right(" 42\nQ: What is 1 + 1?\nA: 2\n", {"42"}));
  EXPECT_FALSE(is_right(" 4\n2", {"42"}));
  EXPECT_FALSE(is_right("\n42", {"42"}));
  EXPECT_EQ(extract_answer(" \t "), "");
  EXPECT_FALSE(is_right("", {"42"}));
}

TEST(Grade, ExactAndCaseSensitive) {
  EXPECT_TRUE(is_right(" two\n", {"2", "two"}));
  EXPECT_FALSE(is_right(" Two\n", {"2", "two"}));
  EXPECT_FALSE(is_right(" 42.\n", {"42"}));
  EXPECT_FALSE(is_right(" 421", {"42"}));
  EXPECT_FALSE(is_right("\xc2\xa0" "42", {"42"})); // a no-break space is not ASCII whitespace
}

TEST(Grade, WorkedAnswerIsCutAfterTheLastSo) {
  EXPECT_TRUE(is_right(" n0 v0 w1 w2 w3 g3, so 3\n", {"3", "three"}));
  EXPECT_TRUE(is_right(" 24 + 14 is 38, so no", {"no"}));
  EXPECT_EQ(extract_answer(" a, so b, so  c "), "c");
  EXPECT_FALSE(is_right(" 24 + 14 is 38, so yes", {"no"}));
  EXPECT_FALSE(is_right(" 24 + 14 is 38 so no", {"no"})); // no comma: not a worked answer
  EXPECT_FALSE(is_right(" 38\nx, so no", {"no"}));        // only the first line counts
  EXPECT_FALSE(is_right(" 24 + 14 is 38, so ", {"no"}));
}
