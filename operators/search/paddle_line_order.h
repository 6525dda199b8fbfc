// The order in which PaddlePaddle's CPU kernels of top_k / top_k_v2 and argsort leave a line's
// elements, ties included. Those kernels order (value, index) pairs with a comparator on the
// values alone (larger first with a NaN above every number, or smaller first with a NaN below
// every number), so which of equal values comes first is what the standard library's
// algorithm makes of the line: top_k takes a partial sort when k * 64 < n, else nth_element
// and a sort of the first k - 1 (none when `sorted` is off); argsort takes std::sort, or
// std::stable_sort when `stable`. The same calls on the same starting arrangement (indices in
// order) give the same permutation, so a model that ranks tied scores or integer counts gets
// PaddlePaddle's indices. (The CUDA kernels keep top_k_op.h's order: ties by index.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace paddle_like {
namespace operators {

template <typename T>
using ValueIndex = std::pair<T, int64_t>;

// Whether l comes before r: PaddlePaddle's comparator, on values only.
template <typename T>
struct PaddleLineOrder {
  bool larger_first;
  bool operator()(const ValueIndex<T>& l, const ValueIndex<T>& r) const {
    const bool l_nan = std::isnan(static_cast<double>(l.first));
    const bool r_nan = std::isnan(static_cast<double>(r.first));
    return larger_first ? (l_nan && !r_nan) || l.first > r.first
                        : (!l_nan && r_nan) || l.first < r.first;
  }
};

// `line` gets the n values read by `at(j)` paired with their indices j, in index order.
template <typename T, typename At>
void FillLine(int64_t n, At at, std::vector<ValueIndex<T>>* line) {
  line->resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) (*line)[static_cast<size_t>(j)] = {at(j), j};
}

// Puts the k first elements of `line` (as FillLine left it) where top_k has them.
template <typename T>
void OrderTopK(std::vector<ValueIndex<T>>* line, int64_t k, bool largest, bool sorted) {
  if (k <= 0) return;
  const PaddleLineOrder<T> before{largest};
  const auto first = line->begin();
  if (k * 64 < static_cast<int64_t>(line->size())) {
    std::partial_sort(first, first + k, line->end(), before);
    return;
  }
  std::nth_element(first, first + (k - 1), line->end(), before);
  if (sorted) std::sort(first, first + (k - 1), before);
}

// Orders `line` (as FillLine left it) as argsort does.
template <typename T>
void OrderArgsort(std::vector<ValueIndex<T>>* line, bool descending, bool stable) {
  const PaddleLineOrder<T> before{descending};
  if (stable) {
    std::stable_sort(line->begin(), line->end(), before);
  } else {
    std::sort(line->begin(), line->end(), before);
  }
}

}  // namespace operators
}  // namespace paddle_like
