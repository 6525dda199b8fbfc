#include "operators/fft/fft_util.h"

#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/FFT>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace fft {

std::vector<int> CheckedAxes(const std::string& op, const std::vector<int64_t>& axes, int rank) {
  PL_ENFORCE(!axes.empty(),
             errors::InvalidArgument("op `%s` attribute `axes`: expected at least one axis", op));
  std::vector<int> out;
  for (int64_t a : axes) {
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axes`: axis %lld is out of range for "
                                       "an input of rank %d",
                                       op, static_cast<long long>(a), rank));
    const int axis = static_cast<int>(a < 0 ? a + rank : a);
    PL_ENFORCE(
        std::find(out.begin(), out.end(), axis) == out.end(),
        errors::InvalidArgument("op `%s` attribute `axes`: axis %d is given twice", op, axis));
    out.push_back(axis);
  }
  return out;
}

double NormalizationScale(const std::string& op, const std::string& normalization, bool forward,
                          int64_t n) {
  if (n <= 0) return 1.0;
  if (normalization == "ortho") return 1.0 / std::sqrt(static_cast<double>(n));
  if (normalization == "backward") return forward ? 1.0 : 1.0 / static_cast<double>(n);
  if (normalization == "forward") return forward ? 1.0 / static_cast<double>(n) : 1.0;
  throw errors::InvalidArgument(
      "op `%s` attribute `normalization`: expected backward, forward or ortho, received `%s`", op,
      normalization);
}

int64_t PointsOf(const framework::DDim& dims, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int a : axes) n *= dims[a];
  return n;
}

void TransformAxes(const platform::CPUDeviceContext& dev, Complex* data,
                   const framework::DDim& dims, const std::vector<int>& axes, bool forward,
                   double scale) {
  if (dims.numel() == 0) return;
  for (int axis : axes) {
    const int64_t n = dims[axis];
    const int64_t inner = framework::Product(dims, axis + 1, dims.size());
    const int64_t lines = dims.numel() / n;
    if (n == 1) continue;
    dev.ParallelFor(lines, std::max<int64_t>(1, 16384 / n), [&](int64_t begin, int64_t end) {
      Eigen::FFT<double> fft;  // Its plans (twiddles per length) live as long as the range.
      fft.SetFlag(Eigen::FFT<double>::Unscaled);
      std::vector<Complex> in(n), out(n);
      for (int64_t line = begin; line < end; ++line) {
        Complex* base = data + (line / inner) * n * inner + line % inner;
        for (int64_t t = 0; t < n; ++t) in[t] = base[t * inner];
        if (forward) {
          fft.fwd(out.data(), in.data(), n);
        } else {
          fft.inv(out.data(), in.data(), n);
        }
        for (int64_t k = 0; k < n; ++k) base[k * inner] = out[k];
      }
    });
  }
  if (scale != 1.0) {
    const int64_t total = dims.numel();
    for (int64_t i = 0; i < total; ++i) data[i] *= scale;
  }
}

void ResizeAxis(const Complex* src, const framework::DDim& from, Complex* dst,
                const framework::DDim& to, int axis) {
  const int64_t inner = framework::Product(from, axis + 1, from.size());
  const int64_t outer = framework::Product(from, 0, axis);
  const int64_t m = from[axis], n = to[axis], kept = std::min(m, n);
  for (int64_t o = 0; o < outer; ++o) {
    std::copy(src + o * m * inner, src + (o * m + kept) * inner, dst + o * n * inner);
    std::fill(dst + (o * n + kept) * inner, dst + (o + 1) * n * inner, Complex(0));
  }
}

}  // namespace fft
}  // namespace operators
}  // namespace paddle_like
