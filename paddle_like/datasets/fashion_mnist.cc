#include "paddle_like/datasets/fashion_mnist.h"

#include <array>
#include <filesystem>
#include <vector>

#include "paddle_like/datasets/idx_reader.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

namespace {

constexpr int64_t kSide = 28;
constexpr int64_t kClasses = 10;

// `dir/name.gz` or `dir/name`, whichever exists (the compressed name first).
std::string FindFile(const std::string& dir, const std::string& name) {
  const std::filesystem::path base = std::filesystem::path(dir) / name;
  for (const std::string& candidate : {base.string() + ".gz", base.string()}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  throw errors::NotFound(
      "Fashion-MNIST: neither `%s.gz` nor `%s` exists (Debian's package `dataset-fashion-mnist` "
      "installs the files in %s)",
      base.string(), base.string(), kFashionMnistDebianDir);
}

}  // namespace

float NormalizeMnistPixel(int x) { return static_cast<float>(x / 255.0 * 2 - 1); }

InMemoryDataset LoadFashionMnist(const std::string& dir, const std::string& split) {
  PL_ENFORCE(
      split == "train" || split == "test",
      errors::InvalidArgument("Fashion-MNIST: split `%s` is neither `train` nor `test`", split));
  const std::string prefix = split == "train" ? "train" : "t10k";
  const std::string images_path = FindFile(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = FindFile(dir, prefix + "-labels-idx1-ubyte");
  const IdxImages images = ReadIdxImages(images_path);
  const std::vector<uint8_t> labels = ReadIdxLabels(labels_path);

  PL_ENFORCE(images.rows == kSide && images.cols == kSide,
             errors::InvalidArgument("Fashion-MNIST file `%s`: images are %lldx%lld, expected "
                                     "28x28",
                                     images_path, static_cast<long long>(images.rows),
                                     static_cast<long long>(images.cols)));
  PL_ENFORCE(static_cast<int64_t>(labels.size()) == images.count,
             errors::InvalidArgument("Fashion-MNIST: `%s` holds %lld images but `%s` holds %zu "
                                     "labels",
                                     images_path, static_cast<long long>(images.count), labels_path,
                                     labels.size()));

  std::array<float, 256> normalized;
  for (int x = 0; x < 256; ++x) normalized[x] = NormalizeMnistPixel(x);
  InMemoryDataset data;
  data.sample_shape = {1, kSide, kSide};
  data.features.resize(images.pixels.size());
  for (size_t i = 0; i < images.pixels.size(); ++i) {
    data.features[i] = normalized[images.pixels[i]];
  }
  data.labels.resize(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    PL_ENFORCE(labels[i] < kClasses,
               errors::InvalidArgument("Fashion-MNIST file `%s`: label %d of sample %zu is not a "
                                       "class 0..9",
                                       labels_path, static_cast<int>(labels[i]), i));
    data.labels[i] = labels[i];
  }
  return data;
}

}  // namespace datasets
}  // namespace paddle_like
