// pool2d: forward against direct loops in double (max / avg, exclusive or not, paddings of
// 2 and 4 values, SAME / VALID, ceil_mode, global, adaptive, NHWC, windows in the padding;
// float and double), gradients against finite differences, the oneDNN kernel against the
// plain one, and error messages.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "platform/init.h"
#include "tests/conv_pool_test_util.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

// Direct loops, independent of the op's code.
std::vector<double> ReferencePool(const PoolCase& c, const std::vector<double>& in,
                                  DDim* out_dims) {
  const bool nhwc = c.data_format == "NHWC";
  const int64_t n_ = c.x[0], ch = nhwc ? c.x[3] : c.x[1];
  const int64_t h_ = nhwc ? c.x[1] : c.x[2], w_ = nhwc ? c.x[2] : c.x[3];
  int64_t k[2] = {c.ksize[0], c.ksize[1]};
  const int64_t s[2] = {c.strides[0], c.strides[1]};
  const int64_t size[2] = {h_, w_};
  int64_t pad[4];
  if (c.paddings.size() == 2) {
    pad[0] = pad[1] = c.paddings[0];
    pad[2] = pad[3] = c.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pad[i] = c.paddings[i];
  }
  if (c.global) {
    k[0] = h_;
    k[1] = w_;
  }
  if (c.algorithm == "VALID" || c.global) std::fill(pad, pad + 4, 0);
  if (c.algorithm == "SAME" && !c.global) {
    for (int a = 0; a < 2; ++a) {
      const int64_t out = (size[a] + s[a] - 1) / s[a];
      const int64_t sum = std::max<int64_t>((out - 1) * s[a] + k[a] - size[a], 0);
      pad[2 * a] = sum / 2;
      pad[2 * a + 1] = sum - sum / 2;
    }
  }
  int64_t out[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t span = size[a] - k[a] + pad[2 * a] + pad[2 * a + 1];
    out[a] = c.adaptive ? k[a] : (span + (c.ceil_mode ? s[a] - 1 : 0)) / s[a] + 1;
  }
  *out_dims = nhwc ? DDim{n_, out[0], out[1], ch} : DDim{n_, ch, out[0], out[1]};
  // The window of output index o along axis a: [lo, hi) clipped to the image.
  auto window = [&](int a, int64_t o, int64_t* lo, int64_t* hi) {
    if (c.adaptive) {
      *lo = static_cast<int64_t>(std::floor(static_cast<double>(o) * size[a] / out[a]));
      *hi = static_cast<int64_t>(std::ceil(static_cast<double>(o + 1) * size[a] / out[a]));
      return;
    }
    const int64_t start = o * s[a] - pad[2 * a];
    *lo = std::max<int64_t>(start, 0);
    *hi = std::min<int64_t>(start + k[a], size[a]);
  };
  auto at = [&](int64_t n, int64_t c2, int64_t y, int64_t x) {
    return nhwc ? in[((n * h_ + y) * w_ + x) * ch + c2] : in[((n * ch + c2) * h_ + y) * w_ + x];
  };
  std::vector<double> result(static_cast<size_t>(n_ * ch * out[0] * out[1]));
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c2 = 0; c2 < ch; ++c2) {
      for (int64_t y = 0; y < out[0]; ++y) {
        for (int64_t x = 0; x < out[1]; ++x) {
          int64_t h0, h1, w0, w1;
          window(0, y, &h0, &h1);
          window(1, x, &w0, &w1);
          double r = 0;
          int64_t count = 0;
          double m = -INFINITY, sum = 0;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              m = std::max(m, at(n, c2, h, w));
              sum += at(n, c2, h, w);
              ++count;
            }
          }
          if (count > 0) {
            // Non-exclusive: PaddlePaddle's divisor, the window clipped to the image plus its
            // leading padding (on both ends), from the window's unclipped start.
            int64_t divisor = count;
            if (!c.exclusive && !c.adaptive) {
              divisor = 1;
              for (int a = 0; a < 2; ++a) {
                const int64_t start = (a == 0 ? y : x) * s[a] - pad[2 * a];
                divisor *= std::min<int64_t>(start + k[a], size[a] + pad[2 * a]) - start;
              }
            }
            r = c.type == "max" ? m : sum / divisor;
          }
          const size_t o = nhwc ? ((n * out[0] + y) * out[1] + x) * ch + c2
                                : ((n * ch + c2) * out[0] + y) * out[1] + x;
          result[o] = r;
        }
      }
    }
  }
  return result;
}

