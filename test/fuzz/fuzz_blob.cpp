// libFuzzer target: the runtime's weights.sgw loader (header, flatbuffer manifest, offsets, checksums).
#include <cstdlib>
#include <cstring>

#include "saguaro/blob.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The loader requires 64-byte-aligned memory, as a mapped file or a linked-in array would be.
  void* copy = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  if (size) std::memcpy(copy, data, size);
  std::string err;
  auto blob = saguaro::Blob::from_memory(copy, size, "fuzz.sgw", &err);
  if (blob)
    for (const auto& t : blob->tensors()) (void)blob->find(t.name);
  blob.reset();
  std::free(copy);
  return 0;
}
