// Blob round trip, determinism, and refusal of damaged files (each → one-line "FILE: problem", no crash).
#include "saguaro/blob.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "blob_writer.h"
#include "saguaro/blob_format.h"
#include "saguaro/xxh64.h"
#include "test_util.h"
#include "weights_generated.h"

namespace saguaro {
namespace {

namespace bf = blob_format;

class BlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::make_temp_dir();
    ASSERT_FALSE(dir_.empty());
    path_ = dir_ + "/weights.sgw";
    for (int i = 0; i < 100; ++i) a_.push_back(0.5f * i);
    for (int i = 0; i < 7; ++i) b_.push_back(static_cast<uint8_t>(i * 3));
    std::string err;
    ASSERT_TRUE(write_blob(path_, tensors(), meta(), &err)) << err;
    good_ = test::read_file(path_);
  }
  std::vector<BlobTensor> tensors() const {
    return {{"a", "weight", "row-major", DType::F32, {10, 10}, a_.data(), a_.size() * 4},
            {"b", "tokenizer", "row-major", DType::U8, {7}, b_.data(), b_.size()}};
  }
  static std::vector<std::pair<std::string, std::string>> meta() { return {{"model.name", "t"}, {"k", "v"}}; }
  // Opens the file after replacing its bytes; returns the error (empty when it loaded).
  std::string open_damaged(const std::string& bytes, WeightsLoad load) {
    test::write_file(path_, bytes);
    std::string err;
    auto b = Blob::open(path_, &err, load);
    return b ? std::string() : err;
  }
  // The good file with the manifest's 8-byte value `from` replaced by `to` and both checksums fixed, so only
  // the tensor checks can catch the lie.
  std::string relabel(uint64_t from, uint64_t to) { return relabel_all(from, to, 1); }
  // relabel() of a value the manifest holds `count` times (the mapped section's start is also its first tensor's
  // offset).
  std::string relabel_all(uint64_t from, uint64_t to, int count = 2) {
    std::string out = good_;
    uint64_t m_bytes;
    std::memcpy(&m_bytes, out.data() + bf::kOffManifestBytes, 8);
    int hits = 0;
    for (uint64_t i = 64; i + 8 <= 64 + m_bytes; i += 8)
      if (std::memcmp(out.data() + i, &from, 8) == 0) std::memcpy(&out[i], &to, 8), ++hits;
    EXPECT_EQ(hits, count);
    rehash(out);
    return out;
  }
  // Recomputes both checksums of an edited manifest.
  static void rehash(std::string& bytes) {
    uint64_t m_bytes;
    std::memcpy(&m_bytes, bytes.data() + bf::kOffManifestBytes, 8);
    const uint64_t mh = xxh64(bytes.data() + 64, m_bytes);
    std::memcpy(&bytes[bf::kOffManifestHash], &mh, 8);
    const uint64_t hh = xxh64(bytes.data(), bf::kHeaderHashedBytes);
    std::memcpy(&bytes[bf::kOffHeaderHash], &hh, 8);
  }
  // Both ways of loading refuse the bytes with one line naming the file and `fragment`.
  void expect_refused(const std::string& bytes, const std::string& fragment) {
    for (WeightsLoad load : {WeightsLoad::kRead, WeightsLoad::kMap}) {
      const std::string err = open_damaged(bytes, load);
      ASSERT_FALSE(err.empty()) << "damaged file was accepted";
      EXPECT_EQ(err.rfind(path_ + ": ", 0), 0u) << err;
      EXPECT_NE(err.find(fragment), std::string::npos) << err;
      EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    }
  }

  std::string dir_, path_, good_;
  std::vector<float> a_;
  std::vector<uint8_t> b_;
};

TEST_F(BlobTest, RoundTrip) {
  for (WeightsLoad load : {WeightsLoad::kRead, WeightsLoad::kMap}) {
    SCOPED_TRACE(load == WeightsLoad::kRead ? "read" : "mmap");
    std::string err;
    auto b = Blob::open(path_, &err, load);
    ASSERT_TRUE(b) << err;
    ASSERT_EQ(b->tensors().size(), 2u);
    const BlobEntry* a = b->find("a");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->kind, "weight");
    EXPECT_EQ(a->dtype, DType::F32);
    EXPECT_EQ(a->shape, (std::vector<int64_t>{10, 10}));
    EXPECT_EQ(std::memcmp(a->data, a_.data(), a_.size() * 4), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % 64, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->find("b")->data) % 64, 0u);
    EXPECT_EQ(std::memcmp(b->find("b")->data, b_.data(), b_.size()), 0);
    EXPECT_EQ(b->meta("model.name"), "t");
    EXPECT_EQ(b->meta("missing", "x"), "x");
    EXPECT_EQ(b->find("nope"), nullptr);
    EXPECT_EQ(b->size(), good_.size());
  }
}

// The weights read into memory are constants: writing to them faults instead of corrupting the model.
TEST_F(BlobTest, ReadWeightsAreReadOnly) {
  GTEST_FLAG_SET(death_test_style, "fast");  // forked after SetUp: the parent removes the temp dir
  std::string err;
  auto b = Blob::open(path_, &err, WeightsLoad::kRead);
  ASSERT_TRUE(b) << err;
  volatile unsigned char* p = static_cast<volatile unsigned char*>(const_cast<void*>(b->find("a")->data));
  EXPECT_DEATH(p[0] = 1, "");
}

