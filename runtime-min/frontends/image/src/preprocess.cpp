// preprocess(): the per-processor resize rules, then to_chw and patchify (preprocess.h).
#include "saguaro/image/preprocess.h"

#include "saguaro/image/error.h"
#include "saguaro/image/patchify.h"
#include "saguaro/image/resize.h"
#include "saguaro/image/soft_token_patches.h"

namespace saguaro::image {

namespace {

std::string dims(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

/// transformers' get_resize_output_image_size(default_to_square=False): the short side becomes
/// `edge`, the long side int(edge · long / short).
Size shortest_edge_size(const Rgb8& image, int edge) {
  const bool portrait = image.height >= image.width;
  const int shorter = portrait ? image.width : image.height, longer = portrait ? image.height : image.width;
  const int scaled = static_cast<int>(static_cast<int64_t>(edge) * longer / shorter);
  return portrait ? Size{scaled, edge} : Size{edge, scaled};
}

/// transformers' center_crop: offsets (size - crop) // 2, rounding towards the top left.
Rgb8 center_crop(const Rgb8& image, Size crop, const std::string& name) {
  if (crop.height > image.height || crop.width > image.width)
    throw ImageError(name + ": crop_size " + dims(crop.width, crop.height) + " is larger than the resized image " +
                     dims(image.width, image.height));
  return saguaro::image::crop(image, (image.width - crop.width) / 2, (image.height - crop.height) / 2, crop.width,
                              crop.height);
}

Rgb8 resize_one(const Rgb8& image, const ImageConfig& c, const std::string& name) {
  if (!c.do_resize) return image;
  switch (c.mode) {
    case ResizeMode::Fixed:
      return resize(image, c.size.width, c.size.height, c.resample);
    case ResizeMode::ShortestEdge: {
      const Size s = shortest_edge_size(image, c.shortest_edge);
      const Rgb8 resized = resize(image, s.width, s.height, c.resample);
      return c.do_center_crop ? center_crop(resized, c.crop_size, name) : resized;
    }
    case ResizeMode::Smart: {
      const Size s = smart_resize(image.height, image.width, c.patch_size * c.merge_size, c.min_pixels,
                                  c.max_pixels, name);
      return resize(image, s.width, s.height, c.resample);
    }
    case ResizeMode::SoftTokens: {
      const Size s = soft_token_size(image.height, image.width, c.soft_token_budget());
      return resize(image, s.width, s.height, c.resample);
    }
  }
  return image;
}

}  // namespace

std::vector<Rgb8> resized_images(const Rgb8& image, const ImageConfig& c, const std::string& name) {
  std::vector<Rgb8> out;
  out.push_back(resize_one(image, c, name));
  if (c.do_pan_and_scan)
    for (const CropRect& r : pan_and_scan_crops(image.height, image.width, c.pan_and_scan))
      out.push_back(resize_one(crop(image, r.x, r.y, r.width, r.height), c, name));
  for (const Rgb8& im : out)
    if (im.width != out[0].width || im.height != out[0].height)
      throw ImageError(name + ": crops resize to different sizes (" + dims(im.width, im.height) + " and " +
                       dims(out[0].width, out[0].height) + "); set do_resize");
  return out;
}

Tensor preprocess(const Rgb8& image, const ImageConfig& c, const std::string& name) {
  return pixel_values(resized_images(image, c, name), c, name);
}

Tensor pixel_values(const std::vector<Rgb8>& images, const ImageConfig& c, const std::string& name) {
  if (c.mode == ResizeMode::SoftTokens)  // one image: Gemma 4 has no crops
    return soft_token_patches(images[0], c.norm, c.soft_token_budget(), name).patches;
  const int h = images[0].height, w = images[0].width;
  const int64_t n = static_cast<int64_t>(images.size());
  const size_t values = static_cast<size_t>(3) * h * w;
  Tensor t;
  if (c.patch_size == 0) {
    t.shape = {n, 3, h, w};
    t.data.resize(n * values);
    for (int64_t i = 0; i < n; ++i) to_chw(images[i], c.norm, t.data.data() + i * values);
    return t;
  }
  const PatchLayout layout{c.patch_size, c.merge_size, c.temporal_patch_size};
  const int grid = c.patch_size * c.merge_size;
  if (h % grid != 0 || w % grid != 0)
    throw ImageError(name + ": image size " + dims(w, h) + " is not a multiple of patch_size x merge_size = " +
                     std::to_string(grid) + "; enable do_resize or change size");
  const int64_t per_image = static_cast<int64_t>(h / c.patch_size) * (w / c.patch_size);
  t.shape = {n * per_image, patch_dim(layout)};
  t.data.resize(static_cast<size_t>(n * per_image * patch_dim(layout)));
  std::vector<float> chw(values);
  for (int64_t i = 0; i < n; ++i) {
    to_chw(images[i], c.norm, chw.data());
    patchify(chw.data(), h, w, layout, t.data.data() + i * per_image * patch_dim(layout));
  }
  return t;
}

}  // namespace saguaro::image
