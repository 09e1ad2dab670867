// Streamed text never splits a UTF-8 character.
#include "utf8_stream.h"

#include <gtest/gtest.h>

namespace saguaro {
namespace {

TEST(Utf8Stream, HoldsIncompleteCharacters) {
  Utf8Stream s(16);
  EXPECT_EQ(s.push("a\xE2"), "a");
  EXPECT_EQ(s.push("\x82"), "");
  EXPECT_EQ(s.push("\xAC!"), "\xE2\x82\xAC!");
  EXPECT_EQ(s.push("\xF0\x9F"), "");
  EXPECT_EQ(s.flush(), "\xF0\x9F");  // end of text: emit what is left
  EXPECT_EQ(s.push("x"), "x");
}

TEST(Utf8Stream, PassesInvalidBytesThrough) {
  Utf8Stream s(16);
  EXPECT_EQ(s.push("\x80\x80"), "\x80\x80");  // continuation bytes without a lead cannot complete
  EXPECT_EQ(s.push("\xFF"), "\xFF");
}

}  // namespace
}  // namespace saguaro
