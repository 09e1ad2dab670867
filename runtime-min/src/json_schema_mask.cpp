// JsonGrammar, TokenTrie and JsonMask: the token mask of a parse state is the set of tokens whose bytes the
// matcher accepts, found by walking the vocabulary's trie (a shared prefix is matched once) and cached by state.
#include "saguaro/json_schema_mask.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "json_grammar_matcher.h"

namespace saguaro {

std::shared_ptr<const JsonGrammar> JsonGrammar::from_schema(std::string_view schema_json, std::string* err) {
  auto nodes = std::make_shared<JsonGrammarNodes>();
  if (!compile_json_schema(std::string(schema_json), nodes.get(), err)) return nullptr;
  auto g = std::make_shared<JsonGrammar>();
  g->nodes = std::move(nodes);
  return g;
}

std::shared_ptr<const JsonGrammar> JsonGrammar::from_response_format(std::string_view format_json, std::string* err) {
  using nlohmann::json;
  err->clear();
  const json f = json::parse(format_json, nullptr, false);
  if (f.is_discarded() || !f.is_object() || !f.contains("type") || !f["type"].is_string())
    return *err = "expected an object with \"type\": \"text\", \"json_object\" or \"json_schema\"", nullptr;
  const std::string type = f["type"].get<std::string>();
  if (type == "text") return nullptr;
  if (type == "json_object") return from_schema(R"({"type":"object"})", err);
  if (type != "json_schema")
    return *err = "\"type\" " + json(type).dump() + " is not \"text\", \"json_object\" or \"json_schema\"", nullptr;
  const json* schema = nullptr;
  if (f.contains("json_schema") && f["json_schema"].is_object() && f["json_schema"].contains("schema"))
    schema = &f["json_schema"]["schema"];
  else if (f.contains("schema"))
    schema = &f["schema"];
  if (!schema) return *err = "\"json_schema\" needs \"json_schema\": {\"schema\": ...}", nullptr;
  std::string e;
  auto g = from_schema(schema->dump(), &e);
  if (!g) *err = "schema " + e;
  return g;
}

namespace {

bool plain_byte(uint8_t c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

// Builds the subtree of the tokens order[lo, hi) (sorted by bytes, sharing their first `depth` bytes) into
// nodes[at]; returns whether its bytes are all plain.
bool build_trie(std::vector<TokenTrie::Node>& nodes, const std::vector<int32_t>& order,
                const std::vector<std::string>& pieces, uint32_t at, uint32_t lo, uint32_t hi, size_t depth) {
  uint32_t here = lo;
  while (here < hi && pieces[order[here]].size() == depth) ++here;
  std::vector<std::pair<uint32_t, uint32_t>> groups;  // [lo, hi) of each next byte
  for (uint32_t i = here; i < hi;) {
    const char b = pieces[order[i]][depth];
    uint32_t j = i;
    while (j < hi && pieces[order[j]][depth] == b) ++j;
    groups.emplace_back(i, j);
    i = j;
  }
  const uint32_t first = static_cast<uint32_t>(nodes.size());
  nodes.resize(nodes.size() + groups.size());
  nodes[at].tok_begin = lo, nodes[at].tok_end = hi, nodes[at].tok_here = here - lo;
  nodes[at].first_child = first, nodes[at].n_children = static_cast<uint32_t>(groups.size());
  bool plain = true;
  for (size_t k = 0; k < groups.size(); ++k) {
    const uint32_t child = first + static_cast<uint32_t>(k);
    nodes[child].byte = static_cast<uint8_t>(pieces[order[groups[k].first]][depth]);
    const bool sub = build_trie(nodes, order, pieces, child, groups[k].first, groups[k].second, depth + 1);
    nodes[child].plain = sub && plain_byte(nodes[child].byte);
    plain = plain && nodes[child].plain;
  }
  return plain;
}

}  // namespace

TokenTrie::TokenTrie(const std::vector<std::string>& pieces, std::vector<int32_t> stop_ids)
    : pieces_(pieces), stop_ids_(std::move(stop_ids)), vocab_(static_cast<int32_t>(pieces.size())) {
  std::vector<bool> stop(pieces.size(), false);
  for (int32_t id : stop_ids_)
    if (id >= 0 && id < vocab_) stop[id] = true;
  for (int32_t id = 0; id < vocab_; ++id)
    if (!pieces_[id].empty() && !stop[id]) order_.push_back(id);
  std::sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) { return pieces_[a] < pieces_[b]; });
  nodes_.resize(1);
  build_trie(nodes_, order_, pieces_, 0, 0, static_cast<uint32_t>(order_.size()), 0);
}

