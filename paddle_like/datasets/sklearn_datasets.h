// Readers for two datasets that scikit-learn bundles (sklearn/datasets/data/, fetched by
// scripts/fetch_datasets.sh): the 8x8 handwritten digits and the Boston house prices.
//
// Both return every row of the file in file order. Malformed input raises
// InvalidArgumentError naming the file and the 1-based line; a missing file raises
// NotFoundError.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paddle_like {
namespace datasets {

// A table of examples with either class labels or regression targets (one per row).
struct Dataset {
  std::vector<float> features;             // Row-major [rows, cols].
  std::vector<int64_t> labels;             // Classification datasets; empty otherwise.
  std::vector<float> targets;              // Regression datasets; empty otherwise.
  std::vector<std::string> feature_names;  // Where the file names its columns.
  int64_t rows = 0;
  int64_t cols = 0;

  const float* Row(int64_t i) const { return features.data() + i * cols; }
};

// `digits.csv.gz` (gzip or plain text): one line per image, 64 pixel values (0..16, row by
// row of the 8x8 image) then the digit 0..9. 1797 rows in scikit-learn's copy.
Dataset LoadDigits(const std::string& path);

// `boston_house_prices.csv`: a line "<rows>,<features>,...", a line of quoted column names,
// then <rows> lines of <features> values and the target (MEDV). 506 x 13 in scikit-learn's
// copy.
Dataset LoadBostonHousing(const std::string& path);

}  // namespace datasets
}  // namespace paddle_like
