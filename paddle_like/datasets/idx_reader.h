// Readers for the idx format of MNIST and Fashion-MNIST (gzip-compressed or plain):
// a big-endian header, then the uint8 values in row-major order.
//
//   images: magic 0x00000803, count, rows, cols (uint32 each), count * rows * cols bytes
//   labels: magic 0x00000801, count, count bytes
//
// A missing file raises NotFoundError; a bad magic number, a truncated file or trailing bytes
// raise InvalidArgumentError naming the file and what is wrong. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paddle_like {
namespace datasets {

constexpr uint32_t kIdxImagesMagic = 0x00000803;  // uint8, 3 dims.
constexpr uint32_t kIdxLabelsMagic = 0x00000801;  // uint8, 1 dim.

struct IdxImages {
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> pixels;  // [count, rows, cols].
};

IdxImages ReadIdxImages(const std::string& path);
std::vector<uint8_t> ReadIdxLabels(const std::string& path);

}  // namespace datasets
}  // namespace paddle_like
