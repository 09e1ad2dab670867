// Request bodies against hand-written fixtures from each provider's documented schema, and reply parsing of canned
// success / error / missing-field replies.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/provider.h"
#include "saguaro/handoff/redact.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

using nlohmann::json;

struct BodyCase {
  ProviderKind provider;
  const char* model;
  const char* request_fixture;
  const char* body_fixture;
};

void PrintTo(const BodyCase& c, std::ostream* os) { *os << c.body_fixture; }

ChatRequest chat_request_from(const json& fixture, const std::string& model) {
  std::vector<Message> messages = messages_from_json(fixture["messages"]);
  PrivacyFiltered filtered = apply_privacy_switches(messages, fixture.value("send_images", false),
                                                    fixture.value("send_audio", false));
  return {model, filtered.messages, fixture["max_tokens"].get<long long>()};
}

// Test names from the fixture file, e.g. openai_body_text, so ctest lists say what each case checks.
std::string fixture_test_name(std::string file) {
  file = file.substr(0, file.find('.'));
  for (char& c : file) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return file;
}

class ProviderBodyTest : public ::testing::TestWithParam<BodyCase> {};

TEST_P(ProviderBodyTest, BodyMatchesDocumentedSchemaFixture) {
  const BodyCase& c = GetParam();
  std::vector<std::string> notes;
  json body = build_body(c.provider, chat_request_from(read_fixture(c.request_fixture), c.model), &notes);
  EXPECT_EQ(body, read_fixture(c.body_fixture)) << "built:\n" << body.dump(2);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ProviderBodyTest,
    ::testing::Values(BodyCase{ProviderKind::OpenAI, "gpt-4o-mini", "request_text.json", "openai_body_text.json"},
                      BodyCase{ProviderKind::Anthropic, "claude-3-5-haiku-latest", "request_text.json",
                               "anthropic_body_text.json"},
                      BodyCase{ProviderKind::Gemini, "gemini-2.0-flash", "request_text.json", "gemini_body_text.json"},
                      BodyCase{ProviderKind::OpenAI, "gpt-4o-mini", "request_media.json", "openai_body_media.json"},
                      BodyCase{ProviderKind::Anthropic, "claude-3-5-haiku-latest", "request_media.json",
                               "anthropic_body_media.json"},
                      BodyCase{ProviderKind::Gemini, "gemini-2.0-flash", "request_media.json",
                               "gemini_body_media.json"}),
    [](const ::testing::TestParamInfo<BodyCase>& info) { return fixture_test_name(info.param.body_fixture); });

TEST(ProviderRequest, AnthropicNotesTheAudioItCannotTake) {
  std::vector<std::string> notes;
  build_body(ProviderKind::Anthropic, chat_request_from(read_fixture("request_media.json"), "m"), &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("audio"), std::string::npos);
}

TEST(ProviderRequest, UrlsAndHeadersPerProvider) {
  ChatRequest chat{"some-model", {{"user", "hi", {}}}, 8};
  ProviderRequest openai = build_request(ProviderKind::OpenAI, "http://127.0.0.1:9/v1/", "k-123456", chat);
  EXPECT_EQ(openai.url, "http://127.0.0.1:9/v1/chat/completions");
  ASSERT_EQ(openai.headers.size(), 1u);
  EXPECT_EQ(openai.headers[0], (std::pair<std::string, std::string>{"Authorization", "Bearer k-123456"}));

  ProviderRequest anthropic = build_request(ProviderKind::Anthropic, "", "k-123456", chat);
  EXPECT_EQ(anthropic.url, "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(anthropic.headers, (std::vector<std::pair<std::string, std::string>>{
                                   {"x-api-key", "k-123456"}, {"anthropic-version", "2023-06-01"}}));

  ProviderRequest gemini = build_request(ProviderKind::Gemini, "", "k-123456", {"models/gemini-2.0-flash", chat.messages, 8});
  EXPECT_EQ(gemini.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent");
  EXPECT_EQ(gemini.headers, (std::vector<std::pair<std::string, std::string>>{{"x-goog-api-key", "k-123456"}}));
  EXPECT_EQ(build_request(ProviderKind::OpenAI, "", "k", chat).url, "https://api.openai.com/v1/chat/completions");
}

TEST(ProviderRequest, NoKeyMeansNoAuthHeader) {
  ChatRequest chat{"m", {{"user", "hi", {}}}, 8};
  EXPECT_TRUE(build_request(ProviderKind::OpenAI, "http://127.0.0.1:1/v1", "", chat).headers.empty());
}

TEST(ProviderRequest, RefusesModelNamesThatRewriteTheGeminiUrl) {
  for (const char* model : {"../admin", "gemini?alt=x", "a#b", "", "models/"}) {
    ChatRequest chat{model, {{"user", "hi", {}}}, 8};
    EXPECT_THROW(build_request(ProviderKind::Gemini, "", "k", chat), HandoffError) << model;
  }
}