std::vector<PoolCase> ForwardCases() {
  std::vector<PoolCase> cases;
  for (const char* type : {"max", "avg"}) {
    auto add = [&cases, type](PoolCase c) {
      c.type = type;
      cases.push_back(c);
      if (c.type == "avg" && !c.adaptive && !c.global) {
        c.exclusive = false;
        cases.push_back(c);
      }
    };
    add({{1, 1, 4, 4}, "", {2, 2}, {2, 2}});
    add({{2, 3, 5, 7}, "", {2, 2}, {2, 2}});  // A row and a column past the last window.
    add({{2, 3, 5, 5}, "", {3, 3}, {1, 1}, {1, 1}});
    add({{1, 2, 6, 7}, "", {3, 2}, {2, 1}, {1, 0, 0, 1}});
    // More padding after than before: non-exclusive windows reaching into the trailing
    // padding count only up to the leading padding's width (PaddlePaddle's divisor).
    add({{1, 2, 6, 7}, "", {3, 3}, {2, 2}, {0, 2, 1, 0}});
    add({{1, 2, 7, 7}, "", {3, 3}, {2, 2}, {1, 1}});
    // 8 or more channels of row-major NCHW, which the oneDNN kernel pools in blocked
    // channels: SPP's large windows at stride 1, and 12 channels (a partly filled block).
    add({{1, 12, 10, 10}, "", {13, 13}, {1, 1}, {6, 6}});
    add({{2, 8, 6, 6}, "", {5, 5}, {1, 1}, {2, 2}});
    add({{1, 16, 9, 7}, "", {3, 3}, {2, 2}, {1, 1}});
    // ceil_mode: the last window reaches past the padding.
    PoolCase ceil{{1, 2, 5, 5}, "", {2, 2}, {2, 2}};
    ceil.ceil_mode = true;
    add(ceil);
    ceil = {{1, 1, 6, 7}, "", {3, 3}, {2, 2}, {1, 1}};
    ceil.ceil_mode = true;
    add(ceil);
    ceil = {{1, 12, 6, 7}, "", {3, 3}, {2, 2}, {1, 1}};
    ceil.ceil_mode = true;
    add(ceil);
    // Global pooling ignores ksize and paddings.
    PoolCase global{{2, 3, 4, 5}, "", {1, 1}, {1, 1}, {1, 1}};
    global.global = true;
    add(global);
    // Adaptive: downsampling with uneven windows, upsampling, 1x1 output.
    PoolCase adaptive{{2, 2, 7, 5}, "", {3, 2}};
    adaptive.adaptive = true;
    add(adaptive);
    adaptive.x = {1, 1, 5, 5};
    adaptive.ksize = {7, 7};
    add(adaptive);
    adaptive.x = {1, 3, 6, 6};
    adaptive.ksize = {1, 1};
    add(adaptive);
    // SAME and VALID.
    PoolCase same{{1, 2, 7, 6}, "", {3, 3}, {2, 2}};
    same.algorithm = "SAME";
    add(same);
    PoolCase valid{{1, 2, 6, 6}, "", {2, 2}, {2, 2}, {1, 1}};
    valid.algorithm = "VALID";
    add(valid);
    // NHWC, AnyLayout.
    PoolCase nhwc{{2, 5, 4, 3}, "", {2, 2}, {2, 2}, {1, 1}};
    nhwc.data_format = "NHWC";
    add(nhwc);
    nhwc.ceil_mode = true;
    nhwc.x = {1, 5, 6, 2};
    nhwc.ksize = {3, 2};
    add(nhwc);
    nhwc.ceil_mode = false;
    nhwc.adaptive = true;
    nhwc.x = {1, 5, 5, 2};
    nhwc.ksize = {2, 3};
    add(nhwc);
    PoolCase any{{1, 2, 4, 4}, "", {2, 2}, {2, 2}};
    any.data_format = "AnyLayout";
    add(any);
    // Windows lying wholly in the padding give 0.
    add({{1, 1, 3, 3}, "", {2, 2}, {1, 1}, {2, 2}});
    // Size-1 planes and a larger batch.
    add({{3, 2, 1, 1}, "", {1, 1}});
    add({{8, 16, 12, 12}, "", {3, 3}, {2, 2}, {1, 1}});
  }
  return cases;
}

template <typename T>
OpRunResult RunPool(const PoolCase& c, const std::vector<double>& x) {
  return RunOp("pool2d", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}}, c.Attrs());
}

