// Images for `paddle_like infer`: PNG and JPEG files read through libpng and libjpeg (Debian's
// libpng-dev, libjpeg62-turbo-dev), resized and normalised into a model input, and written
// back as PNG with detection boxes drawn.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace cli {

// 8-bit RGB, row-major [height][width][3].
struct Image {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;
};

// Reads a PNG or JPEG file (by its first bytes, not its name); grey, palette and alpha
// images come out as RGB. InvalidArgumentError naming the file for anything else or a
// corrupt file; NotFoundError when it cannot be opened.
Image ReadImage(const std::string& path);

// Writes `image` as a PNG file (through a temporary file renamed into place).
void WritePng(const std::string& path, const Image& image);

// Bilinear resize (pixel centres aligned, as OpenCV's INTER_LINEAR).
Image Resize(const Image& image, int64_t height, int64_t width);

// The float32 [1, 3, H, W] input of `image`: (pixel / 255 - mean[c]) / std[c] per channel.
framework::DenseTensor ImageToTensor(const Image& image, const std::array<float, 3>& mean,
                                     const std::array<float, 3>& std);

// Draws the outline of box [x1, y1, x2, y2] (pixels, clipped to the image), `thickness`
// pixels wide, in `color`.
void DrawBox(Image* image, double x1, double y1, double x2, double y2,
             const std::array<uint8_t, 3>& color, int thickness = 2);

}  // namespace cli
}  // namespace paddle_like