TEST(ProviderRequest, RefusesNonHttpBaseUrl) {
  ChatRequest chat{"m", {{"user", "hi", {}}}, 8};
  EXPECT_THROW(build_request(ProviderKind::OpenAI, "file:///etc/passwd", "k", chat), HandoffError);
}

struct ReplyCase {
  ProviderKind provider;
  const char* fixture;
};

void PrintTo(const ReplyCase& c, std::ostream* os) { *os << c.fixture; }

class ProviderReplyTest : public ::testing::TestWithParam<ReplyCase> {};

TEST_P(ProviderReplyTest, ParsesCannedReply) {
  register_secret(test::kFakeKey);
  const json fixture = read_fixture(GetParam().fixture);
  const json& expect = fixture["expect"];
  ProviderReply reply = parse_reply(GetParam().provider, fixture["status"], fixture["body"].dump());
  EXPECT_EQ(reply.ok, expect["ok"].get<bool>()) << reply.error;
  if (expect.contains("text")) {
    EXPECT_EQ(reply.text, expect["text"].get<std::string>());
  }
  if (expect.contains("error_contains")) {
    EXPECT_NE(reply.error.find(expect["error_contains"].get<std::string>()), std::string::npos) << reply.error;
    EXPECT_EQ(reply.error.find('\n'), std::string::npos);
  }
  for (const char* field : {"prompt_tokens", "completion_tokens"}) {
    if (!expect.contains(field)) continue;
    const std::optional<long long>& got = std::string(field) == "prompt_tokens" ? reply.prompt_tokens : reply.completion_tokens;
    if (expect[field].is_null()) {
      EXPECT_FALSE(got.has_value()) << field;
    } else {
      ASSERT_TRUE(got.has_value()) << field;
      EXPECT_EQ(*got, expect[field].get<long long>()) << field;
    }
  }
  EXPECT_EQ(reply.error.find(test::kFakeKey), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ProviderReplyTest,
    ::testing::Values(ReplyCase{ProviderKind::OpenAI, "openai_reply_success.json"},
                      ReplyCase{ProviderKind::OpenAI, "openai_reply_error.json"},
                      ReplyCase{ProviderKind::OpenAI, "openai_reply_missing_content.json"},
                      ReplyCase{ProviderKind::OpenAI, "openai_reply_no_usage.json"},
                      ReplyCase{ProviderKind::Anthropic, "anthropic_reply_success.json"},
                      ReplyCase{ProviderKind::Anthropic, "anthropic_reply_error.json"},
                      ReplyCase{ProviderKind::Anthropic, "anthropic_reply_missing_content.json"},
                      ReplyCase{ProviderKind::Gemini, "gemini_reply_success.json"},
                      ReplyCase{ProviderKind::Gemini, "gemini_reply_error.json"},
                      ReplyCase{ProviderKind::Gemini, "gemini_reply_blocked.json"}),
    [](const ::testing::TestParamInfo<ReplyCase>& info) { return fixture_test_name(info.param.fixture); });

TEST(ProviderReply, MalformedJsonIsAClearError) {
  for (ProviderKind p : {ProviderKind::OpenAI, ProviderKind::Anthropic, ProviderKind::Gemini}) {
    ProviderReply reply = parse_reply(p, 200, "{\"choices\": [");
    EXPECT_FALSE(reply.ok);
    EXPECT_EQ(reply.error, "malformed JSON in the provider's reply");
    EXPECT_FALSE(parse_reply(p, 200, "[1,2]").ok);
    EXPECT_EQ(parse_reply(p, 502, "<html>bad gateway</html>").error, "HTTP 502");
  }
}

TEST(Messages, RejectsBadShapesWithTheIndex) {
  EXPECT_THROW(messages_from_json(json::object()), HandoffError);
  EXPECT_THROW(messages_from_json(json::array()), HandoffError);
  try {
    messages_from_json(json::parse(R"([{"role":"user","content":"a"},{"role":"developer","content":"b"}])"));
    FAIL();
  } catch (const HandoffError& e) {
    EXPECT_NE(std::string(e.what()).find("messages[1].role"), std::string::npos) << e.what();
  }
  EXPECT_THROW(messages_from_json(json::parse(R"([{"role":"user","content":5}])")), HandoffError);
  EXPECT_THROW(messages_from_json(json::parse(R"([{"role":"user"}])")), HandoffError);
  EXPECT_THROW(messages_from_json(json::parse(
                   R"([{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}])")),
               HandoffError);
}

// An image file of the caller's (the C API, `saguaro complete`) travels to the cloud as a data: URI of its bytes; the
// server refuses file paths, so a client cannot make it read the device's files.
TEST(Messages, ImageFilesBecomeDataAttachmentsExceptOnTheServer) {
  const std::string path = ::testing::TempDir() + "/saguaro_message_image.png";
  const std::string bytes = std::string("\x89PNG\r\n\x1a\n", 8) + "rest";
  { std::ofstream(path, std::ios::binary) << bytes; }
  const json parts = json::parse(R"([{"role":"user","content":[{"type":"text","text":"What is it?"},
      {"type":"image_url","image_url":{"url":")" + path + R"("}}]},
      {"role":"user","content":"And this?","images":[")" + path + R"("]}])");
  std::vector<Message> messages = messages_from_json(parts);
  ASSERT_EQ(messages[0].attachments.size(), 1u);
  EXPECT_EQ(messages[0].attachments[0].mime_type, "image/png");
  EXPECT_EQ(messages[0].attachments[0].base64_data, "iVBORw0KGgpyZXN0");
  EXPECT_EQ(messages[1].content, "And this?");
  ASSERT_EQ(messages[1].attachments.size(), 1u);  // Cactus' "images"
  try {
    messages_from_json(parts, LocalFiles::kRefuse);
    FAIL();
  } catch (const HandoffError& e) {
    EXPECT_EQ(std::string(e.what()), "messages[0].content[1]: file paths are not accepted here: send a data: URI");
  }
  std::remove(path.c_str());
  try {
    messages_from_json(parts);
    FAIL();
  } catch (const HandoffError& e) {
    EXPECT_EQ(std::string(e.what()), "messages[0].content[1]: cannot open " + path);
  }
}