namespace {
// A cached mask: the allowed tokens (one bit per id) and the largest bytes_to_complete after any of them, which
// says whether a token budget can make the mask smaller.
struct StateMask {
  std::vector<uint64_t> bits;
  int64_t worst_after = 0;
};
constexpr size_t kCacheBytes = 64u << 20;  // masks kept per generation
}  // namespace

struct JsonMask::Impl {
  std::shared_ptr<const JsonGrammar> grammar;
  std::shared_ptr<const TokenTrie> vocab;
  std::string argument;  // what the errors start with
  JsonMatcher matcher;
  JsonParseState state;
  std::vector<JsonParseState> walk;  // walk[d]: the state after d bytes of the trie path being walked
  std::unordered_map<std::string, StateMask> cache;
  StateMask scratch;
  std::vector<std::pair<int32_t, float>> stop_logits;
  size_t bytes_fed = 0;

  Impl(std::shared_ptr<const JsonGrammar> g, std::shared_ptr<const TokenTrie> v, std::string arg)
      : grammar(std::move(g)), vocab(std::move(v)), argument(std::move(arg)), matcher(*grammar->nodes) {
    matcher.start(&state);
  }

  std::string key() const {
    std::string k(reinterpret_cast<const char*>(state.ends.data()), state.ends.size() * sizeof(uint32_t));
    k.append(reinterpret_cast<const char*>(state.frames.data()), state.frames.size() * sizeof(JsonFrame));
    return k;
  }

  void allow(StateMask* m, int32_t id) const { m->bits[id >> 6] |= uint64_t{1} << (id & 63); }

  // Marks in *m the tokens below trie node t that the matcher accepts from walk[d] and that leave at most
  // `budget` bytes to complete.
  void visit(uint32_t t, size_t d, int64_t budget, StateMask* m) {
    const std::vector<TokenTrie::Node>& nodes = vocab->nodes();
    const std::vector<int32_t>& order = vocab->order();
    if (walk.size() < d + 2) walk.resize(d + 2);
    int64_t room = 0, need = 0;
    const bool in_string = matcher.inside_string(walk[d], &room, &need);
    const int64_t cost_here = in_string ? matcher.bytes_to_complete(walk[d]) : 0;
    const TokenTrie::Node& node = nodes[t];
    for (uint32_t k = 0; k < node.n_children; ++k) {
      const uint32_t ci = node.first_child + k;
      const TokenTrie::Node& child = nodes[ci];
      if (in_string && child.plain) {
        // Inside a string each plain byte is one more code point: a token of the subtree fits when its remaining
        // bytes do, and brings the completion that many bytes closer while the minimum length is not reached.
        for (uint32_t i = child.tok_begin; i < child.tok_end; ++i) {
          const int64_t bytes = static_cast<int64_t>(vocab->piece(order[i]).size() - d);
          const int64_t after = cost_here - std::min(bytes, need);
          if ((room >= 0 && bytes > room) || after > budget) continue;
          allow(m, order[i]);
          m->worst_after = std::max(m->worst_after, after);
        }
        continue;
      }
      matcher.step(walk[d], child.byte, &walk[d + 1]);
      if (walk[d + 1].empty()) continue;
      if (child.tok_here > 0) {
        const int64_t cost = matcher.bytes_to_complete(walk[d + 1]);
        if (cost <= budget) {
          for (uint32_t i = child.tok_begin; i < child.tok_begin + child.tok_here; ++i) allow(m, order[i]);
          m->worst_after = std::max(m->worst_after, cost);
        }
      }
      if (child.n_children > 0) visit(ci, d + 1, budget, m);
    }
  }

