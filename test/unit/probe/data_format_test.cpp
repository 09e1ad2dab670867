//===- data_format_test.cpp - SGPRBDT1 round trip and every refusal ---------------------===//
#include "probe/byte_io.h"
#include "probe/probe_data.h"
#include "synthetic.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

using namespace saguaro::probe;
using namespace saguaro::probe::testing;

namespace {

ProbeData small_data() {
  SyntheticOptions o;
  o.width = 8;
  o.families = 2;
  o.heldout_families = 1;
  o.per_family = 5;
  ProbeData data = make_synthetic(o);
  data.samples[0].question = "What is 2 + 2? \xc3\xa9 \"quoted\"";
  return data;
}

/// Builds a data file by hand (independent of the writer) from its parts.
std::string raw_file(uint32_t width, uint32_t n_samples, const std::string &meta, const std::vector<float> &values,
                     const char *magic = "SGPRBDT1", const char *end = "SGPRBEND") {
  ByteWriter w;
  w.bytes(magic, 8);
  w.u32(1);
  w.u32(width);
  w.u32(3);
  w.u32(n_samples);
  w.u64(meta.size());
  w.bytes(meta.data(), meta.size());
  w.f32s(values.data(), values.size());
  w.bytes(end, 8);
  return w.buffer();
}

std::string one_sample_meta(const std::string &extra = "", int n_tokens = 1) {
  return R"({"model":"m","tap_layer":3,"width":2,"samples":[{"id":"s0","family":"f","difficulty":1,"heldout":false,)"
         R"("guessable":false,"wrong":true,"n_tokens":)" +
         std::to_string(n_tokens) + R"(,"question":"q","answer":"a")" + extra + "}]}";
}

std::string read_error(const std::string &path) {
  ProbeData data;
  std::string error;
  EXPECT_FALSE(read_probe_data(path, data, error));
  return error;
}

} // namespace

TEST(ProbeData, RoundTripIsExact) {
  ProbeData data = small_data();
  std::string path = temp_path("roundtrip.sgprb"), error;
  ASSERT_TRUE(write_probe_data(path, data, error)) << error;
  ProbeData back;
  ASSERT_TRUE(read_probe_data(path, back, error)) << error;
  EXPECT_EQ(back.model, data.model);
  EXPECT_EQ(back.width, data.width);
  EXPECT_EQ(back.tap_layer, data.tap_layer);
  ASSERT_EQ(back.samples.size(), data.samples.size());
  for (size_t i = 0; i < data.samples.size(); ++i) {
    const ProbeSample &a = data.samples[i], &b = back.samples[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.family, b.family);
    EXPECT_EQ(a.difficulty, b.difficulty);
    EXPECT_EQ(a.heldout, b.heldout);
    EXPECT_EQ(a.guessable, b.guessable);
    EXPECT_EQ(a.wrong, b.wrong);
    EXPECT_EQ(a.question, b.question);
    EXPECT_EQ(a.answer, b.answer);
    EXPECT_EQ(a.hidden, b.hidden);
    EXPECT_EQ(a.entropy, b.entropy);
  }
  // No temporary file is left beside the output.
  for (const auto &entry : std::filesystem::directory_iterator(temp_dir()))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(ProbeData, HandBuiltFileReads) {
  std::string path = temp_path("hand.sgprb");
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, 0.5f}));
  ProbeData data;
  std::string error;
  ASSERT_TRUE(read_probe_data(path, data, error)) << error;
  EXPECT_EQ(data.samples[0].hidden, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(data.samples[0].entropy, (std::vector<float>{0.5f}));
}

TEST(ProbeData, RefusesTruncation) {
  ProbeData data = small_data();
  std::string path = temp_path("truncated.sgprb"), error;
  ASSERT_TRUE(write_probe_data(path, data, error)) << error;
  std::string bytes = slurp(path);
  for (size_t cut : {size_t(3), size_t(20), bytes.size() / 2, bytes.size() - 9, bytes.size() - 1}) {
    spit(path, bytes.substr(0, cut));
    std::string message = read_error(path);
    EXPECT_NE(message.find(path + ": "), std::string::npos) << message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << "cut at " << cut << ": " << message;
  }
}