template <typename T>
void CheckForwardCases() {
  const DataType dtype = platform::ToDataType<T>();
  unsigned seed = 10;
  for (const PoolCase& c : ForwardCases()) {
    SCOPED_TRACE(c.Name());
    const std::vector<double> x = RandomValues(c.x.numel(), -1, 1, ++seed);
    DDim dims;
    const std::vector<double> expected = ReferencePool(c, x, &dims);
    auto r = RunPool<T>(c, x);
    EXPECT_EQ(r.outputs["Out"][0].dims(), dims);
    ExpectNear(ToDoubles(r.outputs["Out"][0]), expected, RelTol(dtype), AbsTol(dtype) * 10,
               c.Name());
  }
}

TEST(Pool2dOp, ForwardMatchesDirectLoopsFloat) { CheckForwardCases<float>(); }
TEST(Pool2dOp, ForwardMatchesDirectLoopsDouble) { CheckForwardCases<double>(); }

TEST(Pool2dOp, IssueExample) {
  std::vector<double> x(16);
  std::iota(x.begin(), x.end(), 0.0);
  PoolCase c{{1, 1, 4, 4}, "max", {2, 2}, {2, 2}};
  auto r = RunOp("pool2d", {{"X", {MakeTensor<float>(c.x, x)}}}, {{"Out", 1}},
                 {{"pooling_type", std::string("max")}, {"ksize", std::vector<int>{2, 2}},
                  {"strides", std::vector<int>{2, 2}}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), (DDim{1, 1, 2, 2}));
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {5, 7, 13, 15}, 0, 0, "max 2x2");
  // avg over 3x3 windows with padding 1: corners divide by 4 (exclusive) or 9.
  std::vector<double> ones(9, 1.0);
  c = {{1, 1, 3, 3}, "avg", {3, 3}, {1, 1}, {1, 1}};
  ExpectNear(ToDoubles(RunPool<double>(c, ones).outputs["Out"][0]), std::vector<double>(9, 1.0), 0,
             1e-15, "exclusive");
  c.exclusive = false;
  ExpectNear(ToDoubles(RunPool<double>(c, ones).outputs["Out"][0]),
             {4. / 9, 6. / 9, 4. / 9, 6. / 9, 1, 6. / 9, 4. / 9, 6. / 9, 4. / 9}, 0, 1e-15,
             "inclusive");
}

TEST(Pool2dOp, EmptyBatch) {
  PoolCase c{{0, 3, 4, 4}, "avg", {2, 2}, {2, 2}};
  EXPECT_EQ(RunPool<float>(c, {}).outputs["Out"][0].dims(), (DDim{0, 3, 2, 2}));
}

// ---------------------------------------------------------------------------- gradients

// Distinct values 0.1 apart in random order, so the maximum of each window is unique and
// stays so under the finite-difference steps.
std::vector<double> DistinctValues(int64_t n, unsigned seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = 0.1 * static_cast<double>(i) - 0.05 * n;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

TEST(Pool2dGrad, MatchesFiniteDifferences) {
  std::vector<PoolCase> cases;
  for (const char* type : {"max", "avg"}) {
    auto add = [&cases, type](PoolCase c) {
      c.type = type;
      cases.push_back(c);
      if (c.type == "avg" && !c.adaptive && !c.global) {
        c.exclusive = false;
        cases.push_back(c);
      }
    };
    add({{1, 2, 3, 4}, "", {2, 2}, {2, 2}});
    add({{2, 2, 5, 7}, "", {2, 2}, {2, 2}});
    add({{1, 1, 4, 4}, "", {3, 3}, {1, 1}, {1, 1}});
    add({{1, 2, 3, 3}, "", {3, 2}, {2, 1}, {1, 0, 0, 1}});
    PoolCase ceil{{1, 1, 5, 5}, "", {2, 2}, {2, 2}};
    ceil.ceil_mode = true;
    add(ceil);
    PoolCase global{{2, 2, 3, 2}, "", {1, 1}};
    global.global = true;
    add(global);
    PoolCase adaptive{{1, 2, 5, 3}, "", {2, 2}};
    adaptive.adaptive = true;
    add(adaptive);
    PoolCase nhwc{{1, 3, 3, 2}, "", {2, 2}, {1, 1}, {1, 1}};
    nhwc.data_format = "NHWC";
    add(nhwc);
    add({{1, 1, 3, 3}, "", {2, 2}, {1, 1}, {2, 2}});
  }
  unsigned seed = 40;
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.Name());
    GradCheck g;
    g.op_type = "pool2d";
    g.inputs = {{"X", {MakeTensor<double>(c.x, DistinctValues(c.x.numel(), ++seed))}}};
    g.outputs = {{"Out", 1}};
    g.attrs = c.Attrs();
    g.eps = 1e-4;  // Piecewise linear: exact away from ties, which the values avoid.
    g.rtol = 1e-6;
    g.atol = 1e-8;
    CheckGradients(g);
  }
}