TEST_F(BlobTest, ByteIdenticalForIdenticalInputs) {
  const std::string second = dir_ + "/again.sgw";
  std::string err;
  ASSERT_TRUE(write_blob(second, tensors(), meta(), &err)) << err;
  EXPECT_EQ(test::read_file(second), good_);
  EXPECT_TRUE(test::read_file(second + ".tmp").empty()) << "temporary file left behind";
}

TEST_F(BlobTest, FromMemory) {
  void* mem = std::aligned_alloc(64, bf::align_up(good_.size()));
  std::memcpy(mem, good_.data(), good_.size());
  std::string err;
  auto b = Blob::from_memory(mem, good_.size(), "firmware", &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(std::memcmp(b->find("a")->data, a_.data(), 400), 0);
  b.reset();
  EXPECT_FALSE(Blob::from_memory(static_cast<char*>(mem) + 8, good_.size() - 8, "firmware", &err));
  EXPECT_NE(err.find("aligned"), std::string::npos) << err;
  std::free(mem);
}

TEST_F(BlobTest, WriterRejectsBadInput) {
  std::string err;
  auto t = tensors();
  t[1].name = "a";
  EXPECT_FALSE(write_blob(dir_ + "/x.sgw", t, {}, &err));
  EXPECT_NE(err.find("duplicate"), std::string::npos) << err;
  t = tensors();
  t[0].shape = {3};
  EXPECT_FALSE(write_blob(dir_ + "/x.sgw", t, {}, &err));
}

TEST_F(BlobTest, MissingFile) {
  std::string err;
  EXPECT_FALSE(Blob::open(dir_ + "/none.sgw", &err));
  EXPECT_NE(err.find("none.sgw: cannot open"), std::string::npos) << err;
}

TEST_F(BlobTest, FlippedHeaderByte) {
  std::string bad = good_;
  bad[20] ^= 0x01;  // file_bytes
  expect_refused(bad, "header checksum");
  bad = good_;
  bad[0] = 'X';
  expect_refused(bad, "magic");
}

TEST_F(BlobTest, FlippedManifestByte) {
  std::string bad = good_;
  bad[64 + 40] ^= 0x10;
  expect_refused(bad, "manifest checksum");
}

TEST_F(BlobTest, FlippedTensorDataByte) {
  std::string bad = good_;
  bad[bad.size() - 1] ^= 0x01;  // last byte of tensor "b"
  expect_refused(bad, "tensor 'b': checksum mismatch");
}

TEST_F(BlobTest, EveryFlippedByteIsRefused) {
  for (size_t i = 0; i < good_.size(); ++i) {
    std::string bad = good_;
    bad[i] ^= 0x20;
    ASSERT_FALSE(open_damaged(bad, WeightsLoad::kRead).empty()) << "flip at byte " << i << " was accepted";
  }
}

TEST_F(BlobTest, Truncated) {
  expect_refused(good_.substr(0, good_.size() - 1), "truncated");
  expect_refused(good_.substr(0, 10), "truncated");
  expect_refused("", "truncated");
}

TEST_F(BlobTest, TrailingBytes) { expect_refused(good_ + "x", "trailing"); }

TEST_F(BlobTest, LyingOffsets) {
  // Tensor b (7 bytes) is stored last, so its offset is the file size - 7 rounded down to 64.
  const uint64_t real = (good_.size() - 7) / 64 * 64;
  expect_refused(relabel(real, real + 64), "out of bounds");
  expect_refused(relabel(real, real + 1), "not 64-byte aligned");
  expect_refused(relabel(real, 0), "out of bounds");
  expect_refused(relabel(real, UINT64_MAX - 63), "out of bounds");
}

// A blob with a mapped section: a resident weight and the tokenizer, then a 4 MiB table that only gathers read.
class MappedBlobTest : public BlobTest {
 protected:
  static constexpr int64_t kRows = 16384, kCols = 64;  // 256-byte rows
  void SetUp() override {
    BlobTest::SetUp();
    for (int64_t i = 0; i < kRows * kCols; ++i) table_.push_back(static_cast<float>(i % 1000) - 0.25f);
    std::vector<BlobTensor> t = tensors();
    t.push_back({"table", "weight", "row-major", DType::F32, {kRows, kCols}, table_.data(), table_.size() * 4, true});
    std::string err;
    ASSERT_TRUE(write_blob(path_, t, meta(), &err, &sizes_)) << err;
    mapped_ = test::read_file(path_);
  }
  // Where the mapped section starts: the table's offset, the only tensor in it.
  uint64_t section_start() const { return mapped_.size() - table_.size() * 4; }

  std::vector<float> table_;
  BlobSizes sizes_;
  std::string mapped_;
};

TEST_F(MappedBlobTest, TableIsMappedNotResident) {
  EXPECT_EQ(section_start() % bf::kMappedAlign, 0u);
  EXPECT_EQ(sizes_.file_bytes, mapped_.size());
  EXPECT_EQ(sizes_.mapped_bytes, table_.size() * 4);
  for (WeightsLoad load : {WeightsLoad::kRead, WeightsLoad::kMap}) {
    SCOPED_TRACE(load == WeightsLoad::kRead ? "read" : "mmap");
    std::string err;
    auto b = Blob::open(path_, &err, load);
    ASSERT_TRUE(b) << err;
    const BlobEntry* t = b->find("table");
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->mapped);
    EXPECT_FALSE(b->find("a")->mapped);
    EXPECT_FALSE(b->find("b")->mapped);
    EXPECT_EQ(b->mapped_bytes(), table_.size() * 4);
    EXPECT_EQ(std::memcmp(b->find("a")->data, a_.data(), a_.size() * 4), 0);
    // Verifying the table (its XXH64 is checked) did not bring it into this process.
    EXPECT_EQ(b->mapped_resident_bytes(), 0u);
    // Gathering a row makes its page resident, and a few around it that the page cache holds (the kernel maps up to
    // fault_around_bytes, 64 KiB by default, per fault); every row makes all of it resident.
    const float* rows = static_cast<const float*>(t->data);
    EXPECT_EQ(rows[9000 * kCols + 3], table_[9000 * kCols + 3]);
    EXPECT_GT(b->mapped_resident_bytes(), 0u);
    EXPECT_LE(b->mapped_resident_bytes(), 64u << 10);
    EXPECT_EQ(std::memcmp(rows, table_.data(), table_.size() * 4), 0);
    EXPECT_EQ(b->mapped_resident_bytes(), table_.size() * 4);
  }
}

