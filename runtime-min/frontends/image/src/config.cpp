// preprocessor_config.json / processor_config.json → ImageConfig, with the defaults of each supported HF
// processor (config.h).
#include "saguaro/image/config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "saguaro/image/error.h"
#include "file_bytes.h"

namespace saguaro::image {

namespace {

using nlohmann::json;

constexpr std::array<float, 3> kOpenAiClipMean = {0.48145466f, 0.4578275f, 0.40821073f};
constexpr std::array<float, 3> kOpenAiClipStd = {0.26862954f, 0.26130258f, 0.27577711f};
constexpr int kMaxSide = 16384;
constexpr int64_t kMaxPixels = int64_t{1} << 26;

/// Reads typed values out of the JSON object, naming the file and key in every error; `prefix`
/// ("image_processor.") says where the object sits inside the file.
class Reader {
 public:
  Reader(const json& root, const std::string& name, std::string prefix)
      : root_(root), name_(name), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ImageError(name_ + ": " + prefix_ + key + ": " + problem);
  }

  /// The value at `key`, or nullptr when it is absent or null (HF's "use the default").
  const json* find(const std::string& key) const {
    auto it = root_.find(key);
    return it == root_.end() || it->is_null() ? nullptr : &*it;
  }

  bool boolean(const std::string& key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
    return v->get<bool>();
  }

  double number(const json& v, const std::string& key) const {
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "expected a number, got " + v.dump());
    return v.get<double>();
  }

  int64_t integer(const json& v, const std::string& key, int64_t lo, int64_t hi) const {
    const double d = number(v, key);
    if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi))
      fail(key, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
    return static_cast<int64_t>(d);
  }

  int64_t integer(const std::string& key, int64_t fallback, int64_t lo, int64_t hi) const {
    const json* v = find(key);
    return v ? integer(*v, key, lo, hi) : fallback;
  }

  /// image_mean / image_std: three numbers, or one for all channels.
  std::array<float, 3> triple(const std::string& key, std::array<float, 3> fallback, bool positive) const {
    const json* v = find(key);
    if (!v) return fallback;
    std::array<float, 3> out{};
    if (v->is_number()) {
      out.fill(static_cast<float>(number(*v, key)));
    } else if (v->is_array() && v->size() == 3) {
      for (int c = 0; c < 3; ++c) out[c] = static_cast<float>(number((*v)[c], key));
    } else {
      fail(key, "expected a number or a list of 3 numbers, got " + v->dump());
    }
    for (float x : out)
      if (positive && !(x > 0)) fail(key, "every value must be above 0, got " + v->dump());
    return out;
  }

  /// size / crop_size as {height, width}; a bare integer means a square.
  Size height_width(const json& v, const std::string& key) const {
    if (v.is_number()) {
      const int s = static_cast<int>(integer(v, key, 1, kMaxSide));
      return Size{s, s};
    }
    if (!v.is_object() || !v.contains("height") || !v.contains("width"))
      fail(key, "expected {\"height\": H, \"width\": W}, got " + v.dump());
    return Size{static_cast<int>(integer(v["height"], key + ".height", 1, kMaxSide)),
                static_cast<int>(integer(v["width"], key + ".width", 1, kMaxSide))};
  }

 private:
  const json& root_;
  const std::string& name_;
  const std::string prefix_;
};

/// image_processor_type, or the older feature_extractor_type ("CLIPFeatureExtractor" is
/// CLIPImageProcessor), without a "Fast" or "Pil" suffix (the torchvision and PIL backends of one
/// processor; Saguaro resizes as PIL does for both, docs/image.md); SigLIP when both are absent.
std::string processor_type(const Reader& r) {
  std::string key = "image_processor_type";
  const json* v = r.find(key);
  if (!v) v = r.find(key = "feature_extractor_type");
  // A processor_config.json without an "image_processor" object names no image settings at all;
  // transformers then reads preprocessor_config.json. Defaulting to SigLIP would be a silent guess.
  if (!v && r.find("processor_class"))
    r.fail("image_processor_type", "absent, and no image_processor object: this file holds no image settings "
                                   "(a processor_config.json? give preprocessor_config.json)");
  if (!v) return "SiglipImageProcessor";
  if (!v->is_string()) r.fail(key, "expected a string, got " + v->dump());
  std::string type = v->get<std::string>();
  auto drop_suffix = [&type](const std::string& suffix, const std::string& replacement) {
    if (type.size() > suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0)
      type = type.substr(0, type.size() - suffix.size()) + replacement;
  };
  drop_suffix("Fast", "");
  drop_suffix("Pil", "");
  drop_suffix("FeatureExtractor", "ImageProcessor");
  if (type != "SiglipImageProcessor" && type != "Gemma3ImageProcessor" && type != "Qwen2VLImageProcessor" &&
      type != "CLIPImageProcessor" && type != "Gemma4ImageProcessor")
    r.fail(key, "'" + v->get<std::string>() +
                    "' is not supported (SiglipImageProcessor, Gemma3ImageProcessor, Qwen2VLImageProcessor, "
                    "CLIPImageProcessor, Gemma4ImageProcessor)");
  return type;
}