TEST(Pool2dGrad, FusedGradOpReadsXOutAndOutGrad) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  framework::VarDesc* var = b.Var("x");
  var->SetDataType(DataType::FLOAT32);
  var->SetShape({2, 3, 6, 6});
  auto add = [&b](const std::string& t, const framework::VariableNameMap& in,
                  const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* o = b.AppendOp();
    o->SetType(t);
    for (const auto& kv : in) o->SetInput(kv.first, kv.second);
    for (const auto& kv : out) o->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) o->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(o, &b);
  };
  add("pool2d", {{"X", {"x"}}}, {{"Out", {"y"}}},
      {{"pooling_type", std::string("max")}, {"ksize", std::vector<int>{2, 2}},
       {"strides", std::vector<int>{2, 2}}});
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{2, 3, 3, 3}));
  add("reduce_sum", {{"X", {"y"}}}, {{"Out", {"loss"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  framework::AppendBackward(&p, "loss");
  const framework::OpDesc* grad = nullptr;
  for (size_t i = 0; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "pool2d_grad") grad = b.Op(i);
  }
  ASSERT_NE(grad, nullptr);
  EXPECT_EQ(grad->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(grad->Input("Out"), std::vector<std::string>{"y"});
  EXPECT_EQ(grad->Input("Out@GRAD"), std::vector<std::string>{"y@GRAD"});
  EXPECT_EQ(grad->Output("X@GRAD"), std::vector<std::string>{"x@GRAD"});
  EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{2, 3, 6, 6}));
}

TEST(Pool2dGrad, MaxRoutesToTheFirstMaximum) {
  // Ties: the gradient goes to the first maximum of each window in row-major order.
  // Windows of 2x2: [1 3; 3 1], [2 2; 2 2], [0 1; 5 5], [0 1; 2 7].
  PoolCase c{{1, 1, 2, 8}, "max", {2, 2}, {2, 2}};
  auto grads = NthGradient(
      "pool2d",
      {{"X", {MakeTensor<double>(c.x, {1, 3, 2, 2, 0, 1, 0, 1, 3, 1, 2, 2, 5, 5, 2, 7})}}},
      {{"Out", 1}}, c.Attrs(), 1);
  ExpectNear(ToDoubles(grads["X_0"]), {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1}, 0, 0,
             "ties");
  // The same windows with a padded 3x3 window (the general code) routing alike.
  PoolCase padded{{1, 1, 2, 2}, "max", {3, 3}, {1, 1}, {1, 1}};
  grads = NthGradient("pool2d", {{"X", {MakeTensor<double>(padded.x, {5, 1, 5, 5})}}},
                      {{"Out", 1}}, padded.Attrs(), 1);
  ExpectNear(ToDoubles(grads["X_0"]), {4, 0, 0, 0}, 0, 0, "ties, padded windows");
}

TEST(Pool2dGrad, Max2x2FloatRoutesToTheFirstMaximum) {
  // float32 takes a vectorized path four windows at a time; widths with and without a
  // remainder, an odd input width and height (columns and rows past the last window), and
  // values from {0, 1, 2} so that most windows hold ties.
  operators::RegisterAllOps();
  for (const DDim& dims :
       {DDim({2, 3, 6, 19}), DDim({1, 2, 5, 8}), DDim({1, 1, 4, 2}), DDim({1, 2, 2, 34})}) {
    SCOPED_TRACE(dims.ToString());
    PoolCase c{dims, "max", {2, 2}, {2, 2}};
    const int64_t n = dims[0] * dims[1], h = dims[2], w = dims[3], oh = h / 2, ow = w / 2;
    std::vector<double> x = RandomValues(dims.numel(), 0, 3, 11);
    for (double& v : x) v = std::floor(v);
    std::vector<double> y(n * oh * ow), dy = RandomValues(n * oh * ow, 1, 2, 12);
    std::vector<double> dx(x.size(), 0.0);
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t at[4] = {(p * h + 2 * i) * w + 2 * j, (p * h + 2 * i) * w + 2 * j + 1,
                                 (p * h + 2 * i + 1) * w + 2 * j,
                                 (p * h + 2 * i + 1) * w + 2 * j + 1};
          const int64_t o = (p * oh + i) * ow + j;
          y[o] = std::max(std::max(x[at[0]], x[at[1]]), std::max(x[at[2]], x[at[3]]));
          for (int64_t k : at) {
            if (x[k] == y[o]) {
              dx[k] = dy[o];
              break;
            }
          }
        }
      }
    }
    const DDim out_dims({dims[0], dims[1], oh, ow});
    auto r = RunOp("pool2d_grad",
                   {{"X", {MakeTensor<float>(dims, x)}},
                    {"Out", {MakeTensor<float>(out_dims, y)}},
                    {"Out@GRAD", {MakeTensor<float>(out_dims, dy)}}},
                   {{"X@GRAD", 1}}, c.Attrs());
    std::vector<double> expected(dx.size());
    for (size_t k = 0; k < dx.size(); ++k) expected[k] = static_cast<float>(dx[k]);
    ExpectNear(ToDoubles(r.outputs["X@GRAD"][0]), expected, 0, 0, "X@GRAD");
  }
}

