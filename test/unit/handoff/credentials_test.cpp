#include <gtest/gtest.h>

#include <sys/stat.h>

#include "saguaro/handoff/credentials.h"
#include "saguaro/handoff/error.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(Credentials, EnvironmentOrder) {
  TempDir dir;
  auto env = fake_env({{"XDG_CONFIG_HOME", dir.path()}, {"SAGUARO_CLOUD_API_KEY", "generic-key"},
                       {"OPENAI_API_KEY", "openai-key"}});
  EXPECT_EQ(resolve_api_key(ProviderKind::OpenAI, env)->value, "generic-key");
  auto env2 = fake_env({{"XDG_CONFIG_HOME", dir.path()}, {"OPENAI_API_KEY", "openai-key"},
                        {"ANTHROPIC_API_KEY", "anthropic-key"}, {"GEMINI_API_KEY", "gemini-key"}});
  EXPECT_EQ(resolve_api_key(ProviderKind::OpenAI, env2)->source, "OPENAI_API_KEY");
  EXPECT_EQ(resolve_api_key(ProviderKind::Anthropic, env2)->value, "anthropic-key");
  EXPECT_EQ(resolve_api_key(ProviderKind::Gemini, env2)->value, "gemini-key");
  EXPECT_FALSE(resolve_api_key(ProviderKind::Gemini, fake_env({{"XDG_CONFIG_HOME", dir.path()}})));
}

TEST(Credentials, StoredFileIsPrivateEvenWithPermissiveUmask) {
  TempDir dir;
  auto env = fake_env({{"HOME", dir.path()}});
  const mode_t old_umask = ::umask(0);
  store_api_key("openai", kFakeKey, env);
  store_api_key("gemini", "AIza-other-key-5678", env);
  ::umask(old_umask);
  const std::string path = dir.path() + "/.config/saguaro/credentials.json";
  EXPECT_EQ(credentials_file_path(env), path);
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(dir.path() + "/.config/saguaro"), 0700u);
  EXPECT_EQ(resolve_api_key(ProviderKind::OpenAI, env)->value, kFakeKey);
  EXPECT_EQ(resolve_api_key(ProviderKind::Gemini, env)->value, "AIza-other-key-5678");
  EXPECT_EQ(resolve_api_key(ProviderKind::OpenAI, env)->source, path);
  EXPECT_FALSE(resolve_api_key(ProviderKind::Anthropic, env));
  // No temporary files left behind.
  EXPECT_EQ(system(("test $(ls -A " + dir.path() + "/.config/saguaro | wc -l) -eq 1").c_str()), 0);
}

TEST(Credentials, LooseFileIsRefusedWithItsPathAndNoKey) {
  TempDir dir;
  auto env = fake_env({{"XDG_CONFIG_HOME", dir.path()}});
  store_api_key("anthropic", kFakeKey, env);
  const std::string path = credentials_file_path(env);
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0) resolve_api_key(ProviderKind::Anthropic, env);
      else store_api_key("anthropic", "new-key-value", env);
      FAIL() << "loose credentials file accepted";
    } catch (const HandoffError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("0644"), std::string::npos) << what;
      EXPECT_EQ(what.find(kFakeKey), std::string::npos);
    }
  }
}

TEST(Credentials, MalformedFileNamesTheFileButNotItsContent) {
  TempDir dir;
  auto env = fake_env({{"XDG_CONFIG_HOME", dir.path()}});
  ::mkdir((dir.path() + "/saguaro").c_str(), 0700);
  const std::string path = credentials_file_path(env);
  test::write_text_file(path, std::string("{\"openai\": \"") + kFakeKey);
  ::chmod(path.c_str(), 0600);
  try {
    resolve_api_key(ProviderKind::OpenAI, env);
    FAIL();
  } catch (const HandoffError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find(kFakeKey), std::string::npos);
  }
}

TEST(Credentials, RejectsUnknownProviderAndEmptyKey) {
  TempDir dir;
  auto env = fake_env({{"XDG_CONFIG_HOME", dir.path()}});
  EXPECT_THROW(store_api_key("bard", "k", env), HandoffError);
  EXPECT_THROW(store_api_key("openai", "", env), HandoffError);
}

}  // namespace
}  // namespace saguaro::handoff::test
