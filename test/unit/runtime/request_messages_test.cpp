// The C API's reading of request messages: content parts, image references in every accepted form, Cactus'
// "images", and one clear error for each bad shape (remote URLs, non-image data: URIs, broken base64, audio).
#include <gtest/gtest.h>

#include "request_messages.h"
#include "saguaro/media_url.h"

namespace saguaro {
namespace {

using nlohmann::json;

RequestMessages parsed(const std::string& text, bool all_roles = true) {
  RequestMessages out;
  std::string err;
  EXPECT_TRUE(parse_request_messages(json::parse(text), all_roles, &out, &err)) << err;
  return out;
}

std::string refusal(const std::string& text) {
  RequestMessages out;
  std::string err;
  EXPECT_FALSE(parse_request_messages(json::parse(text), true, &out, &err)) << text;
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

TEST(RequestMessages, PartsKeepTheirOrderAndImagesTheirSource) {
  const RequestMessages r = parsed(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Compare"},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,TWFu"}},
                                 {"type": "image_url", "image_url": {"url": "/photos/b.jpg"}}]},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "And this?", "images": ["c.png"]}])");
  ASSERT_EQ(r.chat.size(), 4u);
  EXPECT_EQ(r.chat[0].content, "Be brief.");
  EXPECT_TRUE(r.chat[0].parts.empty());
  ASSERT_EQ(r.chat[1].parts.size(), 3u);
  EXPECT_EQ(r.chat[1].parts[0].text, "Compare");
  EXPECT_EQ(r.chat[1].parts[1].kind, ContentPart::kImage);
  EXPECT_EQ(r.chat[1].parts[2].kind, ContentPart::kImage);
  ASSERT_EQ(r.chat[3].parts.size(), 2u);  // Cactus' images stand before the content
  EXPECT_EQ(r.chat[3].parts[0].kind, ContentPart::kImage);
  EXPECT_EQ(r.chat[3].parts[1].text, "And this?");
  ASSERT_EQ(r.images.size(), 3u);
  EXPECT_EQ(std::string(r.images[0].bytes.begin(), r.images[0].bytes.end()), "Man");
  EXPECT_EQ(r.images[0].name, "messages[1].content[1]");
  EXPECT_EQ(r.images[1].path, "/photos/b.jpg");
  EXPECT_EQ(r.images[2].path, "c.png");
}

TEST(RequestMessages, WithoutATemplateOnlyUserMessagesCount) {
  const RequestMessages r = parsed(R"([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])", false);
  ASSERT_EQ(r.chat.size(), 1u);
  EXPECT_EQ(r.chat[0].content, "u");
}

TEST(RequestMessages, BadShapesAreNamed) {
  EXPECT_EQ(refusal(R"({"role": "user"})"), "messages_json: expected a JSON array");
  EXPECT_EQ(refusal(R"([{"content": "x"}])"), "messages_json: messages[0] needs a string \"role\"");
  EXPECT_EQ(refusal(R"([{"role": "user"}])"), "messages_json: messages[0] (user) needs a \"content\" string or array of parts");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}]}])"),
            "messages_json: messages[0].content[0]: remote URLs are not fetched (the device is offline by design)");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:text/plain;base64,TWFu"}}]}])"),
            "messages_json: messages[0].content[0]: a data: URI of type \"text/plain\" is not an image");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,**"}}]}])"),
            "messages_json: messages[0].content[0]: the data: URI's payload is not base64");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "image_url", "image_url": "a.png"}]}])"),
            "messages_json: messages[0].content[0]: an image_url part needs a string image_url.url");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "video"}]}])"),
            "messages_json: messages[0].content[0]: expected a part of type text, image_url or input_audio");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": "x", "images": "a.png"}])"),
            "messages_json: messages[0].images must be an array of file paths");
  EXPECT_EQ(refusal(R"([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}])"),
            "messages_json: messages[0].content[0]: the model has no audio tower to take it");
}

}  // namespace
}  // namespace saguaro