// X@GRAD ([N, C, H, W] or [N, H, W, C]) summed per channel in double: ChannelSum's reference.
std::vector<double> SumsPerChannel(const DenseTensor& dx, bool channel_last) {
  const std::vector<double> v = ToDoubles(dx);
  const DDim& d = dx.dims();
  const int64_t channels = channel_last ? d[3] : d[1];
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t c = channel_last ? static_cast<int64_t>(i) % channels
                                   : static_cast<int64_t>(i) / (d[2] * d[3]) % channels;
    sums[static_cast<size_t>(c)] += v[i];
  }
  return sums;
}

// fused_relu_pool2d_grad is pool2d_grad then relu_grad, bit for bit, and its ChannelSum the
// sum of that gradient per channel: every pooling case on
// X = relu(values in [-1, 1]) (half its elements 0, some windows wholly 0), float and double
// on the plain kernels, float on the oneDNN kernel too (row-major data: its plain and
// primitive paths; the blocked ones are in onednn_layout_chain_test).
template <typename T>
void CheckFusedReluPoolGrad(bool onednn) {
  ScopedFlag flag(&FLAGS_use_onednn, onednn);
  unsigned seed = 300;
  for (const PoolCase& c : ForwardCases()) {
    SCOPED_TRACE(c.Name() + (onednn ? " oneDNN" : " plain"));
    std::vector<double> x = RandomValues(c.x.numel(), -1, 1, ++seed);
    for (double& v : x) v = std::max(v, 0.0);
    const DenseTensor xt = MakeTensor<T>(c.x, x);
    const DenseTensor out = RunPool<T>(c, x).outputs["Out"][0];
    const DenseTensor dout = MakeTensor<T>(out.dims(), RandomValues(out.numel(), -1, 1, ++seed));
    const SlotTensors in = {{"X", {xt}}, {"Out", {out}}, {"Out@GRAD", {dout}}};
    auto fused = RunOp(framework::kFusedReluPool2dGrad, in, {{"X@GRAD", 1}}, c.Attrs());
    auto pooled = RunOp("pool2d_grad", in, {{"X@GRAD", 1}}, c.Attrs());
    auto relu = RunOp("relu_grad", {{"Out", {xt}}, {"Out@GRAD", {pooled.outputs["X@GRAD"][0]}}},
                      {{"X@GRAD", 1}});
    EXPECT_EQ(fused.kernel->key.backend, onednn ? LibraryType::kOneDNN : LibraryType::kPlain);
    EXPECT_EQ(fused.outputs["X@GRAD"][0].dims(), c.x);
    EXPECT_EQ(fused.outputs.count("ChannelSum"), 0u);
    ExpectNear(ToDoubles(fused.outputs["X@GRAD"][0]), ToDoubles(relu.outputs["X@GRAD"][0]), 0, 0,
               "X@GRAD");
    auto with_sum =
        RunOp(framework::kFusedReluPool2dGrad, in, {{"X@GRAD", 1}, {"ChannelSum", 1}}, c.Attrs());
    const bool channel_last = c.data_format == "NHWC";
    const DenseTensor& sum = with_sum.outputs["ChannelSum"][0];
    EXPECT_EQ(sum.dims(), DDim({c.x[channel_last ? 3 : 1]}));
    EXPECT_EQ(sum.dtype(), xt.dtype());
    ExpectNear(ToDoubles(with_sum.outputs["X@GRAD"][0]), ToDoubles(relu.outputs["X@GRAD"][0]), 0, 0,
               "X@GRAD beside ChannelSum");
    ExpectNear(ToDoubles(sum), SumsPerChannel(relu.outputs["X@GRAD"][0], channel_last), 1e-6, 1e-6,
               "ChannelSum");
  }
}

