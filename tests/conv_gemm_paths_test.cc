// The GEMM formulations of a convolution's input gradient (operators/nn/conv_nchw.h): the
// channel-last one against the NCHW one, for strides, paddings (asymmetric, wider than the
// filter's reach), dilations, filters larger than the input and LeNet's shapes, in float and
// double, on one and two threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "operators/math/im2col.h"
#include "operators/nn/conv_nchw.h"
#include "tests/conv_pool_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename T>
void CheckInputGradNhwc(const ConvCase& c, unsigned seed, int threads) {
  SCOPED_TRACE(c.Name() + ", " + std::to_string(threads) + " thread(s)");
  const operators::Conv2dGeometry g =
      operators::ResolveConv2d("conv2d", c.input, c.filter, c.Attrs());
  const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, seed);
  const std::vector<double> dy = RandomValues(g.OutputDims().numel(), -1, 1, seed + 1);
  const std::vector<T> filter(w.begin(), w.end()), dout_nchw(dy.begin(), dy.end());
  const platform::CPUDeviceContext dev(threads);
  std::vector<T> expected(static_cast<size_t>(c.input.numel()));
  operators::ConvInputGradNchw<T>(dev, g, filter.data(), dout_nchw.data(), expected.data());

  std::vector<T> dout_nhwc(dout_nchw.size()), din_nhwc(expected.size(), T(7));
  operators::math::NchwToNhwc(dout_nchw.data(), g.batch, g.out_c, g.out_h, g.out_w,
                              dout_nhwc.data());
  operators::ConvInputGradNhwc<T>(dev, g, filter.data(), dout_nhwc.data(), din_nhwc.data());
  std::vector<T> din(expected.size());
  operators::math::NhwcToNchw(din_nhwc.data(), g.batch, g.in_h, g.in_w, g.in_c, din.data());
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  ExpectNear(std::vector<double>(din.begin(), din.end()),
             std::vector<double>(expected.begin(), expected.end()), tol,
             tol * static_cast<double>(c.filter[0] * c.filter[2] * c.filter[3]), "Input@GRAD");
}

TEST(ConvGemmPaths, ChannelLastInputGradientMatchesTheNchwOne) {
  const std::vector<ConvCase> cases = {
      {{1, 1, 5, 5}, {1, 1, 3, 3}},
      {{2, 3, 7, 7}, {4, 3, 3, 3}, {2, 2}, {1, 1}},
      {{1, 2, 6, 7}, {3, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}},
      {{3, 2, 8, 9}, {4, 2, 2, 3}, {1, 2}, {0, 2, 1, 0}},
      {{1, 2, 9, 8}, {3, 2, 3, 2}, {1, 2}, {1, 2}, {2, 3}},
      {{2, 3, 10, 10}, {2, 3, 3, 3}, {2, 2}, {2, 2}, {2, 2}},
      {{1, 1, 2, 2}, {1, 1, 3, 3}, {1, 1}, {1, 1}},
      {{1, 2, 3, 3}, {2, 2, 2, 2}, {1, 1}, {3, 3}},
      {{4, 20, 12, 12}, {50, 20, 5, 5}},
      {{2, 12, 9, 11}, {16, 12, 3, 3}, {2, 2}, {1, 1}},
  };
  unsigned seed = 40;
  for (const ConvCase& c : cases) {
    for (const int threads : {1, 2}) {
      CheckInputGradNhwc<float>(c, seed, threads);
      CheckInputGradNhwc<double>(c, seed, threads);
    }
    seed += 2;
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
