#include "paddle_like/datasets/digits_images.h"

#include <cmath>

#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

namespace {

constexpr int kDigitSide = 8;
constexpr int kMnistSide = 28;
constexpr double kMaxDigitPixel = 16;

void CheckDigits(const Dataset& digits) {
  PL_ENFORCE(digits.cols == kDigitSide * kDigitSide &&
                 static_cast<int64_t>(digits.labels.size()) == digits.rows &&
                 static_cast<int64_t>(digits.features.size()) == digits.rows * digits.cols,
             errors::InvalidArgument("digits: expected 64 pixels and a label per row, found %lld "
                                     "columns, %zu pixels and %zu labels for %lld rows",
                                     static_cast<long long>(digits.cols), digits.features.size(),
                                     digits.labels.size(), static_cast<long long>(digits.rows)));
}

}  // namespace

std::vector<float> DigitToMnist(const float* pixels) {
  constexpr int kSide = kMnistSide;
  std::vector<double> padded(kSide * kSide, 0.0);
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 20; ++j) {
      padded[(i + 4) * kSide + (j + 4)] = pixels[(2 * i + 1) / 5 * kDigitSide + (2 * j + 1) / 5];
    }
  }
  double mass = 0, cy = 0, cx = 0;
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const double v = padded[y * kSide + x];
      mass += v;
      cy += v * y;
      cx += v * x;
    }
  }
  int dy = 0, dx = 0;
  if (mass > 0) {
    dy = static_cast<int>(std::nearbyint(13.5 - cy / mass));
    dx = static_cast<int>(std::nearbyint(13.5 - cx / mass));
  }
  std::vector<float> out(kSide * kSide);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const int sy = y - dy, sx = x - dx;
      const bool inside = sy >= 0 && sy < kSide && sx >= 0 && sx < kSide;
      const double v = inside ? padded[sy * kSide + sx] : 0.0;
      out[y * kSide + x] = static_cast<float>(v / kMaxDigitPixel * 2 - 1);
    }
  }
  return out;
}

std::vector<float> DigitsAsMnist(const Dataset& digits) {
  std::vector<float> images;
  images.reserve(static_cast<size_t>(digits.rows) * kMnistSide * kMnistSide);
  for (int64_t r = 0; r < digits.rows; ++r) {
    const std::vector<float> img = DigitToMnist(digits.Row(r));
    images.insert(images.end(), img.begin(), img.end());
  }
  return images;
}

InMemoryDataset DigitsImages(const Dataset& digits, DigitsImageSize size) {
  CheckDigits(digits);
  InMemoryDataset data;
  data.labels = digits.labels;
  if (size == DigitsImageSize::k28x28) {
    data.sample_shape = {1, kMnistSide, kMnistSide};
    data.features = DigitsAsMnist(digits);
  } else {
    data.sample_shape = {1, kDigitSide, kDigitSide};
    data.features.reserve(digits.features.size());
    for (float v : digits.features) {
      data.features.push_back(static_cast<float>(v / kMaxDigitPixel * 2 - 1));
    }
  }
  return data;
}

int64_t DigitsTrainRows(int64_t rows) { return rows * 4 / 5; }

InMemoryDataset DigitsSplit(const Dataset& digits, const std::string& split, DigitsImageSize size) {
  PL_ENFORCE(split == "train" || split == "test" || split == "all",
             errors::InvalidArgument("digits: split `%s` is not `train`, `test` or `all`", split));
  CheckDigits(digits);
  // Only the rows of the split are preprocessed.
  const int64_t train = DigitsTrainRows(digits.rows);
  const int64_t begin = split == "test" ? train : 0;
  const int64_t end = split == "train" ? train : digits.rows;
  Dataset rows;
  rows.rows = end - begin;
  rows.cols = digits.cols;
  rows.features.assign(digits.features.begin() + begin * digits.cols,
                       digits.features.begin() + end * digits.cols);
  rows.labels.assign(digits.labels.begin() + begin, digits.labels.begin() + end);
  return DigitsImages(rows, size);
}

}  // namespace datasets
}  // namespace paddle_like