TEST(ProbeData, RefusesTrailingBytesAndBadEndMarker) {
  std::string path = temp_path("trailing.sgprb");
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, 0.5f}) + "x");
  EXPECT_NE(read_error(path).find("trailing bytes"), std::string::npos);
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, 0.5f}, "SGPRBDT1", "SGPRBENX"));
  EXPECT_NE(read_error(path).find("end marker"), std::string::npos);
}

TEST(ProbeData, RefusesWrongMagicAndVersion) {
  std::string path = temp_path("magic.sgprb");
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, 0.5f}, "SGPRBDT2"));
  EXPECT_NE(read_error(path).find("bad magic"), std::string::npos);
  std::string bytes = raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, 0.5f});
  bytes[8] = 2; // version
  spit(path, bytes);
  EXPECT_NE(read_error(path).find("unsupported data version 2"), std::string::npos);
}

TEST(ProbeData, RefusesNonFiniteValuesNamingTheSample) {
  std::string path = temp_path("nan.sgprb");
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, std::nanf(""), 0.5f}));
  std::string message = read_error(path);
  EXPECT_NE(message.find("sample 's0'"), std::string::npos) << message;
  EXPECT_NE(message.find("non-finite"), std::string::npos) << message;
  spit(path, raw_file(2, 1, one_sample_meta(), {1.0f, 2.0f, INFINITY}));
  EXPECT_NE(read_error(path).find("non-finite entropy"), std::string::npos);

  // The writer refuses too, and leaves no file behind.
  ProbeData data = small_data();
  data.samples[3].hidden[5] = std::nanf("");
  std::string out = temp_path("nan-written.sgprb"), error;
  EXPECT_FALSE(write_probe_data(out, data, error));
  EXPECT_NE(error.find("'" + data.samples[3].id + "'"), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ProbeData, RefusesEmptyData) {
  std::string path = temp_path("empty.sgprb");
  spit(path, raw_file(2, 0, R"({"model":"m","tap_layer":3,"width":2,"samples":[]})", {}));
  EXPECT_NE(read_error(path).find("no samples"), std::string::npos);
  ProbeData empty;
  empty.width = 4;
  std::string error;
  EXPECT_FALSE(write_probe_data(temp_path("empty-written.sgprb"), empty, error));
  EXPECT_NE(error.find("no samples"), std::string::npos);
}

TEST(ProbeData, RefusesBadMetadata) {
  std::string path = temp_path("meta.sgprb");
  std::vector<float> values = {1.0f, 2.0f, 0.5f};
  spit(path, raw_file(2, 1, "{not json", values));
  EXPECT_NE(read_error(path).find("not a JSON object"), std::string::npos);
  // A field of the wrong type.
  std::string meta = one_sample_meta();
  meta.replace(meta.find("\"wrong\":true"), 12, "\"wrong\":1");
  spit(path, raw_file(2, 1, meta, values));
  EXPECT_NE(read_error(path).find("bool field 'wrong'"), std::string::npos);
  // Zero tokens.
  spit(path, raw_file(2, 1, one_sample_meta("", 0), {}));
  EXPECT_NE(read_error(path).find("n_tokens = 0"), std::string::npos);
  // Header and metadata disagree on the width.
  spit(path, raw_file(3, 1, one_sample_meta(), {1.0f, 2.0f, 3.0f, 0.5f}));
  EXPECT_NE(read_error(path).find("'width'"), std::string::npos);
  // The sample count disagrees.
  spit(path, raw_file(2, 2, one_sample_meta(), values));
  EXPECT_NE(read_error(path).find("2 samples"), std::string::npos);
}

TEST(ProbeData, RefusesDuplicateIdsAndMissingFile) {
  ProbeData data = small_data();
  data.samples[1].id = data.samples[0].id;
  std::string error;
  EXPECT_FALSE(write_probe_data(temp_path("dup.sgprb"), data, error));
  EXPECT_NE(error.find("not unique"), std::string::npos);
  EXPECT_NE(read_error(temp_path("absent.sgprb")).find("cannot open"), std::string::npos);
}

TEST(ProbeData, RefusesFamilyBothHeldOutAndNot) {
  ProbeData data = small_data();
  data.samples[0].heldout = !data.samples[0].heldout;
  std::string error;
  EXPECT_FALSE(write_probe_data(temp_path("mixed.sgprb"), data, error));
  EXPECT_NE(error.find("held out on some samples but not on others"), std::string::npos) << error;
}
