// Discrete Fourier transforms along several axes of a dense array, for the fft_* ops.
//
// The transforms run in double precision whatever the tensor's type (Eigen's FFT module,
// kissfft: any length, mixed radices), so float32 results are correctly rounded to within a
// few ulps, as PaddlePaddle's (pocketfft) are.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace fft {

using Complex = std::complex<double>;

// The transforms' axes: `axes` of a `rank`-dimensional X, negative ones counted from the end;
// InvalidArgumentError naming the op when one is out of range or repeated, or none is given.
std::vector<int> CheckedAxes(const std::string& op, const std::vector<int64_t>& axes, int rank);

// The scale that `normalization` ("backward", "forward" or "ortho", as PaddlePaddle's
// attribute) applies to a transform of `forward` direction over `n` points in all:
// "backward" divides the inverse by n, "forward" the forward one, "ortho" both by sqrt(n).
double NormalizationScale(const std::string& op, const std::string& normalization, bool forward,
                          int64_t n);

// Transforms `data` (row-major, `dims`) in place along each axis of `axes`, one after the
// other: Out[k] = sum_t X[t] exp(-+2 pi i k t / n), the sign minus when `forward`; then
// multiplies every value by `scale`. Lines are split over dev's threads.
void TransformAxes(const platform::CPUDeviceContext& dev, Complex* data,
                   const framework::DDim& dims, const std::vector<int>& axes, bool forward,
                   double scale);

// The product of dims[axis] over `axes`.
int64_t PointsOf(const framework::DDim& dims, const std::vector<int>& axes);

// Copies `src` (dims `from`) into `dst` (dims `to`, which differ from `from` at `axis` only):
// the first min(from[axis], to[axis]) entries of each line, zeros after them.
void ResizeAxis(const Complex* src, const framework::DDim& from, Complex* dst,
                const framework::DDim& to, int axis);

}  // namespace fft
}  // namespace operators
}  // namespace paddle_like
