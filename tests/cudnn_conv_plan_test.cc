// The buffers and paddings the cuDNN convolution kernels hand cuDNN (cudnn::ConvPlan), checked
// without a device: for conv2d_transpose over a sweep of strides, dilations, kernel sizes,
// asymmetric paddings, SAME / VALID, groups and output_padding, cuDNN's backward-data
// computed in double on the plan's buffer (symmetric padding, as cuDNN applies it) and
// copied out of it as the kernel does must equal the plain CPU kernel; for conv2d, a padded
// buffer exactly where the paddings are asymmetric. The algorithm caches: one choice per
// problem shared by all kernel objects. Built only with CUDA (tests/CMakeLists.txt).
#include <algorithm>
#include <string>
#include <vector>

#include "operators/cuda/cudnn_conv.h"
#include "tests/conv_pool_test_util.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using operators::Conv2dGeometry;
using operators::cudnn::ConvPlan;
using operators::cudnn::MakeConvPlan;
using operators::cudnn::View4d;

// cuDNN's output size of a convolution over `x` rows padded by `pad` on both sides.
int64_t CudnnOutputSize(int64_t x, int64_t pad, int64_t k, int64_t stride, int64_t dilation) {
  return (x + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

// The transposed convolution as the cuDNN kernel computes it, NCHW: backward-data of `y`
// (the op's Input) with `w` into the plan's x buffer, then the user's part of the buffer.
std::vector<double> TransposeAsPlanned(const Conv2dGeometry& g, const ConvPlan& p,
                                       const std::vector<double>& y, const std::vector<double>& w) {
  EXPECT_EQ(CudnnOutputSize(p.xh, p.pad_h, g.kernel_h, g.stride_h, g.dilation_h), g.out_h);
  EXPECT_EQ(CudnnOutputSize(p.xw, p.pad_w, g.kernel_w, g.stride_w, g.dilation_w), g.out_w);
  const int64_t c_group = g.in_c / g.groups, m_group = g.out_c / g.groups;
  std::vector<double> buffer(static_cast<size_t>(p.XBuffer().numel()), 0.0);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t m = 0; m < g.out_c; ++m) {
      for (int64_t oy = 0; oy < g.out_h; ++oy) {
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const double v = y[((n * g.out_c + m) * g.out_h + oy) * g.out_w + ox];
          for (int64_t c = 0; c < c_group; ++c) {
            for (int64_t i = 0; i < g.kernel_h; ++i) {
              for (int64_t j = 0; j < g.kernel_w; ++j) {
                const int64_t r = oy * g.stride_h - p.pad_h + i * g.dilation_h;
                const int64_t s = ox * g.stride_w - p.pad_w + j * g.dilation_w;
                if (r < 0 || r >= p.xh || s < 0 || s >= p.xw) continue;
                const int64_t channel = m / m_group * c_group + c;
                buffer[((n * g.in_c + channel) * p.xh + r) * p.xw + s] +=
                    v * w[((m * c_group + c) * g.kernel_h + i) * g.kernel_w + j];
              }
            }
          }
        }
      }
    }
  }
  if (!p.explicit_pad) return buffer;
  // UnstageX: the interior, zeros where the buffer ends first.
  std::vector<double> out(static_cast<size_t>(p.XNchw().numel()), 0.0);
  const View4d v = p.XInterior();
  EXPECT_LE(v.offset + (v.dims[2] - 1) * v.strides[2] + (v.dims[3] - 1) * v.strides[3],
            v.strides[1] - 1);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t c = 0; c < g.in_c; ++c) {
      for (int64_t r = 0; r < v.dims[2]; ++r) {
        for (int64_t s = 0; s < v.dims[3]; ++s) {
          out[((n * g.in_c + c) * g.in_h + r) * g.in_w + s] =
              buffer[v.offset + n * v.strides[0] + c * v.strides[1] + r * v.strides[2] +
                     s * v.strides[3]];
        }
      }
    }
  }
  return out;
}

TEST(CudnnConvPlan, TransposeBuffersReproduceThePlainKernel) {
  operators::RegisterAllOps();
  int checked = 0, buffered = 0, cropped = 0;
  unsigned seed = 1;
  for (int stride = 1; stride <= 3; ++stride) {
    for (int dilation = 1; dilation <= 3; ++dilation) {
      for (int k = 1; k <= 4; ++k) {
        for (int top = 0; top <= 2; ++top) {
          for (int bottom = 0; bottom <= 2; ++bottom) {
            for (int extra = -1; extra < std::max(stride, dilation); ++extra) {
              for (const std::string algorithm : {"EXPLICIT", "SAME", "VALID"}) {
                ConvTransposeCase c;
                c.input = {2, 2, 3, 4};
                c.filter = {2, 2, k, k == 1 ? 2 : k - 1};
                c.groups = 2;
                c.strides = {stride, stride == 3 ? 1 : stride + 1};
                c.dilations = {dilation, dilation};
                c.paddings = {top, bottom, bottom, top};
                c.algorithm = algorithm;
                if (extra >= 0) c.output_padding = {extra, extra};
                Conv2dGeometry g;
                try {
                  g = operators::ResolveConv2dTranspose(c.op, c.input, c.filter, c.Attrs());
                } catch (const platform::InvalidArgumentError&) {
                  continue;  // No output, or output_padding out of range.
                }
                SCOPED_TRACE(c.Name());
                const std::vector<double> x = RandomValues(c.input.numel(), -1, 1, seed++);
                const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, seed++);
                const DenseTensor cpu = RunOn(platform::CPUPlace(), c.op,
                                              {{"Input", MakeTensor<double>(c.input, x)},
                                               {"Filter", MakeTensor<double>(c.filter, w)}},
                                              {"Output"}, c.Attrs())
                                            .outputs["Output"];
                const ConvPlan p = MakeConvPlan(g, true);
                ExpectNear(TransposeAsPlanned(g, p, x, w), ToDoubles(cpu), 1e-12, 1e-12, c.Name());
                ++checked;
                buffered += p.explicit_pad ? 1 : 0;
                cropped += p.CropsX() ? 1 : 0;
              }
            }
          }
        }
      }
    }
  }
  // The sweep reaches every path: cuDNN's own padding, a buffer, a buffer that ends early.
  EXPECT_GT(checked - buffered, 100);
  EXPECT_GT(buffered - cropped, 100);
  EXPECT_GT(cropped, 100);
}

