// Template -> pieces -> prompt. The expected prompts are written by hand from each template's semantics (issue 3,
// acceptance 6), not produced by the renderer.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "ChatCompiler.h"
#include "saguaro/chat_template.h"
#include "fuzz_findings.h"
#include "test_util.h"

namespace saguaro {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(SAGUARO_CHAT_FIXTURES) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compiles `text`, parses the tensor as the runtime does, and returns the prompt for `msgs` (with generation prompt).
std::string prompt_for(const std::string& text, const ChatTemplateOptions& opts, const std::vector<ChatMessage>& msgs,
                       bool skip_bos = false) {
  std::vector<uint8_t> bytes;
  std::string err, prompt;
  EXPECT_TRUE(compile_chat_template(text, opts, &bytes, &err)) << err;
  ChatTemplate t;
  EXPECT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  EXPECT_TRUE(t.apply(msgs, true, skip_bos, &prompt, &err)) << err;
  return prompt;
}

const std::vector<ChatMessage> kTwoTurns = {{"system", "You are a helpful assistant."},
                                            {"user", "Hello!"},
                                            {"assistant", "Hi! How can I help?"},
                                            {"user", "What is 2+2?"}};

ChatTemplateOptions llama_opts() {
  ChatTemplateOptions o;
  o.bos_token = "<|begin_of_text|>";
  o.eos_token = "<|eot_id|>";
  return o;
}

TEST(ChatPieces, Qwen3TwoTurnsWithSystem) {
  ChatTemplateOptions o;
  o.eos_token = "<|im_end|>";
  EXPECT_EQ(prompt_for(fixture("qwen3.jinja"), o, kTwoTurns),
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\nHi! How can I help?<|im_end|>\n"
            "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatPieces, Qwen3EnableThinkingFalseAddsEmptyThinkBlock) {
  ChatTemplateOptions o;
  o.enable_thinking = false;
  EXPECT_EQ(prompt_for(fixture("qwen3.jinja"), o, {{"user", "Hi"}}),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  o.enable_thinking = true;
  EXPECT_EQ(prompt_for(fixture("qwen3.jinja"), o, {{"user", "Hi"}}), "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatPieces, Llama3TwoTurnsWithSystem) {
  EXPECT_EQ(prompt_for(fixture("llama3.jinja"), llama_opts(), kTwoTurns),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
            "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"
            "You are a helpful assistant.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHi! How can I help?<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatPieces, Llama3WithoutSystemKeepsDateHeaderAndTrimsContents) {
  ChatTemplateOptions o = llama_opts();
  o.date = "2025-01-05";
  EXPECT_EQ(prompt_for(fixture("llama3.jinja"), o, {{"user", "  Hi there \n"}}),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
            "Cutting Knowledge Date: December 2023\nToday Date: 05 Jan 2025\n\n<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  // The tokenizer adds BOS itself: the prompt text leaves it out.
  EXPECT_EQ(prompt_for(fixture("llama3.jinja"), o, {{"user", "x"}}, true).rfind("<|start_header_id|>system", 0), 0u);
}

TEST(ChatPieces, Gemma3TwoTurnsWithSystemFoldedIntoFirstUserTurn) {
  ChatTemplateOptions o;
  o.bos_token = "<bos>";
  o.eos_token = "<eos>";
  EXPECT_EQ(prompt_for(fixture("gemma3.jinja"), o, kTwoTurns),
            "<bos><start_of_turn>user\nYou are a helpful assistant.\n\nHello!<end_of_turn>\n"
            "<start_of_turn>model\nHi! How can I help?<end_of_turn>\n"
            "<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n"
            "<start_of_turn>model\n");
}

TEST(ChatPieces, Gemma3RequiresAlternatingRoles) {
  ChatTemplateOptions o;
  o.bos_token = "<bos>";
  std::vector<uint8_t> bytes;
  std::string err, prompt;
  ASSERT_TRUE(compile_chat_template(fixture("gemma3.jinja"), o, &bytes, &err)) << err;
  ChatTemplate t;
  ASSERT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  EXPECT_TRUE(t.flags & ChatTemplate::kAlternate);
  EXPECT_EQ(t.flags & (ChatTemplate::kTrimSystem | ChatTemplate::kTrimUser | ChatTemplate::kTrimAssistant),
            uint32_t(ChatTemplate::kTrimUser | ChatTemplate::kTrimAssistant));
  EXPECT_FALSE(t.apply({{"user", "a"}, {"user", "b"}}, true, false, &prompt, &err));
  EXPECT_NE(err.find("alternate"), std::string::npos);
  EXPECT_EQ(prompt_for(fixture("gemma3.jinja"), o, {{"user", " Hi "}}), "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
}

// An image item of a content list is the template's own placeholder; a template with no such item (Llama 3's takes
// string contents only) compiles without one, and the runtime refuses an image for it.
TEST(ChatPieces, MediaItemsAreTheTemplatesPlaceholders) {
  ChatTemplateOptions o;
  o.bos_token = "<bos>";
  const ContentPart image{ContentPart::kImage, ""};
  EXPECT_EQ(prompt_for(fixture("gemma3.jinja"), o, {{"user", "", {image, {ContentPart::kText, " Describe. "}}}}),
            "<bos><start_of_turn>user\n<start_of_image>Describe.<end_of_turn>\n<start_of_turn>model\n");
  std::vector<uint8_t> bytes;
  std::string err, prompt;
  ASSERT_TRUE(compile_chat_template(fixture("llama3.jinja"), llama_opts(), &bytes, &err)) << err;
  ChatTemplate t;
  ASSERT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &t, &err)) << err;
  EXPECT_EQ(t.pieces[ChatTemplate::kImage], "");
  EXPECT_EQ(t.pieces[ChatTemplate::kAudio], "");
  EXPECT_FALSE(t.apply({{"user", "", {image}}}, true, false, &prompt, &err));
  EXPECT_EQ(err, "chat template: the model's chat template has no image placeholder");
}

TEST(ChatPieces, PlainPromptTemplate) {  // llama2.c-style: no markup at all
  EXPECT_EQ(prompt_for("{% for m in messages %}{{ m.content }}\n{% endfor %}", {}, {{"user", "Once upon a time"}}),
            "Once upon a time\n");
}

TEST(ChatPieces, RuntimeRejectsConversationsTheTemplateCannotTake) {
  ChatTemplate t;
  std::string prompt, err;
  EXPECT_FALSE(t.apply({}, true, false, &prompt, &err));
  EXPECT_FALSE(t.apply({{"user", "a"}, {"system", "late"}}, true, false, &prompt, &err));
  EXPECT_NE(err.find("first message"), std::string::npos);
  EXPECT_FALSE(t.apply({{"tool", "x"}}, true, false, &prompt, &err));
  EXPECT_NE(err.find("this template does not render tool messages"), std::string::npos);
  EXPECT_FALSE(t.apply({{"critic", "x"}}, true, false, &prompt, &err));
  EXPECT_NE(err.find("unsupported role 'critic'"), std::string::npos);
}

TEST(ChatPieces, InexpressibleTemplatesAreCompileErrors) {
  std::vector<uint8_t> bytes;
  std::string err;
  // Content used twice.
  EXPECT_FALSE(compile_chat_template("{% for m in messages %}{{ m.content }}{{ m.content }}{% endfor %}", {}, &bytes, &err));
  EXPECT_NE(err.find("cannot be expressed as per-role pieces"), std::string::npos) << err;
  EXPECT_NE(err.find("--chat-template"), std::string::npos) << err;
  // The prefix depends on the message's position.
  EXPECT_FALSE(compile_chat_template("{% for m in messages %}[{{ loop.index }}]{{ m.content }}{% endfor %}", {}, &bytes,
                                     &err));
  EXPECT_NE(err.find("cannot be expressed"), std::string::npos) << err;
  // Contents are changed beyond whitespace stripping.
  EXPECT_FALSE(compile_chat_template("{% for m in messages %}{{ m.content|upper }}{% endfor %}", {}, &bytes, &err));
  EXPECT_NE(err.find("cannot be expressed"), std::string::npos) << err;
  // Unsupported constructs and raise_exception name the line.
  EXPECT_FALSE(compile_chat_template("{{ bos_token }}\n{{ messages|wordwrap }}", {}, &bytes, &err));
  EXPECT_EQ(err, "chat_template line 2: unsupported filter 'wordwrap'");
  EXPECT_FALSE(compile_chat_template("{{ raise_exception('no chat') }}", {}, &bytes, &err));
  EXPECT_NE(err.find("chat_template line 1: raise_exception: no chat"), std::string::npos) << err;
  EXPECT_FALSE(compile_chat_template("{% for m in messages %}", {}, &bytes, &err));
  EXPECT_EQ(err, "chat_template line 1: unexpected end of template, expected 'endfor'");
}

// fuzz_chat_template's finding: literal text that is not UTF-8 compiled into pieces the runtime then refused to load.
TEST(ChatPieces, TextThatIsNotUtf8IsACompileError) {
  std::vector<uint8_t> bytes = {1, 2, 3};
  std::string err;
  EXPECT_FALSE(compile_chat_template("{% for m in messages %}\xff{{ m.content }}{% endfor %}", {}, &bytes, &err));
  EXPECT_NE(err.find("chat_template: cannot be stored in a bundle (chat.template: piece"), std::string::npos) << err;
  EXPECT_NE(err.find("is not UTF-8"), std::string::npos) << err;
  EXPECT_EQ(bytes, (std::vector<uint8_t>{1, 2, 3}));  // nothing half-written
}

// Every input fuzz_chat_template found (test/fuzz/regressions/) is a clean compile error.
TEST(ChatPieces, FuzzFindingsAreCompileErrors) {
  const int seen = test::for_each_fuzz_finding("fuzz_chat_template", [](const std::string& path,
                                                                         const std::string& found) {
    std::vector<uint8_t> bytes;
    std::string err;
    EXPECT_FALSE(compile_chat_template(found, {}, &bytes, &err)) << path;
    EXPECT_NE(err.find("chat_template"), std::string::npos) << path << ": " << err;
  });
  EXPECT_GE(seen, 2);
}

// Every tokenizer_config.json fuzz_tokenizer_config found (test/fuzz/regressions/fuzz_tokenizer_config/) is read, and
// its template is a clean compile error.
TEST(ChatPieces, TokenizerConfigFuzzFindingsAreCompileErrors) {
  const int seen = test::for_each_fuzz_finding("fuzz_tokenizer_config", [](const std::string& path,
                                                                            const std::string&) {
    std::string text, err;
    ASSERT_TRUE(read_chat_template(path, &text, &err)) << path << ": " << err;
    std::vector<uint8_t> bytes;
    EXPECT_FALSE(compile_chat_template(text, {}, &bytes, &err)) << path;
    EXPECT_NE(err.find("chat_template line "), std::string::npos) << path << ": " << err;
  });
  EXPECT_GE(seen, 1);
}

TEST(ChatTensor, RoundTripAndCorruption) {
  ChatTemplate t;
  for (int k = 0; k < ChatTemplate::kNumPieces; ++k) t.pieces[k] = "p" + std::to_string(k);
  t.flags = ChatTemplate::kTrimUser | ChatTemplate::kAlternate | ChatTemplate::kTools;
  t.tools_format = ToolListFormat::kGemma4;
  t.args_format = ToolArgsFormat::kGemma4;
  t.tool_content_format = ToolContentFormat::kJson;
  const std::vector<uint8_t> bytes = t.serialize();
  ChatTemplate back;
  std::string err;
  ASSERT_TRUE(ChatTemplate::parse(bytes.data(), bytes.size(), &back, &err)) << err;
  EXPECT_EQ(back.flags, t.flags);
  EXPECT_EQ(back.tools_format, t.tools_format);
  EXPECT_EQ(back.args_format, t.args_format);
  EXPECT_EQ(back.tool_content_format, t.tool_content_format);
  for (int k = 0; k < ChatTemplate::kNumPieces; ++k) EXPECT_EQ(back.pieces[k], t.pieces[k]);

  auto broken = [&](std::vector<uint8_t> b, const char* what) {
    ChatTemplate x;
    std::string e;
    EXPECT_FALSE(ChatTemplate::parse(b.data(), b.size(), &x, &e)) << what;
    EXPECT_EQ(e.rfind("chat.template: ", 0), 0u) << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
  };
  for (size_t n = 0; n < bytes.size(); ++n) {  // every truncation is refused
    ChatTemplate x;
    EXPECT_FALSE(ChatTemplate::parse(bytes.data(), n, &x, &err)) << n;
  }
  std::vector<uint8_t> b = bytes;
  b[0] = 'X';
  broken(b, "magic");
  b = bytes;
  b[4] = 1;
  broken(b, "version");
  b = bytes;
  b[9] = 0x40;  // flag bit 14
  broken(b, "flags");
  b = bytes;
  b[12] = 4;  // ToolListFormat 4
  broken(b, "tool formats");
  b = bytes;
  b[14] = 3;  // ToolContentFormat 3
  broken(b, "tool formats");
  b = bytes;
  b[16] = 3;
  broken(b, "pieces");
  b = bytes;
  b.push_back(0);
  broken(b, "trailing");
  b = bytes;
  b[20] = 0xff;  // first piece length far past the end
  broken(b, "past the end");
  b = bytes;
  b[24] = 0xc3;  // "p0" -> invalid UTF-8
  broken(b, "UTF-8");
}

TEST(ChatConfig, ReadsStringListAndJinjaFile) {
  const std::string dir = test::make_temp_dir();
  const std::string cfg = dir + "/tokenizer_config.json";
  std::string text, err;
  test::write_file(cfg, R"({"chat_template": "{{ messages[0].content }}", "bos_token": {"content": "<s>"},
                           "eos_token": "</s>"})");
  ASSERT_TRUE(read_chat_template(cfg, &text, &err)) << err;
  EXPECT_EQ(text, "{{ messages[0].content }}");
  ChatTemplateOptions o;
  ASSERT_TRUE(read_chat_special_tokens(cfg, &o, &err)) << err;
  EXPECT_EQ(o.bos_token, "<s>");
  EXPECT_EQ(o.eos_token, "</s>");

  test::write_file(cfg, R"({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]})");
  ASSERT_TRUE(read_chat_template(cfg, &text, &err)) << err;
  EXPECT_EQ(text, "D");
  test::write_file(cfg, R"({"chat_template": [{"name": "tool_use", "template": "T"}]})");
  EXPECT_FALSE(read_chat_template(cfg, &text, &err));
  EXPECT_NE(err.find("no template named \"default\" (found: tool_use)"), std::string::npos) << err;
  test::write_file(cfg, R"({"chat_template": 3})");
  EXPECT_FALSE(read_chat_template(cfg, &text, &err));
  test::write_file(cfg, "{not json");
  EXPECT_FALSE(read_chat_template(cfg, &text, &err));
  EXPECT_NE(err.find("not a JSON object"), std::string::npos);

  test::write_file(cfg, R"({"bos_token": null})");
  EXPECT_FALSE(read_chat_template(cfg, &text, &err));
  EXPECT_NE(err.find("no \"chat_template\""), std::string::npos);
  test::write_file(dir + "/chat_template.jinja", "J");
  ASSERT_TRUE(read_chat_template(cfg, &text, &err)) << err;
  EXPECT_EQ(text, "J");
  EXPECT_FALSE(read_chat_template(dir + "/missing.json", &text, &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos);
}

TEST(ChatConfig, RealQwen3TokenizerConfig) {
  const std::string shared = test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: skipping the real Qwen3 tokenizer_config.json";
  const std::string cfg = shared + "/data/tokenizers/qwen3/tokenizer_config.json";
  std::string text, err;
  ASSERT_TRUE(read_chat_template(cfg, &text, &err)) << err;
  ChatTemplateOptions o;
  ASSERT_TRUE(read_chat_special_tokens(cfg, &o, &err)) << err;
  EXPECT_EQ(o.bos_token, "");
  EXPECT_EQ(o.eos_token, "<|im_end|>");
  EXPECT_EQ(prompt_for(text, o, kTwoTurns),
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\nHi! How can I help?<|im_end|>\n"
            "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
}

}  // namespace
}  // namespace saguaro
