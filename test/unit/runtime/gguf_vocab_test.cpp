// GGUF reader: every metadata type, tensor infos, the tokenizer vocabulary, and malformed files (truncations,
// huge counts, wrong types) refused with a message instead of a crash or a huge allocation.
#include "GgufVocab.h"

#include <gtest/gtest.h>

#include <cstring>

#include "test_util.h"

namespace saguaro {
namespace {

// Little-endian GGUF bytes, written field by field.
struct GgufWriter {
  std::vector<uint8_t> b;
  template <class T>
  GgufWriter& raw(T v) {
    uint8_t x[sizeof(T)];
    std::memcpy(x, &v, sizeof(T));
    b.insert(b.end(), x, x + sizeof(T));
    return *this;
  }
  GgufWriter& str(const std::string& s) {
    raw<uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  GgufWriter& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    b.insert(b.end(), {'G', 'G', 'U', 'F'});
    return raw(version).raw(n_tensors).raw(n_kv);
  }
  GgufWriter& key(const std::string& k, GgufType t) { return str(k).raw(static_cast<uint32_t>(t)); }
  GgufWriter& array(const std::string& k, GgufType elem, uint64_t n) {
    return key(k, GgufType::kArray).raw(static_cast<uint32_t>(elem)).raw(n);
  }
};

// A small vocab-only file with "llama" metadata; `extra_kv` more pairs are appended by the caller.
GgufWriter vocab_file(uint64_t extra_kv = 0) {
  GgufWriter w;
  w.header(0, 8 + extra_kv);
  w.key("tokenizer.ggml.model", GgufType::kString).str("llama");
  w.array("tokenizer.ggml.tokens", GgufType::kString, 4).str("<unk>").str("<s>").str("</s>").str("\xE2\x96\x81hi");
  w.array("tokenizer.ggml.scores", GgufType::kF32, 4).raw(0.0f).raw(0.0f).raw(0.0f).raw(-1.5f);
  w.array("tokenizer.ggml.token_type", GgufType::kI32, 4).raw(int32_t(2)).raw(int32_t(3)).raw(int32_t(3)).raw(int32_t(1));
  w.key("tokenizer.ggml.bos_token_id", GgufType::kU32).raw(uint32_t(1));
  w.key("tokenizer.ggml.eos_token_id", GgufType::kU32).raw(uint32_t(2));
  w.key("tokenizer.ggml.add_bos_token", GgufType::kBool).raw(uint8_t(0));
  w.key("tokenizer.ggml.add_eos_token", GgufType::kBool).raw(uint8_t(1));
  return w;
}

bool parse(const GgufWriter& w, GgufFile* f, std::string* err) { return parse_gguf(w.b.data(), w.b.size(), f, err); }

TEST(GgufVocab, ReadsEveryMetadataTypeAndTensorInfos) {
  GgufWriter w;
  w.header(1, 14);
  w.key("u8", GgufType::kU8).raw(uint8_t(200));
  w.key("i8", GgufType::kI8).raw(int8_t(-5));
  w.key("u16", GgufType::kU16).raw(uint16_t(60000));
  w.key("i16", GgufType::kI16).raw(int16_t(-300));
  w.key("u32", GgufType::kU32).raw(uint32_t(4000000000u));
  w.key("i32", GgufType::kI32).raw(int32_t(-70000));
  w.key("f32", GgufType::kF32).raw(1.5f);
  w.key("bool", GgufType::kBool).raw(uint8_t(1));
  w.key("string", GgufType::kString).str("héllo");
  w.key("u64", GgufType::kU64).raw(uint64_t(1) << 40);
  w.key("i64", GgufType::kI64).raw(-(int64_t(1) << 40));
  w.key("f64", GgufType::kF64).raw(-2.25);
  w.array("nested", GgufType::kArray, 2).raw(uint32_t(GgufType::kI16)).raw(uint64_t(2)).raw(int16_t(-1)).raw(int16_t(7))
      .raw(uint32_t(GgufType::kString)).raw(uint64_t(1)).str("x");
  w.array("empty", GgufType::kU8, 0);
  w.str("token_embd.weight").raw(uint32_t(2)).raw(uint64_t(8)).raw(uint64_t(4)).raw(uint32_t(0)).raw(uint64_t(0));
  GgufFile f;
  std::string err;
  ASSERT_TRUE(parse(w, &f, &err)) << err;
  EXPECT_EQ(f.version, 3u);
  EXPECT_EQ(f.find("u8")->u, 200u);
  EXPECT_EQ(f.find("i8")->i, -5);
  EXPECT_EQ(f.find("u16")->u, 60000u);
  EXPECT_EQ(f.find("i16")->i, -300);
  EXPECT_EQ(f.find("u32")->u, 4000000000u);
  EXPECT_EQ(f.find("i32")->i, -70000);
  EXPECT_EQ(f.find("f32")->f, 1.5);
  EXPECT_EQ(f.find("bool")->u, 1u);
  EXPECT_EQ(f.find("string")->str, "héllo");
  EXPECT_EQ(f.find("u64")->u, uint64_t(1) << 40);
  EXPECT_EQ(f.find("i64")->i, -(int64_t(1) << 40));
  EXPECT_EQ(f.find("f64")->f, -2.25);
  const GgufValue* nested = f.find("nested");
  ASSERT_EQ(nested->arrays.size(), 2u);
  EXPECT_EQ(nested->arrays[0].numbers, (std::vector<double>{-1, 7}));
  EXPECT_EQ(nested->arrays[1].strings, (std::vector<std::string>{"x"}));
  EXPECT_EQ(f.find("empty")->size(), 0u);
  EXPECT_EQ(f.find("missing"), nullptr);
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].name, "token_embd.weight");
  EXPECT_EQ(f.tensors[0].dims, (std::vector<uint64_t>{8, 4}));
}

