// InMemoryDataset: labelled samples held in memory, the input of DataLoader.
//
// A plain value: copying copies the samples. Reading one from several threads is safe as long
// as nobody writes to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paddle_like {
namespace datasets {

struct InMemoryDataset {
  std::vector<float> features;        // Row-major [size(), sample_shape...].
  std::vector<int64_t> labels;        // [size()], class ids.
  std::vector<int64_t> sample_shape;  // The shape of one sample, e.g. {1, 28, 28}.

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  // Elements per sample: the product of sample_shape (1 for an empty shape).
  int64_t sample_numel() const;
  const float* Sample(int64_t i) const { return features.data() + i * sample_numel(); }

  // Throws InvalidArgumentError, naming `what`, when a dim of sample_shape is not positive or
  // when features does not hold size() * sample_numel() values.
  void Validate(const std::string& what) const;
};

// Samples [begin, end) of `data` as a new dataset; OutOfRangeError unless
// 0 <= begin <= end <= data.size().
InMemoryDataset Slice(const InMemoryDataset& data, int64_t begin, int64_t end);

}  // namespace datasets
}  // namespace paddle_like
