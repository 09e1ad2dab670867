// The reading of request messages (saguaro/chat_messages.h, the C API's and `saguaro render`'s): content parts,
// image references in every accepted form, Cactus' "images" and "audio", input_audio parts, and one clear error for
// each bad shape (remote URLs, non-image data: URIs, audio that is not WAV). Tool calls:
// test/unit/chat/chat_tools_test.cpp.
#include <gtest/gtest.h>

#include "saguaro/chat_messages.h"
#include "saguaro/media_url.h"

namespace saguaro {
namespace {

using nlohmann::json;

ChatRequest parsed(const std::string& text, bool user_only = false) {
  ChatRequest out;
  std::string err;
  EXPECT_TRUE(parse_chat_messages(text, user_only, &out, &err)) << err;
  return out;
}

std::string refusal(const std::string& text) {
  ChatRequest out;
  std::string err;
  EXPECT_FALSE(parse_chat_messages(text, false, &out, &err)) << text;
  return err;
}

TEST(MediaUrl, Base64RoundTripsEveryLength) {
  std::vector<uint8_t> bytes, back;
  for (int n = 0; n < 70; ++n) {
    ASSERT_TRUE(base64_decode(base64_encode(bytes.data(), bytes.size()), &back)) << n;
    EXPECT_EQ(back, bytes) << n;
    bytes.push_back(static_cast<uint8_t>(n * 37 + 11));
  }
  EXPECT_EQ(base64_encode(reinterpret_cast<const uint8_t*>("Man"), 3), "TWFu");  // RFC 4648's example
  EXPECT_EQ(base64_encode(reinterpret_cast<const uint8_t*>("Ma"), 2), "TWE=");
  EXPECT_FALSE(base64_decode("TW Fu", &back));
  EXPECT_FALSE(base64_decode("TWFuT", &back));  // a lone last character
  EXPECT_TRUE(base64_decode("TWE", &back));     // padding is optional
  EXPECT_EQ(std::string(back.begin(), back.end()), "Ma");
}

TEST(MediaUrl, FormsAndRefusals) {
  MediaUrl m;
  std::string err;
  ASSERT_TRUE(parse_media_url("data:image/png;base64,AAAA", "x", &m, &err));
  EXPECT_EQ(m.kind, MediaUrl::kData);
  EXPECT_EQ(m.mime, "image/png");
  EXPECT_EQ(m.payload, "AAAA");
  ASSERT_TRUE(parse_media_url("file:///tmp/a.png", "x", &m, &err));
  EXPECT_EQ(m.kind, MediaUrl::kFile);
  EXPECT_EQ(m.payload, "/tmp/a.png");
  ASSERT_TRUE(parse_media_url("photos/a b.jpg", "x", &m, &err));
  EXPECT_EQ(m.payload, "photos/a b.jpg");
  EXPECT_FALSE(parse_media_url("https://example.com/a.png", "messages[0]", &m, &err));
  EXPECT_EQ(err, "messages[0]: remote URLs are not fetched (the device is offline by design)");
  EXPECT_FALSE(parse_media_url("data:image/png,AAAA", "x", &m, &err));
  EXPECT_FALSE(parse_media_url("", "x", &m, &err));
}

TEST(ChatMessages, PartsKeepTheirOrderAndImagesTheirSource) {
  const ChatRequest r = parsed(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Compare"},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,TWFu"}},
                                 {"type": "image_url", "image_url": {"url": "/photos/b.jpg"}}]},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "And this?", "images": ["c.png"]}])");
  const std::vector<ChatMessage>& m = r.messages;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].content, "Be brief.");
  EXPECT_TRUE(m[0].parts.empty());
  ASSERT_EQ(m[1].parts.size(), 3u);
  EXPECT_EQ(m[1].parts[0].text, "Compare");
  EXPECT_EQ(m[1].parts[1].kind, ContentPart::kImage);
  EXPECT_EQ(m[1].parts[2].kind, ContentPart::kImage);
  ASSERT_EQ(m[3].parts.size(), 2u);  // Cactus' images stand before the content
  EXPECT_EQ(m[3].parts[0].kind, ContentPart::kImage);
  EXPECT_EQ(m[3].parts[1].text, "And this?");
  ASSERT_EQ(r.images.size(), 3u);
  EXPECT_EQ(r.images[0].at, "messages[1].content[1]");
  EXPECT_EQ(r.images[0].url.kind, MediaUrl::kData);
  EXPECT_EQ(r.images[0].url.payload, "TWFu");
  EXPECT_EQ(r.images[1].url.payload, "/photos/b.jpg");
  EXPECT_EQ(r.images[2].at, "messages[3].images[0]");
  EXPECT_EQ(r.images[2].url.payload, "c.png");
}