/// Settings HF defines per processor class, before the file overrides them.
ImageConfig processor_defaults(const std::string& type) {
  ImageConfig c;
  c.processor = type;
  if (type == "Gemma3ImageProcessor") {
    c.resample = Resample::Bilinear;
  } else if (type == "CLIPImageProcessor") {
    c.mode = ResizeMode::ShortestEdge;
    c.shortest_edge = 224;
    c.do_center_crop = true;
    c.norm.mean = kOpenAiClipMean;
    c.norm.std = kOpenAiClipStd;
  } else if (type == "Qwen2VLImageProcessor") {
    c.mode = ResizeMode::Smart;
    c.min_pixels = 56 * 56;
    c.max_pixels = 28 * 28 * 1280;
    c.patch_size = 14;
    c.merge_size = 2;
    c.temporal_patch_size = 2;
    c.norm.mean = kOpenAiClipMean;
    c.norm.std = kOpenAiClipStd;
  } else if (type == "Gemma4ImageProcessor") {
    // Gemma 4 keeps pixels in [0, 1]; its tower maps them to [-1, 1] itself.
    c.mode = ResizeMode::SoftTokens;
    c.patch_size = 16;
    c.norm.normalize = false;
    c.norm.mean = {0.0f, 0.0f, 0.0f};
    c.norm.std = {1.0f, 1.0f, 1.0f};
  }
  return c;
}

void read_size(const Reader& r, ImageConfig& c) {
  const json* size = r.find("size");
  if (c.mode == ResizeMode::SoftTokens) {
    // The budget replaces `size` (transformers ignores it for Gemma 4 too).
    c.max_soft_tokens = static_cast<int>(r.integer("max_soft_tokens", c.max_soft_tokens, 1, 1 << 20));
    c.pooling_kernel_size = static_cast<int>(r.integer("pooling_kernel_size", c.pooling_kernel_size, 1, 64));
    return;
  }
  if (c.mode == ResizeMode::Smart) {
    // Newer Qwen2-VL configs spell the pixel range as size {shortest_edge, longest_edge}.
    if (size && size->is_object() && size->contains("shortest_edge")) {
      c.min_pixels = r.integer((*size)["shortest_edge"], "size.shortest_edge", 1, kMaxPixels);
      if (size->contains("longest_edge"))
        c.max_pixels = r.integer((*size)["longest_edge"], "size.longest_edge", 1, kMaxPixels);
    }
    c.min_pixels = r.integer("min_pixels", c.min_pixels, 1, kMaxPixels);
    c.max_pixels = r.integer("max_pixels", c.max_pixels, 1, kMaxPixels);
    if (c.min_pixels > c.max_pixels) r.fail("min_pixels", "is above max_pixels");
    return;
  }
  // CLIP reads a bare integer size as the shortest edge (get_size_dict(default_to_square=False)).
  if (size && size->is_number() && c.processor == "CLIPImageProcessor") {
    c.mode = ResizeMode::ShortestEdge;
    c.shortest_edge = static_cast<int>(r.integer(*size, "size", 1, kMaxSide));
  } else if (size && size->is_object() && size->contains("shortest_edge")) {
    if (size->contains("longest_edge")) r.fail("size", "longest_edge is not supported with shortest_edge resizing");
    c.mode = ResizeMode::ShortestEdge;
    c.shortest_edge = static_cast<int>(r.integer((*size)["shortest_edge"], "size.shortest_edge", 1, kMaxSide));
  } else if (size) {
    c.mode = ResizeMode::Fixed;
    c.size = r.height_width(*size, "size");
  }
  c.do_center_crop = r.boolean("do_center_crop", c.do_center_crop);
  if (const json* crop = r.find("crop_size")) c.crop_size = r.height_width(*crop, "crop_size");
  if (c.do_center_crop && c.mode != ResizeMode::ShortestEdge)
    r.fail("do_center_crop", "is only supported after shortest_edge resizing");
}

