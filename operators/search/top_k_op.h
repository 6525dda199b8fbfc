// top_k's host-side checks, shared by its CPU kernels (top_k_op.cc) and its CUDA kernels
// (search_op.cu), and the CUDA kernels' order of elements (the CPU kernels order equal values
// as PaddlePaddle's CPU kernel does: paddle_line_order.h).
#pragma once

#include <cstdint>

#include "operators/common.h"
#include "operators/math/hostdevice.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

// X as `rows` rows of `n` values, of which the first `k` are kept.
struct TopKShape {
  int64_t n = 0;
  int64_t k = 0;
  int64_t rows = 0;
};

// top_k's host side: k from input K (read on the host) or attribute `k`, checked against X;
// Out and Indices resized to X's dims with the last replaced by k, with X's LoD.
TopKShape PrepareTopK(const ExecutionContext& ctx);

// top_k_grad's checks of X, Indices (int64, Out@GRAD's dims) and Out@GRAD; k is the last dim
// of Indices.
TopKShape CheckTopKGradInputs(const ExecutionContext& ctx);

// InvalidArgumentError of top_k_grad unless 0 <= c < n.
void CheckTopKIndex(int64_t c, int64_t n);

// Whether row[a] comes before row[b] in the CUDA top_k's order: larger values first, a NaN
// above every number, and equal values (or two NaNs) by increasing index. A strict total order.
template <typename T>
PL_HOSTDEVICE bool TopKBefore(const T* row, int64_t a, int64_t b) {
  const T x = row[a], y = row[b];
  const bool x_nan = x != x, y_nan = y != y;
  if (x_nan != y_nan) return x_nan;
  if (!x_nan && x != y) return x > y;
  return a < b;
}

}  // namespace operators
}  // namespace paddle_like