  void compute(int64_t budget, StateMask* m) {
    m->bits.assign((static_cast<size_t>(vocab->vocab()) + 63) / 64, 0);
    m->worst_after = 0;
    if (walk.empty()) walk.resize(2);
    walk[0] = state;
    visit(0, 0, budget, m);
  }

  // The mask of the current state without a budget, from the cache or computed into it.
  const StateMask& unbudgeted() {
    std::string k = key();
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    const size_t mask_bytes = (static_cast<size_t>(vocab->vocab()) + 63) / 64 * 8 + 64;
    if (cache.size() * mask_bytes > kCacheBytes) cache.clear();
    StateMask& m = cache[std::move(k)];
    compute(std::numeric_limits<int64_t>::max(), &m);
    return m;
  }
};

JsonMask::JsonMask(std::shared_ptr<const JsonGrammar> grammar, std::shared_ptr<const TokenTrie> vocab,
                   std::string argument)
    : impl_(std::make_unique<Impl>(std::move(grammar), std::move(vocab), std::move(argument))) {}
JsonMask::~JsonMask() = default;

void JsonMask::reset() {
  impl_->matcher.start(&impl_->state);
  impl_->bytes_fed = 0;
}

bool JsonMask::complete() const { return impl_->matcher.complete(impl_->state); }
bool JsonMask::finished() const { return impl_->matcher.finished(impl_->state); }

bool JsonMask::feed(std::string_view bytes) {
  JsonParseState a = impl_->state, b;
  for (char c : bytes) {
    impl_->matcher.step(a, static_cast<uint8_t>(c), &b);
    if (b.empty()) return false;
    std::swap(a, b);
  }
  impl_->state = std::move(a);
  impl_->bytes_fed += bytes.size();
  return true;
}

void JsonMask::accept(int32_t token) {
  if (token >= 0 && token < impl_->vocab->vocab()) feed(impl_->vocab->piece(token));
}

bool JsonMask::mask(float* logits, int32_t vocab, int32_t tokens_left, std::string* err) {
  Impl& m = *impl_;
  const bool done = complete();
  const int64_t budget = static_cast<int64_t>(tokens_left) - 1;
  const StateMask* allowed = &m.unbudgeted();
  if (allowed->worst_after > budget) {
    m.compute(budget, &m.scratch);
    allowed = &m.scratch;
  }
  // Stop tokens are not in the trie: they end the value where it is complete, with the model's own logit.
  m.stop_logits.clear();
  if (done)
    for (int32_t id : m.vocab->stop_ids())
      if (id >= 0 && id < vocab) m.stop_logits.emplace_back(id, logits[id]);
  const int32_t known = std::min(vocab, m.vocab->vocab());
  bool any = false;
  for (int32_t base = 0; base < known; base += 64) {
    const uint64_t word = allowed->bits[base >> 6];
    const int32_t end = std::min(known, base + 64);
    if (word == ~uint64_t{0} && end - base == 64) {
      any = true;
      continue;
    }
    for (int32_t id = base; id < end; ++id)
      if (!(word >> (id - base) & 1))
        logits[id] = -std::numeric_limits<float>::infinity();
      else
        any = true;
  }
  for (int32_t id = known; id < vocab; ++id) logits[id] = -std::numeric_limits<float>::infinity();
  for (const auto& [id, logit] : m.stop_logits) {
    logits[id] = std::isfinite(logit) ? logit : 0.0f;  // ending must stay possible
    any = true;
  }
  if (any) return true;
  const int64_t need = m.matcher.bytes_to_complete(m.state);
  if (need > budget)
    *err = m.argument + ": " + std::to_string(tokens_left) + " tokens left cannot complete the JSON value (it needs " +
           std::to_string(need) + " more bytes); raise max_tokens";
  else
    *err = m.argument + ": no token of the vocabulary continues the JSON value after byte " +
           std::to_string(m.bytes_fed);
  return false;
}

}  // namespace saguaro
