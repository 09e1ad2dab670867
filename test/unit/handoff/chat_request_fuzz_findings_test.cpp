// Every request body fuzz_serve_request found (test/fuzz/regressions/fuzz_serve_request/) is read or refused as the
// target requires: parse_chat_request returns or throws BadChatRequest (a 400), never another exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "saguaro/handoff/chat_request.h"

namespace saguaro::handoff {
namespace {

TEST(ChatRequest, FuzzFindingsAreReadOrRefused) {
  const std::string dir = std::string(SAGUARO_SOURCE_ROOT) + "/test/fuzz/regressions/fuzz_serve_request";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream body;
    body << in.rdbuf();
    try {
      (void)parse_chat_request(body.str());
    } catch (const BadChatRequest&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << entry.path() << ": " << e.what();
    }
    ++seen;
  }
  EXPECT_GE(seen, 1);
}

}  // namespace
}  // namespace saguaro::handoff