void read_patches(const Reader& r, ImageConfig& c) {
  if (const json* p = r.find("patch_size"); p && p->is_object()) {
    const Size s = r.height_width(*p, "patch_size");
    if (s.height != s.width) r.fail("patch_size", "non-square patches are not supported");
    c.patch_size = s.height;
  } else {
    c.patch_size = static_cast<int>(r.integer("patch_size", c.patch_size, 1, 1024));
  }
  c.merge_size = static_cast<int>(r.integer("merge_size", c.merge_size, 1, 64));
  c.temporal_patch_size = static_cast<int>(r.integer("temporal_patch_size", c.temporal_patch_size, 1, 64));
  if (c.patch_size == 0 && (c.merge_size != 1 || c.temporal_patch_size != 1))
    r.fail("merge_size", "needs patch_size");
}

void read_pan_and_scan(const Reader& r, ImageConfig& c) {
  c.do_pan_and_scan = r.boolean("do_pan_and_scan", false);
  if (c.do_pan_and_scan && c.processor != "Gemma3ImageProcessor")
    r.fail("do_pan_and_scan", "is only supported for Gemma3ImageProcessor");
  PanAndScanConfig& p = c.pan_and_scan;
  p.min_crop_size = static_cast<int>(r.integer("pan_and_scan_min_crop_size", p.min_crop_size, 1, kMaxSide));
  p.max_num_crops = static_cast<int>(r.integer("pan_and_scan_max_num_crops", p.max_num_crops, 1, 64));
  if (const json* v = r.find("pan_and_scan_min_ratio_to_activate")) {
    p.min_ratio_to_activate = r.number(*v, "pan_and_scan_min_ratio_to_activate");
    if (p.min_ratio_to_activate < 1.0) r.fail("pan_and_scan_min_ratio_to_activate", "must be at least 1");
  }
}

}  // namespace

ImageConfig ImageConfig::from_json_text(const std::string& text, const std::string& name) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    throw ImageError(name + ": invalid JSON: " + e.what());
  }
  if (!root.is_object()) throw ImageError(name + ": expected a JSON object");
  // processor_config.json nests each sub-processor's settings; transformers reads this object.
  const auto nested = root.find("image_processor");
  const bool is_processor = nested != root.end() && nested->is_object();
  const Reader r(is_processor ? *nested : root, name, is_processor ? "image_processor." : "");
  ImageConfig c = processor_defaults(processor_type(r));

  c.do_resize = r.boolean("do_resize", true);
  read_size(r, c);
  if (const json* v = r.find("resample")) {
    const int64_t code = r.integer(*v, "resample", 0, 5);
    if (code != 2 && code != 3)
      r.fail("resample", std::to_string(code) + " is not supported (2 = bilinear, 3 = bicubic)");
    c.resample = static_cast<Resample>(code);
  }
  c.norm.rescale = r.boolean("do_rescale", true);
  if (const json* v = r.find("rescale_factor")) {
    c.norm.rescale_factor = r.number(*v, "rescale_factor");
    if (!(c.norm.rescale_factor > 0)) r.fail("rescale_factor", "must be above 0, got " + v->dump());
  }
  c.norm.normalize = r.boolean("do_normalize", c.norm.normalize);
  c.norm.mean = r.triple("image_mean", c.norm.mean, false);
  c.norm.std = r.triple("image_std", c.norm.std, true);
  read_patches(r, c);
  if (c.mode == ResizeMode::SoftTokens) {
    if (c.merge_size != 1 || c.temporal_patch_size != 1) r.fail("merge_size", "is not supported for Gemma 4");
    const std::string problem = soft_token_budget_problem(c.soft_token_budget());
    if (!problem.empty()) r.fail("max_soft_tokens", problem);
  }
  read_pan_and_scan(r, c);
  (void)r.boolean("do_convert_rgb", true);  // every image becomes RGB regardless (docs/image.md)
  for (const char* key : {"do_pad", "do_image_splitting"})
    if (r.boolean(key, false)) r.fail(key, "true is not supported");
  return c;
}

ImageConfig ImageConfig::from_preprocessor_json(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file_bytes(path, uint64_t{1} << 20);
  return from_json_text(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace saguaro::image