TEST_F(MappedBlobTest, FromMemoryReadsTheSectionInPlace) {
  void* mem = std::aligned_alloc(64, bf::align_up(mapped_.size()));
  std::memcpy(mem, mapped_.data(), mapped_.size());
  std::string err;
  auto b = Blob::from_memory(mem, mapped_.size(), "firmware", &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->find("table")->data, static_cast<char*>(mem) + section_start());
  EXPECT_EQ(b->mapped_bytes(), table_.size() * 4);
  b.reset();
  std::free(mem);
}

TEST_F(MappedBlobTest, WithoutMappedTensorsTheManifestHasNoSectionOffset) {
  // mapped_offset is written only when a tensor is mapped: a blob without one has the bytes it had before the field
  // existed (the fuzz seeds included), and an older loader reads it all alike.
  const fb::Manifest* plain = fb::GetManifest(good_.data() + 64);
  EXPECT_FALSE(plain->mapped_offset().has_value());
  EXPECT_EQ(*fb::GetManifest(mapped_.data() + 64)->mapped_offset(), section_start());
  test::write_file(path_, good_);
  std::string err;
  auto b = Blob::open(path_, &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->mapped_bytes(), 0u);
  EXPECT_EQ(b->mapped_resident_bytes(), 0u);
}

TEST_F(MappedBlobTest, WriterKeepsMappedTensorsLast) {
  std::vector<BlobTensor> t = tensors();
  t[0].mapped = true;  // a mapped weight before a resident tokenizer
  std::string err;
  EXPECT_FALSE(write_blob(dir_ + "/x.sgw", t, meta(), &err));
  EXPECT_NE(err.find("'b' is not mapped but follows a mapped one"), std::string::npos) << err;
}

TEST_F(MappedBlobTest, DamagedTableIsRefused) {
  std::string bad = mapped_;
  bad[section_start() + 12345] ^= 0x04;
  expect_refused(bad, "tensor 'table': checksum mismatch");
  bad = mapped_;
  bad[section_start() - 1] = 1;  // the padding before the section
  expect_refused(bad, "non-zero padding at byte " + std::to_string(section_start() - 1));
}

TEST_F(MappedBlobTest, TruncatedSectionIsRefused) {
  expect_refused(mapped_.substr(0, mapped_.size() - 100), "truncated");
  expect_refused(mapped_.substr(0, section_start()), "truncated");
}

TEST_F(MappedBlobTest, BadSectionOffsetIsRefused) {
  good_ = mapped_;  // relabel_all() edits good_
  const uint64_t start = section_start();
  // The section's start is also the table's offset: both move, so that only the section's own checks can fail.
  expect_refused(relabel_all(start, start + 64), "mapped section offset " + std::to_string(start + 64));
  expect_refused(relabel_all(start, start + bf::kMappedAlign * 1000), "out of bounds");
  // The section's start alone moved into the table: the table would be half read and half mapped.
  std::string out = mapped_;
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(fb::GetManifest(out.data() + 64));
  const uint8_t* field = table->GetAddressOf(fb::Manifest::VT_MAPPED_OFFSET);
  ASSERT_TRUE(field);
  const uint64_t inside = start + bf::kMappedAlign;
  std::memcpy(&out[static_cast<size_t>(reinterpret_cast<const char*>(field) - out.data())], &inside, 8);
  rehash(out);
  expect_refused(out, "tensor 'table': crosses the start of the mapped section");
}

}  // namespace
}  // namespace saguaro
