#include <gtest/gtest.h>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/redact.h"
#include "test_support.h"

namespace saguaro::handoff {
namespace {

TEST(Redact, RegisteredSecretsAndCredentialShapedText) {
  register_secret("plain-registered-value-42");
  EXPECT_EQ(redact("x plain-registered-value-42 y"), "x [REDACTED] y");
  EXPECT_EQ(redact("Authorization: Bearer abc.def-123"), "Authorization: Bearer [REDACTED]");
  EXPECT_EQ(redact("x-api-key: unregistered9"), "x-api-key: [REDACTED]");
  EXPECT_EQ(redact("\"x-goog-api-key\": \"zzzz9999\""), "\"x-goog-api-key\": \"[REDACTED]\"");
  EXPECT_EQ(redact("GET /v1?key=abcd1234&x=1"), "GET /v1?key=[REDACTED]&x=1");
  EXPECT_EQ(redact("bad key sk-proj-unregistered-777."), "bad key [REDACTED].");
  EXPECT_EQ(redact("google AIzaSyUnregisteredKey123"), "google [REDACTED]");
  // Ordinary prose survives.
  EXPECT_EQ(redact("the x-api-key header is required"), "the x-api-key header is required");
  EXPECT_EQ(redact("task-based routing"), "task-based routing");
}

TEST(Redact, ErrorsAreRedactedAtConstruction) {
  register_secret(test::kFakeKey);
  HandoffError e(std::string("oops ") + test::kFakeKey);
  EXPECT_EQ(std::string(e.what()), "oops [REDACTED]");
  EXPECT_EQ(redact_known_secrets("answer: Bearer token"), "answer: Bearer token");
}

}  // namespace
}  // namespace saguaro::handoff
