// libFuzzer target: a response_format's JSON Schema as saguaro_complete compiles it (JsonGrammar), then the bytes
// after the first NUL fed to its matcher and, before each byte, a token mask over a small vocabulary at one of three
// token budgets in turn (one mask per byte: masking every budget at every byte tripled the cost for no new paths).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "saguaro/json_schema_mask.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  const size_t cut = std::find(text, text + size, '\0') - text;
  std::string err;
  auto grammar = saguaro::JsonGrammar::from_schema(std::string_view(text, cut), &err);
  if (!grammar) return 0;
  static const auto vocab = [] {
    std::vector<std::string> pieces = {""};
    for (int c = 1; c < 256; ++c) pieces.push_back(std::string(1, static_cast<char>(c)));
    for (const char* p : {"{\"", "\":", "\",\"", "true", "null", "12", "\"}", "]}", "\\u00", "\xC3\xA9"})
      pieces.push_back(p);
    return std::make_shared<saguaro::TokenTrie>(pieces, std::vector<int32_t>{0});
  }();
  saguaro::JsonMask mask(grammar, vocab);
  std::vector<float> logits(static_cast<size_t>(vocab->vocab()));
  for (size_t i = cut + 1; i < size; ++i) {
    static constexpr int32_t kBudgets[] = {1000, 8, 1};
    (void)mask.mask(logits.data(), vocab->vocab(), kBudgets[(i - cut - 1) % 3], &err);
    if (!mask.feed(std::string_view(text + i, 1))) break;
  }
  (void)mask.complete();
  (void)mask.finished();
  return 0;
}
