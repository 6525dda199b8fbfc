// scikit-learn's 8x8 digits (sklearn_datasets.h) as image datasets for training and for the
// MNIST models: normalisation to [-1, 1], a fixed train/test split and an MNIST-like 28x28
// version. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paddle_like/datasets/in_memory_dataset.h"
#include "paddle_like/datasets/sklearn_datasets.h"

namespace paddle_like {
namespace datasets {

enum class DigitsImageSize {
  k8x8,    // The original pixels v (0..16) as v / 16 * 2 - 1, samples [1, 8, 8].
  k28x28,  // DigitToMnist of each digit, samples [1, 28, 28].
};

// One 8x8 digit (row-major values 0..16) as a 28x28 MNIST-like image in [-1, 1], the
// preprocessing under which the MNIST models of ../shared/models are evaluated:
//  1. nearest neighbour to 20x20 with src = floor((i + 0.5) * 8 / 20) = (2i + 1) / 5 (integers);
//  2. a zero border of 4 pixels gives 28x28 (the digit fills rows and columns 4..23);
//  3. shift by round(13.5 - c) in each axis, c the centre of mass weighted by the values v,
//     filling with zeros. The rounding is to nearest with ties to even (std::nearbyint in the
//     default rounding mode, as NumPy's round), and no shift for an empty image;
//  4. v / 16 * 2 - 1.
std::vector<float> DigitToMnist(const float* pixels);

// DigitToMnist of every row of `digits` (LoadDigits): [digits.rows, 28 * 28].
std::vector<float> DigitsAsMnist(const Dataset& digits);

// Every digit as an image dataset of the given size, in file order.
InMemoryDataset DigitsImages(const Dataset& digits, DigitsImageSize size);

// The rows of a digits file that the split "train" takes: the first rows * 4 / 5 (integer
// division), 1437 of scikit-learn's 1797. "test" takes the rest (360). The file is not
// shuffled first, so the split is the same everywhere; its per-class counts stay balanced
// because the file interleaves the classes.
int64_t DigitsTrainRows(int64_t rows);

// Split "train", "test" or "all" of `digits` as images; InvalidArgumentError for another name.
InMemoryDataset DigitsSplit(const Dataset& digits, const std::string& split, DigitsImageSize size);

}  // namespace datasets
}  // namespace paddle_like