TEST(GgufVocab, ExtractsTheTokenizerVocabulary) {
  GgufFile f;
  GgufVocab v;
  std::string err;
  ASSERT_TRUE(parse(vocab_file(), &f, &err)) << err;
  ASSERT_TRUE(read_gguf_vocab(f, &v, &err)) << err;
  EXPECT_EQ(v.model, "llama");
  EXPECT_EQ(v.tokens, (std::vector<std::string>{"<unk>", "<s>", "</s>", "\xE2\x96\x81hi"}));
  EXPECT_EQ(v.scores, (std::vector<float>{0, 0, 0, -1.5f}));
  EXPECT_EQ(v.token_types, (std::vector<int32_t>{2, 3, 3, 1}));
  EXPECT_EQ(v.bos_id, 1);
  EXPECT_EQ(v.eos_id, 2);
  EXPECT_EQ(v.unk_id, -1);
  EXPECT_FALSE(v.add_bos);
  EXPECT_TRUE(v.add_eos);
  EXPECT_TRUE(v.add_space_prefix);
}

TEST(GgufVocab, RejectsBadVocabularyMetadata) {
  struct Case {
    const char* key;
    GgufType type;
    uint32_t value;
    const char* message;
  };
  for (const Case& c : {Case{"tokenizer.ggml.unknown_token_id", GgufType::kU32, 9, "outside the vocabulary"},
                        Case{"tokenizer.ggml.padding_token_id", GgufType::kF32, 0, "not an integer"},
                        Case{"tokenizer.ggml.add_space_prefix", GgufType::kU32, 1, "not a bool"}}) {
    GgufWriter w = vocab_file(1);
    w.key(c.key, c.type).raw(c.value);
    GgufFile f;
    GgufVocab v;
    std::string err;
    ASSERT_TRUE(parse(w, &f, &err)) << err;
    EXPECT_FALSE(read_gguf_vocab(f, &v, &err)) << c.key;
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
  }
  GgufWriter scores;
  scores.header(0, 3).key("tokenizer.ggml.model", GgufType::kString).str("llama");
  scores.array("tokenizer.ggml.tokens", GgufType::kString, 1).str("a");
  scores.array("tokenizer.ggml.scores", GgufType::kF32, 2).raw(0.0f).raw(0.0f);
  GgufFile f;
  GgufVocab v;
  std::string err;
  ASSERT_TRUE(parse(scores, &f, &err)) << err;
  EXPECT_FALSE(read_gguf_vocab(f, &v, &err));
  EXPECT_NE(err.find("tokenizer.ggml.scores must be 1 float32 values"), std::string::npos) << err;
  GgufWriter no_model;
  no_model.header(0, 0);
  ASSERT_TRUE(parse(no_model, &f, &err));
  EXPECT_FALSE(read_gguf_vocab(f, &v, &err));
}