// Cactus' "audio" files go to the cloud as audio/wav attachments of their bytes, as image files do; the server
// refuses them, and a file that is no WAV, or too large to be a clip the device takes, is named.
TEST(Messages, AudioFilesBecomeWavAttachmentsExceptOnTheServer) {
  const std::string path = ::testing::TempDir() + "/saguaro_message_audio.wav", text = path + ".txt";
  { std::ofstream(path, std::ios::binary) << std::string("RIFF\x04\0\0\0WAVE", 12); }
  { std::ofstream(text) << "not audio, not at all"; }
  const json parts = json::parse(R"([{"role":"user","content":"Hear this","audio":[")" + path + R"("]}])");
  std::vector<Message> messages = messages_from_json(parts);
  ASSERT_EQ(messages[0].attachments.size(), 1u);
  EXPECT_EQ(messages[0].attachments[0].kind, AttachmentKind::Audio);
  EXPECT_EQ(messages[0].attachments[0].mime_type, "audio/wav");
  EXPECT_EQ(messages[0].attachments[0].base64_data, "UklGRgQAAABXQVZF");
  auto refusal = [](const json& m, LocalFiles files) {
    try {
      messages_from_json(m, files);
    } catch (const HandoffError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refusal(json::parse(R"([{"role":"user","content":[{"type":"input_audio","input_audio":{"stream":1}}]}])"),
                    LocalFiles::kRead),
            "messages[0].content[0]: input_audio.stream names a clip only the C API that streamed it holds; send "
            "input_audio data here");
  EXPECT_EQ(refusal(parts, LocalFiles::kRefuse),
            "messages[0].audio[0]: file paths are not accepted here: send input_audio data");
  EXPECT_EQ(refusal(json::parse(R"([{"role":"user","content":"x","audio":[")" + text + R"("]}])"), LocalFiles::kRead),
            "messages[0].audio[0]: " + text + " is not a WAV file");
  EXPECT_EQ(refusal(json::parse(R"([{"role":"user","content":"x","audio":"a.wav"}])"), LocalFiles::kRead),
            "messages[0].audio must be an array of file paths");
  std::filesystem::resize_file(path, std::uintmax_t(65) << 20);  // sparse: a header claiming far more than a clip
  EXPECT_EQ(refusal(parts, LocalFiles::kRead),
            "messages[0].audio[0]: " + path + " is larger than the 64 MiB sent to a provider");
  std::remove(path.c_str());
  std::remove(text.c_str());
}

TEST(Messages, PrivacySwitchesDropMediaAndCountIt) {
  std::vector<Message> messages = messages_from_json(read_fixture("request_media.json")["messages"]);
  PrivacyFiltered none = apply_privacy_switches(messages, false, false);
  EXPECT_EQ(none.dropped_images, 1);
  EXPECT_EQ(none.dropped_audio, 1);
  EXPECT_TRUE(none.messages[0].attachments.empty());
  EXPECT_EQ(none.messages[0].content, "Describe this.");
  PrivacyFiltered images = apply_privacy_switches(messages, true, false);
  EXPECT_EQ(images.dropped_images, 0);
  EXPECT_EQ(images.dropped_audio, 1);
  ASSERT_EQ(images.messages[0].attachments.size(), 1u);
  EXPECT_EQ(images.messages[0].attachments[0].kind, AttachmentKind::Image);
}

}  // namespace
}  // namespace saguaro::handoff::test
