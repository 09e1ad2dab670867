// Every request body fuzz_serve_request found (test/fuzz/regressions/fuzz_serve_request/) is read or refused as the
// target requires: parse_chat_request returns or throws BadChatRequest (a 400), never another exception.
#include <gtest/gtest.h>

#include "fuzz_findings.h"
#include "saguaro/handoff/chat_request.h"

namespace saguaro::handoff {
namespace {

TEST(ChatRequest, FuzzFindingsAreReadOrRefused) {
  const int seen = test::for_each_fuzz_finding("fuzz_serve_request", [](const std::string& path,
                                                                         const std::string& body) {
    try {
      (void)parse_chat_request(body);
    } catch (const BadChatRequest&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": " << e.what();
    }
  });
  EXPECT_GE(seen, 1);
}

}  // namespace
}  // namespace saguaro::handoff
