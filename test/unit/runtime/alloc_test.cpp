// After init, prefill/decode and whole generations make no heap allocation.
#include <gtest/gtest.h>

#include "alloc_counter.h"
#include "fake_model.h"
#include "saguaro/engine.h"
#include "test_util.h"

namespace saguaro {
namespace {

TEST(ZeroAllocation, CounterSeesAllocations) {
  test::start_alloc_count();
  auto* p = new std::vector<int>(10);
  delete p;
  EXPECT_EQ(test::stop_alloc_count(), 2u);
}

TEST(ZeroAllocation, GenerateAfterInit) {
  const std::string dir = test::make_temp_dir();
  ASSERT_FALSE(test::write_fake_bundle(dir).empty());
  std::string err;
  auto engine = Engine::open(dir, &err);
  ASSERT_TRUE(engine) << err;
  size_t bytes = 0;
  const TokenCallback cb = [&bytes](std::string_view t, int32_t) { return bytes += t.size(), true; };
  GenerateConfig greedy;
  greedy.temperature = 0;
  greedy.echo_prompt = true;
  GenerateConfig sampled;
  sampled.temperature = 0.8f;
  sampled.top_k = 5;
  sampled.top_p = 0.9f;
  sampled.min_p = 0.05f;
  sampled.repetition_penalty = 1.3f;
  sampled.steps = test::kFakeMaxSeq;
  const std::string prompt = "ab ab bab";  // several prefill chunks

  test::start_alloc_count();
  const bool ok1 = engine->generate(prompt, greedy, cb, nullptr, &err);
  const bool ok2 = engine->generate(prompt, sampled, cb, nullptr, &err);
  const bool ok3 = engine->generate("", sampled, cb, nullptr, &err);
  const uint64_t allocs = test::stop_alloc_count();
  EXPECT_TRUE(ok1 && ok2 && ok3) << err;
  EXPECT_GT(bytes, 0u);
  EXPECT_EQ(allocs, 0u);
}

}  // namespace
}  // namespace saguaro
