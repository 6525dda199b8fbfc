// Reductions shared by the reduce ops (mean, reduce_sum, reduce_mean) and the gradients of
// broadcasting ops: output shapes from the `dim`, `keep_dim`, `reduce_all` attributes, and
// deterministic sums.
//
// The sums accumulate in double and add the elements of each output in a fixed order that
// depends only on the shapes, never on the number of threads, so two runs (on any machine)
// give bitwise equal results.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

using framework::DDim;

struct ReduceShape {
  std::vector<bool> reduced;  // Per dim of X: summed over or kept.
  DDim out;                   // Output dims.
};

// Dims of X reduced by the attributes `dim` (negative values count from the end;
// duplicates count once), `keep_dim` and `reduce_all` (an empty `dim` also reduces all).
// Reduced dims are removed, or kept as 1 with keep_dim; reducing every dim without
// keep_dim gives a 0-D output. A 0-D X accepts dim 0 or -1. Throws InvalidArgumentError
// naming the op and attribute `dim` for an out-of-range dim.
ReduceShape ComputeReduceShape(const std::string& op_type, const DDim& x,
                               const std::vector<int>& dim, bool keep_dim, bool reduce_all);

// The sum of x[0, n).
template <typename T>
double SumAll(const platform::CPUDeviceContext& ctx, const T* x, int64_t n);

// Sums x (row-major, of `dims`) over the dims flagged in `reduced`; out receives the kept
// dims in row-major order (prod of kept dims values; 0 sums for empty reductions).
template <typename T>
void SumOverDims(const platform::CPUDeviceContext& ctx, const T* x, const DDim& dims,
                 const std::vector<bool>& reduced, double* out);

// SumOverDims over complex values: out receives the real and the imaginary part of each sum
// in turn (two doubles per kept element; std::complex<T> is laid out as T[2]).
template <typename T>
void SumOverDims(const platform::CPUDeviceContext& ctx, const std::complex<T>* x, const DDim& dims,
                 const std::vector<bool>& reduced, double* out) {
  std::vector<int64_t> parts = dims.ToVector();
  parts.push_back(2);
  std::vector<bool> parts_reduced = reduced;
  parts_reduced.push_back(false);
  SumOverDims(ctx, reinterpret_cast<const T*>(x), DDim(parts), parts_reduced, out);
}

// Sums x (of `x_dims`) down to `target`, given aligned to x's rank (AlignInside; each dim
// equal to x's or 1): over the dims where target is 1. `out` receives target.numel() values,
// each rounded once from its double sum: the gradient of broadcasting `target` to `x_dims`.
// Equal element counts give a copy (none when out == x); otherwise `out` must not overlap x.
template <typename T>
void SumToShape(const platform::CPUDeviceContext& ctx, const T* x, const DDim& x_dims,
                const DDim& target, T* out);

// SumToShape over complex values: the real and imaginary parts summed apart, as above
// (std::complex<T> is laid out as T[2]).
template <typename T>
void SumToShape(const platform::CPUDeviceContext& ctx, const std::complex<T>* x, const DDim& x_dims,
                const DDim& target, std::complex<T>* out) {
  std::vector<int64_t> xd = x_dims.ToVector(), td = target.ToVector();
  xd.push_back(2);
  td.push_back(2);
  SumToShape(ctx, reinterpret_cast<const T*>(x), DDim(xd), DDim(td), reinterpret_cast<T*>(out));
}

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