TEST(FusedReluPool2dGrad, IsPool2dGradThenReluGradOnThePlainKernels) {
  operators::RegisterAllOps();
  CheckFusedReluPoolGrad<float>(false);
  CheckFusedReluPoolGrad<double>(false);
}

// ---------------------------------------------------------------------------- oneDNN

class Pool2dOneDNNTest : public ::testing::Test {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    if (!platform::BuiltWithOneDNN()) GTEST_SKIP() << "built without oneDNN";
  }
};

TEST_F(Pool2dOneDNNTest, FusedReluPool2dGradIsPool2dGradThenReluGrad) {
  CheckFusedReluPoolGrad<float>(true);
}

TEST_F(Pool2dOneDNNTest, MatchesPlainKernel) {
  unsigned seed = 900;
  for (const PoolCase& c : ForwardCases()) {
    SCOPED_TRACE(c.Name());
    const std::vector<double> x = RandomValues(c.x.numel(), -1, 1, ++seed);
    OpRunResult onednn, plain;
    {
      ScopedFlag flag(&FLAGS_use_onednn, true);
      onednn = RunPool<float>(c, x);
    }
    {
      ScopedFlag flag(&FLAGS_use_onednn, false);
      plain = RunPool<float>(c, x);
    }
    EXPECT_EQ(onednn.kernel->key.backend, LibraryType::kOneDNN);
    EXPECT_EQ(plain.kernel->key.backend, LibraryType::kPlain);
    EXPECT_EQ(onednn.outputs["Out"][0].dims(), plain.outputs["Out"][0].dims());
    ExpectNear(ToDoubles(onednn.outputs["Out"][0]), ToDoubles(plain.outputs["Out"][0]), 1e-5,
               1e-6, c.Name());
  }
}

// ---------------------------------------------------------------------------- errors

void RunShape(const DDim& x, const AttributeMap& attrs) {
  RunOp("pool2d", {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}}},
        {{"Out", 1}}, attrs);
}

TEST(Pool2dOp, Errors) {
  using platform::InvalidArgumentError;
  const AttributeMap max2 = {{"pooling_type", std::string("max")},
                             {"ksize", std::vector<int>{2, 2}}};
  ExpectError<InvalidArgumentError>([&] { RunShape({1, 4, 4}, max2); },
                                    {"op `pool2d` input `X`: expected 4-D tensor, received shape "
                                     "[1, 4, 4]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShape({1, 1, 4, 4}, {{"ksize", std::vector<int>{2, 2}}}); },
      {"op `pool2d` attribute `pooling_type`", "required"});
  ExpectError<InvalidArgumentError>(
      [] {
        RunShape({1, 1, 4, 4},
                 {{"pooling_type", std::string("min")}, {"ksize", std::vector<int>{2, 2}}});
      },
      {"op `pool2d` attribute `pooling_type`", "min"});
  ExpectError<InvalidArgumentError>(
      [] { RunShape({1, 1, 4, 4}, {{"pooling_type", std::string("max")}, {"ksize", 2}}); },
      {"op `pool2d` attribute `ksize`: expected 2 values, received [2]"});
  ExpectError<InvalidArgumentError>(
      [] {
        RunShape({1, 1, 2, 2},
                 {{"pooling_type", std::string("avg")}, {"ksize", std::vector<int>{3, 3}}});
      },
      {"op `pool2d`: output height would be 0", "[1, 1, 2, 2]"});
  ExpectError<InvalidArgumentError>(
      [&] {
        AttributeMap a = max2;
        a["paddings"] = std::vector<int>{1, 1, 1};
        RunShape({1, 1, 4, 4}, a);
      },
      {"op `pool2d` attribute `paddings`", "[1, 1, 1]"});
  ExpectError<InvalidArgumentError>(
      [&] {
        AttributeMap a = max2;
        a["ksize"] = std::vector<int>{0, 2};
        RunShape({1, 1, 4, 4}, a);
      },
      {"op `pool2d` attribute `ksize`: expected values > 0, received [0, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