TEST(CudnnConvPlan, Conv2dPadsInABufferExactlyWhenAsymmetric) {
  operators::RegisterAllOps();
  for (int stride = 1; stride <= 3; ++stride) {
    for (int dilation = 1; dilation <= 3; ++dilation) {
      for (int k = 1; k <= 4; ++k) {
        for (int top = 0; top <= 2; ++top) {
          for (int bottom = 0; bottom <= 2; ++bottom) {
            for (int h = 1; h <= 9; ++h) {
              for (const std::string algorithm : {"EXPLICIT", "SAME", "VALID"}) {
                ConvCase c;
                c.input = {1, 2, h, h + 1};
                c.filter = {3, 2, k, k};
                c.strides = {stride, stride};
                c.dilations = {dilation, dilation};
                c.paddings = {top, bottom, bottom, top};
                c.algorithm = algorithm;
                Conv2dGeometry g;
                try {
                  g = operators::ResolveConv2d(c.op, c.input, c.filter, c.Attrs());
                } catch (const platform::InvalidArgumentError&) {
                  continue;
                }
                SCOPED_TRACE(c.Name());
                const ConvPlan p = MakeConvPlan(g, false);
                const bool asymmetric = g.pad_top != g.pad_bottom || g.pad_left != g.pad_right;
                EXPECT_EQ(p.explicit_pad, asymmetric);
                EXPECT_EQ(p.xh, g.in_h + (asymmetric ? g.pad_top + g.pad_bottom : 0));
                EXPECT_EQ(p.xw, g.in_w + (asymmetric ? g.pad_left + g.pad_right : 0));
                EXPECT_EQ(p.pad_h, asymmetric ? 0 : g.pad_top);
                EXPECT_EQ(p.pad_w, asymmetric ? 0 : g.pad_left);
                EXPECT_FALSE(p.CropsX());
                EXPECT_EQ(CudnnOutputSize(p.xh, p.pad_h, g.kernel_h, g.stride_h, g.dilation_h),
                          g.out_h);
                EXPECT_EQ(CudnnOutputSize(p.xw, p.pad_w, g.kernel_w, g.stride_w, g.dilation_w),
                          g.out_w);
              }
            }
          }
        }
      }
    }
  }
}

TEST(CudnnAlgoCache, KernelObjectsShareOneChoicePerProblem) {
  namespace cudnn = operators::cudnn;
  // A shape no other test uses: the shared map lives as long as the process.
  const framework::AttributeMap attrs = {{"strides", std::vector<int>{1, 1}},
                                         {"paddings", std::vector<int>{1, 1}},
                                         {"dilations", std::vector<int>{1, 1}},
                                         {"groups", 1},
                                         {"padding_algorithm", std::string("EXPLICIT")},
                                         {"data_format", std::string("NCHW")}};
  const ConvPlan plan = MakeConvPlan(
      operators::ResolveConv2d("conv2d", DDim({3, 5, 17, 19}), DDim({7, 5, 3, 3}), attrs), false);
  int chosen = 0;
  auto choose = [&chosen](int algo) {
    return [&chosen, algo] {
      ++chosen;
      return cudnn::AlgoChoice{algo, 64};
    };
  };
  const auto fwd = cudnn::ConvDirection::kForward;
  cudnn::AlgoCache<float> first, second;
  EXPECT_EQ(first.Get(0, plan, fwd, true, choose(5)).algo, 5);
  EXPECT_EQ(first.Get(0, plan, fwd, true, choose(6)).algo, 5);
  // Another kernel object (another op of the program, a predictor's clone) gets the same.
  EXPECT_EQ(second.Get(0, plan, fwd, true, choose(6)).algo, 5);
  EXPECT_EQ(chosen, 1);
  // Heuristics, another direction, device, element type or a transposed plan choose anew.
  EXPECT_EQ(second.Get(0, plan, fwd, false, choose(1)).algo, 1);
  EXPECT_EQ(second.Get(0, plan, cudnn::ConvDirection::kBackwardData, true, choose(2)).algo, 2);
  EXPECT_EQ(second.Get(1, plan, fwd, true, choose(3)).algo, 3);
  cudnn::AlgoCache<double> wide;
  EXPECT_EQ(wide.Get(0, plan, fwd, true, choose(4)).algo, 4);
  ConvPlan transposed = plan;
  transposed.transposed = true;
  EXPECT_EQ(first.Get(0, transposed, fwd, true, choose(7)).algo, 7);
  EXPECT_EQ(chosen, 6);
  {
    ScopedFlag deterministic(&FLAGS_cudnn_deterministic, true);
    EXPECT_EQ(first.Get(0, plan, fwd, true, choose(0)).algo, 0);
  }
  EXPECT_EQ(chosen, 7);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
