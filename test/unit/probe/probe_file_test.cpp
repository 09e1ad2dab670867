//===- probe_file_test.cpp - SGPROBE1 round trip and refusals ---------------------------===//
#include "probe/probe_file.h"
#include "probe/rng.h"
#include "test_util.h"

#include <gtest/gtest.h>

using namespace saguaro::probe;
using namespace saguaro::probe::testing;

namespace {

ProbeWeights random_probe(int d) {
  ProbeWeights p;
  p.shape = ProbeShape{d, 4, 6, 3};
  p.model = "tiny";
  p.tap_layer = 2;
  p.train_json = R"({"options":{"seed":5}})";
  ProbeRng rng(9);
  p.params.resize(probe_layout(p.shape, PoolKind::attention).total);
  for (float &v : p.params)
    v = static_cast<float>(rng.normal());
  return p;
}

std::string read_error(const std::string &path) {
  ProbeWeights p;
  std::string error;
  EXPECT_FALSE(read_probe_file(path, p, error));
  return error;
}

} // namespace

TEST(ProbeFile, RoundTrip) {
  ProbeWeights p = random_probe(8);
  std::string path = temp_path("probe.sgp"), error;
  ASSERT_TRUE(write_probe_file(path, p, error)) << error;
  ProbeWeights back;
  ASSERT_TRUE(read_probe_file(path, back, error)) << error;
  EXPECT_EQ(back.params, p.params);
  EXPECT_EQ(back.shape.d, 8);
  EXPECT_EQ(back.shape.h, 4);
  EXPECT_EQ(back.shape.m1, 6);
  EXPECT_EQ(back.shape.m2, 3);
  EXPECT_EQ(back.model, "tiny");
  EXPECT_EQ(back.tap_layer, 2);
  EXPECT_EQ(back.train_json, p.train_json);
}

TEST(ProbeFile, RefusesTruncationAndDamage) {
  std::string path = temp_path("damaged.sgp"), error;
  ASSERT_TRUE(write_probe_file(path, random_probe(8), error)) << error;
  std::string bytes = slurp(path);
  for (size_t cut : {size_t(5), size_t(30), bytes.size() - 20, bytes.size() - 1}) {
    spit(path, bytes.substr(0, cut));
    std::string message = read_error(path);
    EXPECT_NE(message.find("truncated"), std::string::npos) << "cut at " << cut << ": " << message;
  }
  std::string flipped = bytes;
  flipped[bytes.size() - 40] ^= 0x10; // inside the parameters
  spit(path, flipped);
  EXPECT_NE(read_error(path).find("checksum mismatch"), std::string::npos);
  std::string magic = bytes;
  magic[0] = 'X';
  spit(path, magic);
  EXPECT_NE(read_error(path).find("not a probe file"), std::string::npos);
}

TEST(ProbeFile, RefusesDataOfAnotherWidth) {
  ProbeWeights p = random_probe(256);
  ProbeData data;
  data.width = 128;
  data.tap_layer = 2;
  std::string error;
  EXPECT_FALSE(check_probe_fits_data(p, "p.sgp", data, "d.sgprb", error));
  EXPECT_EQ(error, "p.sgp: the probe expects width 256 but d.sgprb has width 128");
  data.width = 256;
  data.tap_layer = 5;
  EXPECT_FALSE(check_probe_fits_data(p, "p.sgp", data, "d.sgprb", error));
  EXPECT_NE(error.find("tap layer 2"), std::string::npos);
  data.tap_layer = 2;
  EXPECT_TRUE(check_probe_fits_data(p, "p.sgp", data, "d.sgprb", error));
}
