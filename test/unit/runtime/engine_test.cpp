// Engine over the fake bigram model: generation semantics, prefill chunking, logits, weight binding errors.
#include "saguaro/engine.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "blob_writer.h"
#include "fake_model.h"
#include "test_util.h"

namespace saguaro {
namespace {

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::make_temp_dir();
    ASSERT_FALSE(test::write_fake_bundle(dir_).empty());
    std::string err;
    engine_ = Engine::open(dir_, &err);
    ASSERT_TRUE(engine_) << err;
  }
  std::string run(const std::string& prompt, GenerateConfig cfg, GenerateStats* st = nullptr) {
    std::string out, err;
    EXPECT_TRUE(engine_->generate(prompt, cfg, [&](std::string_view t, int32_t) { return out.append(t), true; }, st,
                                  &err))
        << err;
    return out;
  }
  std::string dir_;
  std::unique_ptr<Engine> engine_;
};

GenerateConfig greedy() {
  GenerateConfig c;
  c.temperature = 0;
  c.echo_prompt = true;
  return c;
}

TEST_F(EngineTest, GreedyGenerationStopsAtBos) {
  GenerateStats st;
  // Prompt "" = [BOS]; continuation " a" (space stripped after BOS) b ab a, then BOS.
  EXPECT_EQ(run("", greedy(), &st), "ababa");
  EXPECT_EQ(st.prompt_tokens, 1);
  EXPECT_EQ(st.generated_tokens, 4);
  EXPECT_EQ(st.positions, 5);
}

// Allows only `token`, `limit` times, then is finished; records the budgets it was given.
struct OnlyToken : TokenConstraint {
  int32_t token = -1, limit = 0, accepted = 0;
  std::vector<int32_t> budgets;
  bool mask(float* logits, int32_t vocab, int32_t tokens_left, std::string* err) override {
    budgets.push_back(tokens_left);
    if (token < 0) return *err = "no token", false;
    for (int32_t i = 0; i < vocab; ++i)
      if (i != token) logits[i] = -1e30f;
    return true;
  }
  void accept(int32_t t) override { accepted += t == token; }
  bool finished() const override { return accepted >= limit; }
};

TEST_F(EngineTest, ConstraintMasksEveryStepAndEndsGeneration) {
  std::vector<std::string> pieces;
  std::vector<int32_t> stops;
  engine_->vocabulary(&pieces, &stops);
  OnlyToken only;
  while (only.token + 1 < static_cast<int32_t>(pieces.size()) && pieces[++only.token] != "b") {
  }
  ASSERT_EQ(pieces[only.token], "b");
  EXPECT_FALSE(stops.empty());
  only.limit = 3;
  GenerateConfig cfg = greedy();
  cfg.echo_prompt = false, cfg.temperature = 1, cfg.max_new_tokens = 10, cfg.constraint = &only;
  EXPECT_EQ(run("a", cfg), "bbb");
  EXPECT_EQ(only.budgets, (std::vector<int32_t>{10, 9, 8}));
  OnlyToken none;  // a constraint that allows nothing fails the generation with its message
  cfg.constraint = &none;
  std::string err;
  EXPECT_FALSE(engine_->generate("a", cfg, [](std::string_view, int32_t) { return true; }, nullptr, &err));
  EXPECT_EQ(err, "no token");
}

// tokenizer.stop_ids (generation_config.json's eos_token_id) end generation besides the tokenizer's own stop token;
// a malformed list is refused at open, naming the metadata.
TEST(EngineStopIds, GenerationEndsAtAStopId) {
  const std::string dir = test::make_temp_dir();
  ASSERT_FALSE(test::write_fake_bundle(dir, {{"tokenizer.stop_ids", "5,263"}}).empty());
  std::string err, out;
  auto engine = Engine::open(dir, &err);
  ASSERT_TRUE(engine) << err;
  GenerateStats st;
  ASSERT_TRUE(engine->generate("", greedy(), [&](std::string_view t, int32_t) { return out.append(t), true; }, &st,
                               &err));
  EXPECT_EQ(out, "ab");  // " a" b, then 263 ("ab") stops
  EXPECT_EQ(st.generated_tokens, 2);
  for (const char* bad : {"5,", "x", "5,99999", "-1"}) {
    const std::string d = test::make_temp_dir();
    ASSERT_FALSE(test::write_fake_bundle(d, {{"tokenizer.stop_ids", bad}}).empty());
    EXPECT_FALSE(Engine::open(d, &err)) << bad;
    EXPECT_NE(err.find("tokenizer.stop_ids"), std::string::npos) << err;
  }
}

TEST_F(EngineTest, PromptIsEchoedAndContinued) {
  EXPECT_EQ(run("a", greedy()), "ababa");  // [BOS, " a"] → b ab a, then BOS
  GenerateConfig c = greedy();
  c.echo_prompt = false;
  EXPECT_EQ(run("a", c), "baba");
}

TEST_F(EngineTest, StepsCountPromptPositions) {
  GenerateConfig c = greedy();
  c.steps = 2;  // positions 0 (forced " a") and 1 (sampled b)
  EXPECT_EQ(run("a", c), "ab");
  c.steps = 1;
  EXPECT_EQ(run("a", c), "a");
  c.steps = 0;
  c.max_new_tokens = 1;
  EXPECT_EQ(run("a", c), "ab");
}

