// The only translation unit that compiles stb_image (PNG and JPEG only), with its allocations
// routed through a per-thread budget so that no header can make it allocate without bound.
#include "stb_decoder.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "saguaro/image/decode.h"
#include "saguaro/image/error.h"

namespace {

struct DecoderHeap {
  size_t budget = 0;   // largest single allocation allowed during the current decode
  size_t largest = 0;  // largest request seen since the last reset
};
thread_local DecoderHeap heap;

void* budgeted_malloc(size_t size) {
  heap.largest = std::max(heap.largest, size);
  return size > heap.budget ? nullptr : std::malloc(size);
}

void* budgeted_realloc(void* p, size_t size) {
  heap.largest = std::max(heap.largest, size);
  return size > heap.budget ? nullptr : std::realloc(p, size);
}

}  // namespace

#define STBI_MALLOC(size) budgeted_malloc(size)
#define STBI_REALLOC(p, size) budgeted_realloc(p, size)
#define STBI_FREE(p) std::free(p)
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

namespace saguaro::image {

namespace {

struct StbFree {
  void operator()(void* p) const { stbi_image_free(p); }
};

[[noreturn]] void fail_decode(const std::string& name, const ImageHeader& header) {
  const char* reason = stbi_failure_reason();
  throw ImageError(name + ": cannot decode " + (header.format == ImageFormat::Png ? "PNG" : "JPEG") + ": " +
                   (reason ? reason : "unknown error"));
}

/// Sets the allocation budget for one decode and lifts it again afterwards.
struct BudgetScope {
  explicit BudgetScope(size_t budget) { heap.budget = budget; }
  ~BudgetScope() { heap.budget = 0; }
};

}  // namespace

Rgb8 decode_with_stb(const uint8_t* data, size_t size, const ImageHeader& header, const std::string& name) {
  // Worst single buffer: 16-bit RGBA PNG rows (8 bytes per pixel plus a filter byte per row) or
  // JPEG component planes padded to whole MCUs; compressed data is at most the file size.
  const size_t padded = (size_t{header.width} + 32) * (size_t{header.height} + 32);
  BudgetScope scope(padded * 8 + size * 2 + (size_t{1} << 20));
  const int len = static_cast<int>(std::min<size_t>(size, INT32_MAX));
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, len, &w, &h, &channels)) fail_decode(name, header);
  if (static_cast<uint32_t>(w) != header.width || static_cast<uint32_t>(h) != header.height)
    throw ImageError(name + ": decoder and container disagree on the image size");

  Rgb8 out;
  // Pillow opens 16-bit grey as 32-bit mode "I", whose conversion to RGB clips at 255 instead
  // of keeping the high byte as it does for every other 16-bit PNG (and as stb does).
  if (header.format == ImageFormat::Png && header.png_color_type == 0 && header.png_bit_depth == 16) {
    std::unique_ptr<uint16_t, StbFree> grey(stbi_load_16_from_memory(data, len, &w, &h, &channels, 1));
    if (!grey) fail_decode(name, header);
    out = Rgb8(w, h);
    for (size_t i = 0; i < size_t{header.width} * header.height; ++i)
      std::fill_n(&out.pixels[3 * i], 3, static_cast<uint8_t>(std::min<uint16_t>(grey.get()[i], 255)));
    return out;
  }
  std::unique_ptr<uint8_t, StbFree> rgb(stbi_load_from_memory(data, len, &w, &h, &channels, 3));
  if (!rgb) fail_decode(name, header);
  out = Rgb8(w, h);
  std::copy_n(rgb.get(), out.pixels.size(), out.pixels.data());
  return out;
}

size_t largest_decoder_allocation() { return heap.largest; }

void reset_decoder_allocation_stats() { heap.largest = 0; }

}  // namespace saguaro::image
