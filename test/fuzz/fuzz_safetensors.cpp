// libFuzzer target: a .safetensors file (header length, JSON header, data offsets) through the importer's reader;
// every tensor it accepts is read end to end, so an offset or size the checks let through is caught by ASan.
#include "compiler/import/Safetensors.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = saguaro::fuzz::write_input(data, size, "model.safetensors");
  saguaro::WeightStore store;
  if (llvm::Error e = saguaro::readSafetensors(path, store)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  for (const std::string& name : store.names()) {
    const saguaro::StoredTensor* t = store.find(name);
    if (!t) __builtin_trap();
    const auto* bytes = static_cast<const volatile uint8_t*>(t->bytesData());
    uint8_t x = 0;
    for (uint64_t i = 0; i < t->bytes(); ++i) x ^= bytes[i];
    (void)x;
  }
  return 0;
}