TEST(GgufVocab, TruncationsAreErrorsAtEveryLength) {
  const GgufWriter w = vocab_file();
  for (size_t len = 0; len < w.b.size(); ++len) {
    GgufFile f;
    std::string err;
    EXPECT_FALSE(parse_gguf(w.b.data(), len, &f, &err)) << len;
    EXPECT_FALSE(err.empty());
    EXPECT_EQ(err.find('\n'), std::string::npos);
  }
}

TEST(GgufVocab, HugeCountsAndBadTypesAreRefusedBeforeAllocating) {
  GgufFile f;
  std::string err;
  GgufWriter many_kv;
  many_kv.header(0, uint64_t(1) << 60);
  EXPECT_FALSE(parse(many_kv, &f, &err));
  EXPECT_NE(err.find("exceeds the file size"), std::string::npos) << err;
  GgufWriter many_tensors;
  many_tensors.header(uint64_t(1) << 62, 0);
  EXPECT_FALSE(parse(many_tensors, &f, &err));
  GgufWriter long_string;
  long_string.header(0, 1).key("k", GgufType::kString).raw(uint64_t(1) << 50);
  EXPECT_FALSE(parse(long_string, &f, &err));
  EXPECT_NE(err.find("beyond the end of the file"), std::string::npos) << err;
  GgufWriter long_array;
  long_array.header(0, 1).array("tokenizer.ggml.tokens", GgufType::kString, uint64_t(1) << 40).str("a");
  EXPECT_FALSE(parse(long_array, &f, &err));
  EXPECT_NE(err.find("array of 1099511627776 elements beyond the end of the file"), std::string::npos) << err;
  GgufWriter bad_type;
  bad_type.header(0, 1).key("k", static_cast<GgufType>(13)).raw(uint32_t(0));
  EXPECT_FALSE(parse(bad_type, &f, &err));
  EXPECT_NE(err.find("unknown value type 13"), std::string::npos) << err;
  GgufWriter deep;
  deep.header(0, 1).array("deep", GgufType::kArray, 1);
  for (int i = 0; i < 8; ++i) deep.raw(uint32_t(GgufType::kArray)).raw(uint64_t(1));
  deep.raw(uint32_t(GgufType::kU8)).raw(uint64_t(0));
  EXPECT_FALSE(parse(deep, &f, &err));
  EXPECT_NE(err.find("nested deeper"), std::string::npos) << err;
  GgufWriter dims;
  dims.header(1, 0).str("t").raw(uint32_t(9));
  EXPECT_FALSE(parse(dims, &f, &err));
  GgufWriter v1;
  v1.header(0, 0, 1);
  EXPECT_FALSE(parse(v1, &f, &err));
  EXPECT_NE(err.find("unsupported GGUF version 1"), std::string::npos) << err;
  GgufWriter dup = vocab_file(1);
  dup.key("tokenizer.ggml.model", GgufType::kString).str("x");
  EXPECT_FALSE(parse(dup, &f, &err));
  EXPECT_NE(err.find("duplicate metadata key tokenizer.ggml.model"), std::string::npos) << err;
  const uint8_t not_gguf[] = {'G', 'G', 'M', 'L', 0, 0, 0, 0};
  EXPECT_FALSE(parse_gguf(not_gguf, sizeof not_gguf, &f, &err));
  EXPECT_NE(err.find("bad magic"), std::string::npos) << err;
}

TEST(GgufVocab, ReadsTheLlamaSpmVocabFile) {
  const std::string shared = test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "SKIP: " SAGUARO_SHARED_DIR "/data is absent (needs the ../shared test material)";
  const std::string bytes = test::read_file(shared + "/data/tokenizers/llama-spm/ggml-vocab-llama-spm.gguf");
  GgufFile f;
  GgufVocab v;
  std::string err;
  ASSERT_TRUE(parse_gguf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &f, &err)) << err;
  ASSERT_TRUE(read_gguf_vocab(f, &v, &err)) << err;
  EXPECT_EQ(f.tensors.size(), 0u);
  EXPECT_EQ(v.model, "llama");
  ASSERT_EQ(v.tokens.size(), 32000u);
  EXPECT_EQ(v.tokens[15043], "\xE2\x96\x81Hello");
  EXPECT_EQ(v.token_types[0], 2);   // <unk>
  EXPECT_EQ(v.token_types[13], 6);  // <0x0A>
  EXPECT_EQ(v.bos_id, 1);
  EXPECT_EQ(v.eos_id, 2);
  EXPECT_EQ(v.unk_id, 0);
}

}  // namespace
}  // namespace saguaro
