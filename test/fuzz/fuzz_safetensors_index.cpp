// libFuzzer target: model.safetensors.index.json through the importer's shard reader, in a directory holding one
// valid shard (model-00001-of-00001.safetensors) that the index may name.
#include "compiler/import/HfImport.h"
#include "fuzz_util.h"

namespace {

/// A valid one-tensor safetensors file: 8-byte header length, JSON header, 8 bytes of F32 data.
std::string tiny_shard() {
  const std::string header = R"({"model.norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string file(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>(n >> (8 * i));
  return file + header + std::string(8, '\0');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    const std::string d = saguaro::fuzz::private_dir("index");
    const std::string shard = tiny_shard();
    saguaro::fuzz::write_file(d, "model-00001-of-00001.safetensors", shard.data(), shard.size());
    return d;
  }();
  saguaro::fuzz::write_file(dir, "model.safetensors.index.json", data, size);
  saguaro::ImportedModel model;
  llvm::consumeError(saguaro::readHfWeights(dir, model));
  return 0;
}
