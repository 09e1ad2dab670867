// Gemma 4's chat template (test/fixtures/chat_templates/gemma4/, written in the layout of the released E2B / E4B
// template; docs/gemma4.md, "Chat") compiled into pieces: the prompts equal Python jinja2's rendering of the same
// template (test/reference/render_chat_template.py, transformers' environment) for every conversation shape the
// runtime takes, with and without thinking; one expected prompt is also written out by hand from the template.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ChatCompiler.h"
#include "saguaro/chat_template.h"
#include "test_util.h"

namespace saguaro {
namespace {

const std::string kDir = std::string(SAGUARO_CHAT_FIXTURES) + "/gemma4";
const std::string kConfig = kDir + "/tokenizer_config.json";

// The template compiled as `saguaro compile` does it: the text and the special tokens from tokenizer_config.json.
ChatTemplate compiled(std::optional<bool> thinking) {
  ChatTemplateOptions opts;
  opts.enable_thinking = thinking;
  std::string text, err;
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(read_chat_template(kConfig, &text, &err)) << err;
  EXPECT_TRUE(read_chat_special_tokens(kConfig, &opts, &err)) << err;
  EXPECT_TRUE(compile_chat_template(text, opts, &bytes, &err)) << err;
  ChatTemplate t;
  EXPECT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  return t;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Python jinja2's rendering of the fixture for `msgs`.
std::string jinja2_prompt(const std::vector<ChatMessage>& msgs, bool gen, std::optional<bool> thinking) {
  nlohmann::json j = nlohmann::json::array();
  for (const ChatMessage& m : msgs) {
    nlohmann::json content = m.content;
    if (!m.parts.empty()) {
      content = nlohmann::json::array();
      for (const ContentPart& p : m.parts)
        content.push_back(p.kind == ContentPart::kText    ? nlohmann::json{{"type", "text"}, {"text", p.text}}
                          : p.kind == ContentPart::kImage ? nlohmann::json{{"type", "image"}}
                                                          : nlohmann::json{{"type", "audio"}});
    }
    j.push_back({{"role", m.role}, {"content", content}});
  }
  std::string cmd = "/usr/bin/python3 " SAGUARO_SOURCE_ROOT "/test/reference/render_chat_template.py " +
                    quoted(kConfig) + " " + quoted(j.dump()) + (gen ? "" : " --no-generation-prompt");
  if (thinking) cmd += *thinking ? " --enable-thinking true" : " --enable-thinking false";
  return test::run_command(cmd);
}

bool have_jinja2() { return test::run_command("/usr/bin/python3 -c 'import jinja2; print(1)' 2>/dev/null") == "1\n"; }

TEST(Gemma4Chat, PromptsEqualJinja2) {
  if (!have_jinja2()) GTEST_SKIP() << "SKIP: /usr/bin/python3 has no jinja2 (python3-jinja2)";
  const std::vector<std::vector<ChatMessage>> conversations = {
      {{"user", "Hello!"}},
      {{"system", "  You are a helpful assistant.\n"}, {"user", " What is 2+2? "}},
      {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", " Hello! \n"}, {"user", "How are you?"}},
      {{"user", "a"}, {"assistant", "b"}, {"user", "c"}, {"assistant", "d"}, {"user", "e"}},
      {{"user", "one"}, {"user", "two"}},  // the template does not require alternating roles
      {{"user", "q"}, {"assistant", " a1 "}, {"assistant", "a2"}, {"user", "r"}},  // one model turn
      {{"system", "s"}, {"user", "q"}, {"assistant", "a1"}, {"assistant", "a2"}, {"assistant", "a3"}},
      {{"user", "Look: <|image|> and <|audio|>"}},
  };
  for (std::optional<bool> thinking : {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    const ChatTemplate t = compiled(thinking);
    EXPECT_FALSE(t.flags & ChatTemplate::kAlternate);
    for (const auto& msgs : conversations)
      for (bool gen : {true, false}) {
        std::string prompt, err;
        ASSERT_TRUE(t.apply(msgs, gen, false, &prompt, &err)) << err;
        EXPECT_EQ(prompt, jinja2_prompt(msgs, gen, thinking))
            << msgs.size() << " messages, generation prompt " << gen << ", thinking "
            << (thinking ? (*thinking ? "on" : "off") : "unset");
      }
  }
}

// Contents given as parts: each image item is "\n\n<|image|>\n\n" and each audio item "<|audio|>" between the
// trimmed texts, wherever they stand, as jinja2 renders them.
TEST(Gemma4Chat, MediaPartsEqualJinja2) {
  const ChatTemplate t = compiled({});
  EXPECT_EQ(t.pieces[ChatTemplate::kImage], "\n\n<|image|>\n\n");
  EXPECT_EQ(t.pieces[ChatTemplate::kAudio], "<|audio|>");
  if (!have_jinja2()) GTEST_SKIP() << "SKIP: /usr/bin/python3 has no jinja2 (python3-jinja2)";
  using P = ContentPart;
  const P image{P::kImage, ""}, audio{P::kAudio, ""};
  const std::vector<std::vector<ChatMessage>> conversations = {
      {{"user", "", {image, {P::kText, " What is this? "}}}},
      {{"system", "Be brief."}, {"user", "", {{P::kText, "Compare "}, image, {P::kText, " and"}, image}}},
      {{"user", "", {audio, {P::kText, "Transcribe.\n"}}}, {"assistant", "Done."}, {"user", "", {image}}},
  };
  for (const auto& msgs : conversations)
    for (bool gen : {true, false}) {
      std::string prompt, err;
      ASSERT_TRUE(t.apply(msgs, gen, false, &prompt, &err)) << err;
      EXPECT_EQ(prompt, jinja2_prompt(msgs, gen, {})) << msgs.size() << " messages, generation prompt " << gen;
    }
}

// Written from the template: BOS, the system turn, each message in <|turn>ROLE\n ... <turn|>\n with "assistant"
// named "model" and contents trimmed, then the model's turn opened; thinking adds <|think|>\n atop a system turn,
// which it opens even without a system message; consecutive assistant messages share one model turn.
TEST(Gemma4Chat, HandWrittenPrompts) {
  std::string prompt, err;
  ASSERT_TRUE(compiled({}).apply({{"system", " Be brief. "}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "2+2?"}},
                                 true, false, &prompt, &err));
  EXPECT_EQ(prompt,
            "<bos><|turn>system\nBe brief.<turn|>\n<|turn>user\nHi<turn|>\n<|turn>model\nHello<turn|>\n"
            "<|turn>user\n2+2?<turn|>\n<|turn>model\n");
  ASSERT_TRUE(compiled(true).apply({{"user", "Hi"}}, true, false, &prompt, &err));
  EXPECT_EQ(prompt, "<bos><|turn>system\n<|think|>\n<turn|>\n<|turn>user\nHi<turn|>\n<|turn>model\n");
  ASSERT_TRUE(compiled({}).apply({{"user", "q"}, {"assistant", "a1"}, {"assistant", "a2"}}, false, false, &prompt, &err));
  EXPECT_EQ(prompt, "<bos><|turn>user\nq<turn|>\n<|turn>model\na1a2<turn|>\n");
  // A tokenizer that adds BOS itself gets the prompt without the leading "<bos>".
  ASSERT_TRUE(compiled({}).apply({{"user", "Hi"}}, true, true, &prompt, &err));
  EXPECT_EQ(prompt, "<|turn>user\nHi<turn|>\n<|turn>model\n");
}

}  // namespace
}  // namespace saguaro
