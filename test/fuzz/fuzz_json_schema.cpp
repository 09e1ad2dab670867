// libFuzzer target: a response_format's JSON Schema as saguaro_complete compiles it (JsonGrammar), then the bytes
// after the first NUL fed to its matcher one at a time, with a token mask over a small vocabulary at one of three
// token budgets in turn before each of the first kEveryByte bytes and before every kStride-th byte after them. A mask
// walks the whole vocabulary trie (88 % of the time on the grown corpus); masking every byte of inputs of kilobytes
// made a run cost O(length × vocabulary) for states the first bytes and the sampled ones already reach.
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
  static constexpr size_t kEveryByte = 64, kStride = 61;  // a stride prime to 3 cycles every budget
  static constexpr int32_t kBudgets[] = {1000, 8, 1};
  for (size_t i = cut + 1; i < size; ++i) {
    const size_t at = i - cut - 1;
    if (at < kEveryByte || at % kStride == 0) (void)mask.mask(logits.data(), vocab->vocab(), kBudgets[at % 3], &err);
    if (!mask.feed(std::string_view(text + i, 1))) break;
  }
  (void)mask.complete();
  (void)mask.finished();
  return 0;
}
