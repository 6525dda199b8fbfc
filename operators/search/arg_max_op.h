// arg_max's and arg_min's shape resolution and search, shared by their CPU kernels
// (arg_max_op.cc) and their CUDA kernels (search_op.cu).
#pragma once

#include <cstdint>
#include <string>

#include "operators/common.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

constexpr char kArgMaxOp[] = "arg_max";
constexpr char kArgMinOp[] = "arg_min";

// X viewed as [outer, n, inner] with n the searched extent, and Out's dims.
struct ArgMaxShape {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
  DDim out;
};

// The view of X for `axis`, `keepdims` and `flatten`; InvalidArgumentError naming `op` for an
// axis outside X's rank.
ArgMaxShape AnalyzeArgMax(const std::string& op, const DDim& x, int64_t axis, bool keepdims,
                          bool flatten);

// Out's dtype for attribute `dtype` (int32, else int64).
DataType ArgMaxOutDataType(int dtype);

// A kernel's host side (arg_max or arg_min, ctx's op): the view of X, checked (no empty
// searched dim unless nothing is
// searched; int32 indices that fit), Out resized to its dims; `out_type` receives Out's dtype.
ArgMaxShape PrepareArgMax(const ExecutionContext& ctx, DataType* out_type);

// The index of the largest (kMax) or smallest of p[0], p[inner], ..., p[(n - 1) * inner]: the
// first one on ties, and the first NaN when there is one (`v != v` holds for NaN only). n >= 1.
template <bool kMax, typename T>
PL_HOSTDEVICE int64_t ArgExtremeAlong(const T* p, int64_t n, int64_t inner) {
  int64_t best = 0;
  if (p[0] != p[0]) return 0;
  for (int64_t j = 1; j < n; ++j) {
    const T v = p[j * inner];
    if (v != v) return j;
    if (kMax ? v > p[best * inner] : v < p[best * inner]) best = j;
  }
  return best;
}

template <typename T>
PL_HOSTDEVICE int64_t ArgMaxAlong(const T* p, int64_t n, int64_t inner) {
  return ArgExtremeAlong<true>(p, n, inner);
}

}  // namespace operators
}  // namespace paddle_like
