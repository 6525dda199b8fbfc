#include "paddle_like/datasets/in_memory_dataset.h"

#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

int64_t InMemoryDataset::sample_numel() const {
  int64_t n = 1;
  for (int64_t d : sample_shape) n *= d;
  return n;
}

void InMemoryDataset::Validate(const std::string& what) const {
  for (int64_t d : sample_shape) {
    PL_ENFORCE(d > 0, errors::InvalidArgument("dataset `%s`: sample shape %s has a dim that is "
                                              "not positive",
                                              what, ShapeString(sample_shape)));
  }
  const int64_t expected = size() * sample_numel();
  PL_ENFORCE(
      static_cast<int64_t>(features.size()) == expected,
      errors::InvalidArgument("dataset `%s`: %lld labels of samples shaped %s need %lld "
                              "feature values, found %zu",
                              what, static_cast<long long>(size()), ShapeString(sample_shape),
                              static_cast<long long>(expected), features.size()));
}

InMemoryDataset Slice(const InMemoryDataset& data, int64_t begin, int64_t end) {
  PL_ENFORCE(0 <= begin && begin <= end && end <= data.size(),
             errors::OutOfRange("dataset slice [%lld, %lld) is outside [0, %lld]",
                                static_cast<long long>(begin), static_cast<long long>(end),
                                static_cast<long long>(data.size())));
  const int64_t per = data.sample_numel();
  InMemoryDataset out;
  out.sample_shape = data.sample_shape;
  out.features.assign(data.features.begin() + begin * per, data.features.begin() + end * per);
  out.labels.assign(data.labels.begin() + begin, data.labels.begin() + end);
  return out;
}

}  // namespace datasets
}  // namespace paddle_like
