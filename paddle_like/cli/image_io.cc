#include "paddle_like/cli/image_io.h"

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE first.
#include <jpeglib.h>
// clang-format on
#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <fstream>
#include <memory>

#include "platform/enforce.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace cli {

namespace {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

Image ReadPng(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  PL_ENFORCE(png_image_begin_read_from_file(&png, path.c_str()) != 0,
             errors::InvalidArgument("image `%s`: not a readable PNG file (%s)", path,
                                     png.message));
  png.format = PNG_FORMAT_RGB;
  Image image;
  image.height = png.height;
  image.width = png.width;
  image.rgb.resize(static_cast<size_t>(PNG_IMAGE_SIZE(png)));
  const int ok = png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr);
  const std::string message = png.message;
  png_image_free(&png);
  PL_ENFORCE(ok != 0, errors::InvalidArgument("image `%s`: corrupt PNG data (%s)", path, message));
  return image;
}

// libjpeg reports errors through a callback that must not return: it jumps back here.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void OnJpegError(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

Image ReadJpeg(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  PL_ENFORCE(file != nullptr, errors::NotFound("image `%s`: cannot open it", path));
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = OnJpegError;
  Image image;
  // Only plain data lives between setjmp and a possible longjmp (no destructors skipped).
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    throw errors::InvalidArgument("image `%s`: corrupt JPEG data (%s)", path, err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file.get());
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  image.height = cinfo.output_height;
  image.width = cinfo.output_width;
  image.rgb.resize(static_cast<size_t>(image.height * image.width * 3));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = image.rgb.data() + static_cast<size_t>(cinfo.output_scanline) * image.width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return image;
}

}  // namespace

Image ReadImage(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  PL_ENFORCE(in.good(), errors::NotFound("image `%s`: cannot open it", path));
  unsigned char magic[8] = {0};
  in.read(reinterpret_cast<char*>(magic), sizeof(magic));
  const std::streamsize got = in.gcount();
  Image image;
  if (got >= 8 && png_sig_cmp(magic, 0, 8) == 0) {
    image = ReadPng(path);
  } else if (got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
    image = ReadJpeg(path);
  } else {
    throw errors::InvalidArgument("image `%s`: expected a PNG or JPEG file", path);
  }
  PL_ENFORCE(image.height > 0 && image.width > 0,
             errors::InvalidArgument("image `%s`: it has no pixels", path));
  return image;
}

void WritePng(const std::string& path, const Image& image) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  PL_ENFORCE(png_image_write_to_memory(&png, nullptr, &size, 0, image.rgb.data(), 0, nullptr) != 0,
             errors::InvalidArgument("cannot encode `%s` as PNG: %s", path, png.message));
  std::string bytes(size, '\0');
  const int ok = png_image_write_to_memory(&png, bytes.data(), &size, 0, image.rgb.data(), 0,
                                           nullptr);
  PL_ENFORCE(ok != 0, errors::InvalidArgument("cannot encode `%s` as PNG: %s", path, png.message));
  bytes.resize(size);
  platform::WriteFileAtomically(path, bytes);
}

Image Resize(const Image& image, int64_t height, int64_t width) {
  PL_ENFORCE(height > 0 && width > 0,
             errors::InvalidArgument("resize: expected a size > 0, received %lldx%lld",
                                     static_cast<long long>(height),
                                     static_cast<long long>(width)));
  if (height == image.height && width == image.width) return image;
  Image out;
  out.height = height;
  out.width = width;
  out.rgb.resize(static_cast<size_t>(height * width * 3));
  const double sy = static_cast<double>(image.height) / height;
  const double sx = static_cast<double>(image.width) / width;
  for (int64_t y = 0; y < height; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, static_cast<double>(image.height - 1));
    const int64_t y0 = static_cast<int64_t>(fy), y1 = std::min(y0 + 1, image.height - 1);
    const double wy = fy - y0;
    for (int64_t x = 0; x < width; ++x) {
      const double fx =
          std::clamp((x + 0.5) * sx - 0.5, 0.0, static_cast<double>(image.width - 1));
      const int64_t x0 = static_cast<int64_t>(fx), x1 = std::min(x0 + 1, image.width - 1);
      const double wx = fx - x0;
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int64_t yy, int64_t xx) {
          return static_cast<double>(image.rgb[(yy * image.width + xx) * 3 + c]);
        };
        const double v = (1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) +
                         wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1));
        out.rgb[(y * width + x) * 3 + c] = static_cast<uint8_t>(std::lround(v));
      }
    }
  }
  return out;
}

framework::DenseTensor ImageToTensor(const Image& image, const std::array<float, 3>& mean,
                                     const std::array<float, 3>& std) {
  for (float s : std) {
    PL_ENFORCE(s != 0.0f, errors::InvalidArgument("--std: expected values other than 0"));
  }
  framework::DenseTensor t(framework::DDim{1, 3, image.height, image.width},
                           platform::DataType::FLOAT32);
  float* out = t.mutable_data<float>(platform::CPUPlace());
  const int64_t plane = image.height * image.width;
  for (int64_t i = 0; i < plane; ++i) {
    for (int c = 0; c < 3; ++c) {
      out[c * plane + i] = (image.rgb[i * 3 + c] / 255.0f - mean[c]) / std[c];
    }
  }
  return t;
}

void DrawBox(Image* image, double x1, double y1, double x2, double y2,
             const std::array<uint8_t, 3>& color, int thickness) {
  auto clamp_x = [&](double v) {
    return std::clamp<int64_t>(std::llround(v), 0, image->width - 1);
  };
  auto clamp_y = [&](double v) {
    return std::clamp<int64_t>(std::llround(v), 0, image->height - 1);
  };
  const int64_t left = clamp_x(std::min(x1, x2)), right = clamp_x(std::max(x1, x2));
  const int64_t top = clamp_y(std::min(y1, y2)), bottom = clamp_y(std::max(y1, y2));
  auto paint = [&](int64_t y, int64_t x) {
    std::memcpy(&image->rgb[(y * image->width + x) * 3], color.data(), 3);
  };
  for (int t = 0; t < thickness; ++t) {
    for (int64_t x = left; x <= right; ++x) {
      paint(std::min(top + t, bottom), x);
      paint(std::max(bottom - t, top), x);
    }
    for (int64_t y = top; y <= bottom; ++y) {
      paint(y, std::min(left + t, right));
      paint(y, std::max(right - t, left));
    }
  }
}

}  // namespace cli
}  // namespace paddle_like