TEST_F(EngineTest, LongPromptIsPrefilledInChunks) {
  test::g_fake_prefill_calls = 0;
  GenerateConfig c = greedy();
  c.steps = 12;
  // BOS + " " + 10 × "b" = 12 ids (no merges apply): 3 chunks of 4. " " after BOS prints nothing (run.c);
  // position 11 samples "ab", then steps are used up.
  EXPECT_EQ(run("bbbbbbbbbb", c), "bbbbbbbbbbab");
  EXPECT_EQ(test::g_fake_prefill_calls, 3);
}

TEST_F(EngineTest, PromptLongerThanMaxSeqIsAnError) {
  std::string err;
  EXPECT_FALSE(engine_->generate(std::string(100, 'b'), greedy(), [](std::string_view, int32_t) { return true; },
                                 nullptr, &err));
  EXPECT_NE(err.find("max_seq"), std::string::npos) << err;
}

TEST_F(EngineTest, CallbackCanStop) {
  int calls = 0;
  std::string err;
  ASSERT_TRUE(engine_->generate("a", greedy(), [&](std::string_view, int32_t) { return ++calls < 2; }, nullptr, &err));
  EXPECT_EQ(calls, 2);
}

TEST_F(EngineTest, LogitsOfAllPositions) {
  std::string err;
  const std::vector<float> l = engine_->logits({1, 262, 261, 5, 6, 7}, &err);
  ASSERT_EQ(l.size(), 6u * test::kFakeVocab) << err;
  const std::vector<float> table = test::fake_bigram_table();
  EXPECT_EQ(l[0 * test::kFakeVocab + 262], 10.0f);
  EXPECT_EQ(l[5 * test::kFakeVocab + 2], 5.0f);
  EXPECT_EQ(l[3 * test::kFakeVocab + 9], table[5 * test::kFakeVocab + 9]);
  EXPECT_TRUE(engine_->logits({1, 9999}, &err).empty());
  EXPECT_NE(err.find("9999"), std::string::npos);
  EXPECT_TRUE(engine_->logits({}, &err).empty());
}

TEST_F(EngineTest, OpensSgwPathAndMemory) {
  std::string err;
  EXPECT_TRUE(Engine::open(dir_ + "/weights.sgw", &err)) << err;
  const std::string bytes = test::read_file(dir_ + "/weights.sgw");
  void* mem = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64);
  std::memcpy(mem, bytes.data(), bytes.size());
  auto e = Engine::open_memory(mem, bytes.size(), "linked-blob", &err);
  ASSERT_TRUE(e) << err;
  EXPECT_EQ(e->metadata("model.name"), "fake-bigram");
  e.reset();
  std::free(mem);
}

// Writes a bundle whose bigram weight differs from what the model expects.
std::string bind_error(DType dtype, uint64_t elems, const std::string& name,
                       const std::string& layout = "row-major") {
  const std::string dir = test::make_temp_dir();
  std::vector<float> table(elems);
  const std::vector<uint8_t> tok = test::tiny_llama2c_tokenizer();
  const uint64_t esize = dtype == DType::F32 ? 4 : 2;
  std::vector<BlobTensor> ts = {
      {name, "weight", layout, dtype, {int64_t(elems * 4 / esize)}, table.data(), elems * 4},
      {"tokenizer.llama2c", "tokenizer", "row-major", DType::U8, {int64_t(tok.size())}, tok.data(), tok.size()}};
  std::string err;
  EXPECT_TRUE(write_blob(dir + "/weights.sgw", ts, {{"tokenizer.kind", "llama2c"}}, &err)) << err;
  EXPECT_FALSE(Engine::open(dir, &err));
  return err;
}

TEST(EngineBinding, RejectsMismatchedWeights) {
  const uint64_t n = uint64_t(test::kFakeVocab) * test::kFakeVocab;
  EXPECT_NE(bind_error(DType::F32, n, "other").find("weight 'bigram' missing"), std::string::npos);
  EXPECT_NE(bind_error(DType::F16, n, "bigram").find("is F16, model expects F32"), std::string::npos);
  EXPECT_NE(bind_error(DType::F32, n - 1, "bigram").find("bytes, model expects"), std::string::npos);
  EXPECT_NE(bind_error(DType::F32, n, "bigram", "cq-planar-panel8")
                .find("weight 'bigram' is stored as cq-planar-panel8, model expects row-major"),
            std::string::npos);
}

TEST(EngineBinding, NoTokenizerStillComputesLogits) {
  const std::string dir = test::make_temp_dir();
  const std::vector<float> table = test::fake_bigram_table();
  std::string err;
  ASSERT_TRUE(write_blob(dir + "/weights.sgw",
                         {{"bigram", "weight", "row-major", DType::F32, {int64_t(table.size())}, table.data(),
                           table.size() * 4}},
                         {}, &err));
  auto engine = Engine::open(dir, &err);
  ASSERT_TRUE(engine) << err;
  EXPECT_FALSE(engine->logits({1, 2}, &err).empty()) << err;
  std::vector<int32_t> ids;
  EXPECT_FALSE(engine->tokenize("a", &ids, &err));
  EXPECT_NE(err.find("no tokenizer"), std::string::npos) << err;
}

}  // namespace
}  // namespace saguaro
