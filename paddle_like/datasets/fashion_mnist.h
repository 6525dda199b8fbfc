// Fashion-MNIST (Zalando's 28x28 grey-scale images of clothing, 10 classes) from its idx files,
// as Debian's package `dataset-fashion-mnist` installs them in /usr/share/datasets/fashion-mnist/:
//
//   train-images-idx3-ubyte.gz  train-labels-idx1-ubyte.gz   60000 images
//   t10k-images-idx3-ubyte.gz   t10k-labels-idx1-ubyte.gz    10000 images
//
// The files may also be uncompressed (the same names without `.gz`). Stateless and thread-safe.
#pragma once

#include <string>

#include "paddle_like/datasets/in_memory_dataset.h"

namespace paddle_like {
namespace datasets {

constexpr char kFashionMnistDebianDir[] = "/usr/share/datasets/fashion-mnist";

// Split "train" or "test" of the Fashion-MNIST files in `dir`: samples shaped [1, 28, 28] with
// pixels x (0..255) mapped to x / 255 * 2 - 1 in [-1, 1] (the preprocessing of the MNIST
// models), labels 0..9 in file order.
//
// Errors: InvalidArgumentError for another split name, for images that are not 28x28, for a
// label outside 0..9, for image and label files of different counts, and for a malformed idx
// file (see idx_reader.h); NotFoundError when `dir` holds neither name of a file.
InMemoryDataset LoadFashionMnist(const std::string& dir, const std::string& split);

// The value that a pixel 0..255 becomes: x / 255 * 2 - 1, computed in double.
float NormalizeMnistPixel(int x);

}  // namespace datasets
}  // namespace paddle_like