TEST(ChatMessages, WithoutATemplateOnlyUserMessagesCount) {
  const ChatRequest r = parsed(R"([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])", true);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].content, "u");
}

TEST(ChatMessages, BadShapesAreNamed) {
  EXPECT_EQ(refusal(R"({"role": "user"})"), "messages: expected a JSON array");
  EXPECT_EQ(refusal(R"([{"content": "x"}])"), "messages[0]: needs a string \"role\"");
  EXPECT_EQ(refusal(R"([{"role": "user"}])"), "messages[0] (user): needs a \"content\" string or array of parts");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}]}])"),
            "messages[0].content[0]: remote URLs are not fetched (the device is offline by design)");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:text/plain;base64,TWFu"}}]}])"),
            "messages[0].content[0]: a data: URI of type \"text/plain\" is not an image");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png"}}]}])"),
            "messages[0].content[0]: a data: URI must be data:<mime>;base64,<data>");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": "a.png"}]}])"),
            "messages[0].content[0]: an image_url part needs image_url.url");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "video"}]}])"),
            "messages[0].content[0]: expected a part of type text, image_url or input_audio");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": "x", "images": "a.png"}])"),
            "messages[0].images must be an array of file paths");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "mp3"}}]}])"),
            "messages[0].content[0]: input_audio.format \"mp3\" is not read here (only wav)");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "input_audio", "input_audio": "AAAA"}]}])"),
            "messages[0].content[0]: an input_audio part needs string input_audio.data and input_audio.format");
  for (const char* stream : {"0", "-2", "1.5", "\"3\"", "3, \"format\": \"wav\""})
    EXPECT_EQ(refusal(std::string(R"([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"stream": )") +
                      stream + "}}]}]"),
              "messages[0].content[0]: input_audio.stream must be a stream id (a positive integer) and the only key")
        << stream;
  EXPECT_EQ(refusal(R"([{"role": "user", "content": "x", "audio": "a.wav"}])"),
            "messages[0].audio must be an array of file paths");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": "x", "audio": [3]}])"), "messages[0].audio[0] must be a file path");
}

TEST(ChatMessages, AudioPartsAndCactusAudioInPromptOrder) {
  const ChatRequest r = parsed(R"([{"role": "user", "images": ["a.png"], "audio": ["b.wav"], "content": [
      {"type": "text", "text": "Hear"}, {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}]}])");
  ASSERT_EQ(r.audio.size(), 2u);
  EXPECT_EQ(r.audio[0].at, "messages[0].audio[0]");
  EXPECT_EQ(r.audio[0].url.kind, MediaUrl::kFile);
  EXPECT_EQ(r.audio[0].url.payload, "b.wav");
  EXPECT_EQ(r.audio[1].at, "messages[0].content[1]");
  EXPECT_EQ(r.audio[1].url.kind, MediaUrl::kData);
  EXPECT_EQ(r.audio[1].url.payload, "UklG");
  ASSERT_EQ(r.messages[0].parts.size(), 4u);  // the image, the Cactus clip, then the content's parts
  EXPECT_EQ(r.messages[0].parts[0].kind, ContentPart::kImage);
  EXPECT_EQ(r.messages[0].parts[1].kind, ContentPart::kAudio);
  EXPECT_EQ(r.messages[0].parts[2].kind, ContentPart::kText);
  EXPECT_EQ(r.messages[0].parts[3].kind, ContentPart::kAudio);
}

TEST(ChatMessages, AudioStreamPartKeepsItsId) {
  const ChatRequest r = parsed(R"([{"role": "user", "content": [
      {"type": "input_audio", "input_audio": {"stream": 7}}, {"type": "text", "text": "Hear"}]}])");
  ASSERT_EQ(r.audio.size(), 1u);
  EXPECT_EQ(r.audio[0].at, "messages[0].content[0]");
  EXPECT_EQ(r.audio[0].stream, 7);
  ASSERT_EQ(r.messages[0].parts.size(), 2u);
  EXPECT_EQ(r.messages[0].parts[0].kind, ContentPart::kAudio);
}

}  // namespace
}  // namespace saguaro
