// conv2d and depthwise_conv2d: forward against direct loops in double (strides, paddings,
// SAME / VALID, dilations, groups, depthwise, NHWC, 1x1, batches; float and double), several
// threads, gradients against finite differences, the oneDNN kernel against the plain one,
// and error messages.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/conv_pool_test_util.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

// Direct loops, independent of the op's code: out[n, m, y, x] = sum over the taps.
std::vector<double> ReferenceConv(const ConvCase& c, const std::vector<double>& in,
                                  const std::vector<double>& w, DDim* out_dims) {
  const bool nhwc = c.data_format == "NHWC";
  const int64_t n_ = c.input[0], ch = nhwc ? c.input[3] : c.input[1];
  const int64_t h_ = nhwc ? c.input[1] : c.input[2], w_ = nhwc ? c.input[2] : c.input[3];
  const int64_t m_ = c.filter[0], cg = c.filter[1], kh = c.filter[2], kw = c.filter[3];
  int64_t pad[4];
  if (c.paddings.size() == 2) {
    pad[0] = pad[1] = c.paddings[0];
    pad[2] = pad[3] = c.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pad[i] = c.paddings[i];
  }
  int64_t dh = c.dilations[0], dw = c.dilations[1];
  const int64_t sh = c.strides[0], sw = c.strides[1];
  if (c.algorithm == "VALID") std::fill(pad, pad + 4, 0);
  if (c.algorithm == "SAME") {
    dh = dw = 1;
    const int64_t in[2] = {h_, w_}, k[2] = {kh, kw}, s[2] = {sh, sw};
    for (int a = 0; a < 2; ++a) {
      const int64_t out = (in[a] + s[a] - 1) / s[a];
      const int64_t sum = std::max<int64_t>((out - 1) * s[a] + k[a] - in[a], 0);
      pad[2 * a] = sum / 2;
      pad[2 * a + 1] = sum - sum / 2;
    }
  }
  const int64_t oh = (h_ + pad[0] + pad[1] - (dh * (kh - 1) + 1)) / sh + 1;
  const int64_t ow = (w_ + pad[2] + pad[3] - (dw * (kw - 1) + 1)) / sw + 1;
  *out_dims = nhwc ? DDim{n_, oh, ow, m_} : DDim{n_, m_, oh, ow};
  auto in_at = [&](int64_t n, int64_t c2, int64_t y, int64_t x) {
    return nhwc ? in[((n * h_ + y) * w_ + x) * ch + c2] : in[((n * ch + c2) * h_ + y) * w_ + x];
  };
  std::vector<double> out(static_cast<size_t>(n_ * m_ * oh * ow));
  const int64_t per_group = m_ / c.groups;
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t m = 0; m < m_; ++m) {
      const int64_t g = m / per_group;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          double s = 0;
          for (int64_t c2 = 0; c2 < cg; ++c2) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * sh - pad[0] + i * dh, ix = x * sw - pad[2] + j * dw;
                if (iy < 0 || iy >= h_ || ix < 0 || ix >= w_) continue;
                s += in_at(n, g * cg + c2, iy, ix) * w[((m * cg + c2) * kh + i) * kw + j];
              }
            }
          }
          const size_t o = nhwc ? ((n * oh + y) * ow + x) * m_ + m
                                : ((n * m_ + m) * oh + y) * ow + x;
          out[o] = s;
        }
      }
    }
  }
  return out;
}

std::vector<ConvCase> ForwardCases() {
  std::vector<ConvCase> cases;
  auto add = [&cases](ConvCase c) { cases.push_back(std::move(c)); };
  add({{1, 1, 5, 5}, {1, 1, 3, 3}});
  add({{2, 3, 7, 7}, {4, 3, 3, 3}, {2, 2}, {1, 1}});
  add({{1, 2, 6, 7}, {3, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}});
  add({{2, 2, 7, 6}, {3, 2, 3, 3}, {2, 2}, {0, 0}, {2, 2}, 1, "SAME"});
  add({{1, 2, 8, 5}, {2, 2, 4, 2}, {3, 2}, {0, 0}, {1, 1}, 1, "SAME"});
  add({{1, 2, 6, 6}, {2, 2, 3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, "VALID"});
  add({{1, 2, 9, 8}, {3, 2, 3, 2}, {1, 2}, {1, 2}, {2, 3}});
  add({{2, 4, 6, 6}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2});
  add({{2, 6, 5, 5}, {6, 2, 2, 2}, {2, 2}, {1, 0, 0, 1}, {1, 1}, 3});
  // Depthwise: one input channel per group, multiplier 1 and 2, also as depthwise_conv2d.
  add({{2, 3, 6, 5}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3});
  add({{2, 3, 7, 6}, {6, 1, 3, 3}, {2, 1}, {1, 2, 0, 1}, {1, 2}, 3});
  ConvCase dw{{1, 4, 9, 9}, {4, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, 4};
  dw.op = "depthwise_conv2d";
  add(dw);
  dw.algorithm = "SAME";
  add(dw);
  // NHWC (plain and grouped, depthwise), AnyLayout.
  add({{2, 6, 5, 4}, {6, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, "EXPLICIT", "NHWC"});
  add({{1, 5, 6, 3}, {4, 3, 2, 3}, {1, 1}, {0, 1, 1, 0}, {2, 1}, 1, "EXPLICIT", "NHWC"});
  add({{2, 5, 5, 3}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, "EXPLICIT", "NHWC"});
  add({{1, 3, 5, 5}, {2, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, "EXPLICIT", "AnyLayout"});
  // 1x1 filters: read directly, and strided / padded through im2col.
  add({{2, 8, 4, 4}, {5, 8, 1, 1}});
  add({{2, 8, 5, 5}, {5, 8, 1, 1}, {2, 2}});
  add({{1, 4, 3, 3}, {2, 4, 1, 1}, {1, 1}, {1, 1}});
  add({{2, 4, 3, 3}, {4, 2, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 2});
  // Filter larger than the input, padding wider than the filter reach.
  add({{1, 1, 2, 2}, {1, 1, 3, 3}, {1, 1}, {1, 1}});
  add({{1, 2, 3, 3}, {2, 2, 2, 2}, {1, 1}, {3, 3}});
  // Size-1 dims, a larger batch and a realistic size.
  add({{1, 1, 1, 1}, {1, 1, 1, 1}});
  add({{9, 2, 4, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}});
  add({{2, 16, 12, 12}, {32, 16, 3, 3}, {1, 1}, {1, 1}});
  return cases;
}

struct Inputs {
  std::vector<double> input, filter;
};

Inputs MakeInputs(const ConvCase& c, unsigned seed) {
  return {RandomValues(c.input.numel(), -1, 1, seed),
          RandomValues(c.filter.numel(), -1, 1, seed + 1)};
}

template <typename T>
OpRunResult RunConv(const ConvCase& c, const Inputs& v) {
  return RunOp(c.op,
               {{"Input", {MakeTensor<T>(c.input, v.input)}},
                {"Filter", {MakeTensor<T>(c.filter, v.filter)}}},
               {{"Output", 1}}, c.Attrs());
}

// Tolerance scale: the number of products summed for one output element.
double Terms(const ConvCase& c) {
  return static_cast<double>(c.filter[1] * c.filter[2] * c.filter[3]);
}

template <typename T>
void CheckForwardCases() {
  const DataType dtype = platform::ToDataType<T>();
  unsigned seed = 100;
  for (const ConvCase& c : ForwardCases()) {
    SCOPED_TRACE(c.Name());
    const Inputs v = MakeInputs(c, seed += 2);
    DDim dims;
    const std::vector<double> expected = ReferenceConv(c, v.input, v.filter, &dims);
    auto r = RunConv<T>(c, v);
    const DenseTensor& out = r.outputs["Output"][0];
    EXPECT_EQ(out.dims(), dims);
    EXPECT_EQ(out.dtype(), dtype);
    ExpectNear(ToDoubles(out), expected, RelTol(dtype), AbsTol(dtype) * Terms(c), c.Name());
  }
}

TEST(Conv2dOp, ForwardMatchesDirectLoopsFloat) { CheckForwardCases<float>(); }
TEST(Conv2dOp, ForwardMatchesDirectLoopsDouble) { CheckForwardCases<double>(); }

TEST(Conv2dOp, IssueExampleAndDefaults) {
  // A 3x3 box filter over 0..15 without attributes: stride 1, no padding.
  std::vector<double> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i;
  auto r = RunOp("conv2d",
                 {{"Input", {MakeTensor<double>({1, 1, 4, 4}, x)}},
                  {"Filter", {MakeTensor<double>({1, 1, 3, 3}, std::vector<double>(9, 1.0))}}},
                 {{"Output", 1}});
  EXPECT_EQ(r.outputs["Output"][0].dims(), (DDim{1, 1, 2, 2}));
  ExpectNear(ToDoubles(r.outputs["Output"][0]), {45, 54, 81, 90}, 0, 0, "box filter");
  // The documented shape example.
  ConvCase c{{1, 3, 32, 32}, {16, 3, 3, 3}, {2, 2}, {1, 1}};
  EXPECT_EQ(RunConv<float>(c, MakeInputs(c, 1)).outputs["Output"][0].dims(), (DDim{1, 16, 16, 16}));
}

TEST(Conv2dOp, EmptyBatch) {
  ConvCase c{{0, 3, 5, 5}, {2, 3, 3, 3}, {1, 1}, {1, 1}};
  auto r = RunConv<float>(c, MakeInputs(c, 3));
  EXPECT_EQ(r.outputs["Output"][0].dims(), (DDim{0, 2, 5, 5}));
}

// Runs `fn` with a CPU context of `threads` threads.
template <typename Fn>
void WithThreads(int threads, Fn&& fn) {
  const int old = FLAGS_paddle_num_threads;
  FLAGS_paddle_num_threads = threads;
  platform::DeviceContextPool::Instance().Clear();
  fn();
  FLAGS_paddle_num_threads = old;
  platform::DeviceContextPool::Instance().Clear();
}

TEST(Conv2dOp, SeveralThreadsAreCorrectAndReproducible) {
  // Batches below and above the thread count take the two ways of splitting the work.
  const std::vector<ConvCase> cases = {
      {{2, 6, 9, 9}, {8, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2},
      {{8, 4, 7, 7}, {6, 4, 3, 3}, {2, 2}, {1, 1}},
      {{8, 4, 7, 7}, {8, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 4},
  };
  WithThreads(4, [&] {
    unsigned seed = 50;
    for (const ConvCase& c : cases) {
      SCOPED_TRACE(c.Name());
      const Inputs v = MakeInputs(c, seed += 2);
      DDim dims;
      const std::vector<double> expected = ReferenceConv(c, v.input, v.filter, &dims);
      const std::vector<double> a = ToDoubles(RunConv<double>(c, v).outputs["Output"][0]);
      ExpectNear(a, expected, 1e-12, 1e-12 * Terms(c), c.Name());
      EXPECT_EQ(a, ToDoubles(RunConv<double>(c, v).outputs["Output"][0]));
      // Gradients: two runs agree bitwise.
      auto grads = [&] {
        return NthGradient(c.op,
                           {{"Input", {MakeTensor<double>(c.input, v.input)}},
                            {"Filter", {MakeTensor<double>(c.filter, v.filter)}}},
                           {{"Output", 1}}, c.Attrs(), 1);
      };
      auto g1 = grads(), g2 = grads();
      ASSERT_EQ(g1.size(), 2u);
      for (const auto& kv : g1) {
        EXPECT_EQ(ToDoubles(kv.second), ToDoubles(g2[kv.first])) << kv.first;
      }
    }
  });
}

// ---------------------------------------------------------------------------- gradients

TEST(Conv2dGrad, MatchesFiniteDifferences) {
  std::vector<ConvCase> cases = {
      {{1, 1, 4, 4}, {2, 1, 3, 3}, {1, 1}, {1, 1}},
      {{1, 2, 3, 4}, {2, 2, 2, 2}, {2, 1}, {1, 0, 1, 2}},
      {{1, 2, 3, 3}, {2, 1, 2, 2}, {1, 1}, {0, 0}, {1, 1}, 2},
      {{1, 1, 5, 5}, {1, 1, 2, 2}, {1, 1}, {1, 1}, {2, 2}},
      {{2, 1, 3, 3}, {2, 1, 2, 2}, {1, 1}, {0, 0}},
      {{1, 1, 5, 4}, {1, 1, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, "SAME"},
      {{2, 3, 2, 2}, {2, 3, 1, 1}},
      {{1, 3, 3, 2}, {2, 2, 2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, "EXPLICIT", "NHWC"},
      {{1, 3, 3, 2}, {4, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, 2, "EXPLICIT", "NHWC"},
  };
  ConvCase dw{{1, 2, 4, 3}, {4, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, 2};
  dw.op = "depthwise_conv2d";
  cases.push_back(dw);
  unsigned seed = 300;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.Name());
    const Inputs v = MakeInputs(c, seed += 2);
    GradCheck g;
    g.op_type = c.op;
    g.inputs = {{"Input", {MakeTensor<double>(c.input, v.input)}},
                {"Filter", {MakeTensor<double>(c.filter, v.filter)}}};
    g.outputs = {{"Output", 1}};
    g.attrs = c.Attrs();
    g.eps = 1e-4;  // conv2d is linear in each input: differences are exact up to rounding.
    g.rtol = 1e-6;
    g.atol = 1e-8;
    CheckGradients(g);
    if (&c == &cases.front()) {
      for (const char* side : {"Input", "Filter"}) {
        g.wrt = {side};
        CheckGradients(g);
      }
    }
  }
}

TEST(Conv2dGrad, FusedGradOpNamesOnlyWhatItReads) {
  operators::RegisterAllOps();
  for (const std::string type : {"conv2d", "depthwise_conv2d"}) {
    framework::ProgramDesc p;
    framework::BlockDesc& b = p.Block(0);
    for (const auto& kv : std::map<std::string, std::vector<int64_t>>{{"x", {2, 2, 5, 5}},
                                                                      {"w", {4, 1, 3, 3}}}) {
      framework::VarDesc* var = b.Var(kv.first);
      var->SetDataType(DataType::FLOAT32);
      var->SetShape(kv.second);
    }
    auto add = [&b](const std::string& t, const framework::VariableNameMap& in,
                    const framework::VariableNameMap& out, const AttributeMap& attrs) {
      framework::OpDesc* o = b.AppendOp();
      o->SetType(t);
      for (const auto& kv : in) o->SetInput(kv.first, kv.second);
      for (const auto& kv : out) o->SetOutput(kv.first, kv.second);
      for (const auto& kv : attrs) o->SetAttr(kv.first, kv.second);
      framework::InferVarTypeAndShape(o, &b);
    };
    add(type, {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
        {{"groups", 2}, {"paddings", std::vector<int>{1, 1}}});
    EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{2, 4, 5, 5}));
    add("reduce_sum", {{"X", {"y"}}}, {{"Out", {"loss"}}},
        {{"reduce_all", true}, {"dim", std::vector<int>{}}});
    framework::AppendBackward(&p, "loss");
    const framework::OpDesc* grad = nullptr;
    for (size_t i = 0; i < b.OpSize(); ++i) {
      if (b.Op(i)->Type() == type + "_grad") grad = b.Op(i);
    }
    ASSERT_NE(grad, nullptr) << type;
    EXPECT_EQ(grad->Input("Input"), std::vector<std::string>{"x"});
    EXPECT_EQ(grad->Input("Filter"), std::vector<std::string>{"w"});
    EXPECT_EQ(grad->Input("Output@GRAD"), std::vector<std::string>{"y@GRAD"});
    EXPECT_FALSE(grad->HasInput("Output"));
    EXPECT_EQ(grad->Output("Input@GRAD"), std::vector<std::string>{"x@GRAD"});
    EXPECT_EQ(grad->Output("Filter@GRAD"), std::vector<std::string>{"w@GRAD"});
    EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{2, 2, 5, 5}));
    EXPECT_EQ(b.FindVar("w@GRAD")->GetShape(), (std::vector<int64_t>{4, 1, 3, 3}));
  }
}

// ---------------------------------------------------------------------------- oneDNN

class Conv2dOneDNNTest : public OneDNNKernelTestBase {};

TEST_F(Conv2dOneDNNTest, MatchesPlainKernel) {
  std::vector<ConvCase> cases = ForwardCases();
  cases.push_back({{1, 32, 14, 14}, {32, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 32});
  cases.push_back({{2, 24, 10, 10}, {48, 24, 1, 1}});
  // 8 or more input channels per group: the primitive's own (blocked) activation formats.
  cases.push_back({{2, 6, 6, 16}, {8, 16, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, "EXPLICIT", "NHWC"});
  cases.push_back({{1, 16, 7, 7}, {12, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2});
  cases.push_back({{2, 20, 12, 12}, {50, 20, 5, 5}});
  unsigned seed = 700;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.Name());
    const Inputs v = MakeInputs(c, seed += 2);
    OpRunResult onednn, plain;
    {
      ScopedFlag flag(&FLAGS_use_onednn, true);
      onednn = RunConv<float>(c, v);
    }
    {
      ScopedFlag flag(&FLAGS_use_onednn, false);
      plain = RunConv<float>(c, v);
    }
    EXPECT_EQ(onednn.kernel->key.backend, LibraryType::kOneDNN);
    EXPECT_EQ(plain.kernel->key.backend, LibraryType::kPlain);
    EXPECT_EQ(onednn.outputs["Output"][0].dims(), plain.outputs["Output"][0].dims());
    ExpectNear(ToDoubles(onednn.outputs["Output"][0]), ToDoubles(plain.outputs["Output"][0]), 1e-5,
               2e-6 * Terms(c), c.Name());
  }
}

TEST_F(Conv2dOneDNNTest, DoubleUsesPlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  ConvCase c{{1, 2, 5, 5}, {2, 2, 3, 3}};
  EXPECT_EQ(RunConv<double>(c, MakeInputs(c, 9)).kernel->key.backend, LibraryType::kPlain);
}

// ---------------------------------------------------------------------------- errors

void RunShapes(const DDim& input, const DDim& filter, const AttributeMap& attrs,
               const std::string& op = "conv2d") {
  RunOp(op,
        {{"Input", {MakeTensor<float>(input, std::vector<double>(input.numel(), 1))}},
         {"Filter", {MakeTensor<float>(filter, std::vector<double>(filter.numel(), 1))}}},
        {{"Output", 1}}, attrs);
}

TEST(Conv2dOp, Errors) {
  using platform::InvalidArgumentError;
  ExpectError<InvalidArgumentError>([] { RunShapes({1, 3, 5, 5}, {3, 3}, {}); },
                                    {"op `conv2d` input `Filter`: expected 4-D tensor, received "
                                     "shape [3, 3]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({3, 5, 5}, {2, 3, 3, 3}, {}); },
      {"op `conv2d` input `Input`: expected 4-D tensor", "[3, 5, 5]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 4, 5, 5}, {2, 3, 3, 3}, {}); },
      {"op `conv2d` input `Filter`", "groups = 1", "[2, 3, 3, 3]", "[1, 4, 5, 5]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 4, 5, 5}, {3, 2, 3, 3}, {{"groups", 2}}); },
      {"op `conv2d` input `Filter`", "divisible by groups = 2"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 4, 5, 5}, {4, 1, 3, 3}, {{"groups", 2}}, "depthwise_conv2d"); },
      {"op `depthwise_conv2d` input `Filter`", "groups = 2"});
  ExpectError<InvalidArgumentError>([] { RunShapes({1, 1, 2, 2}, {1, 1, 3, 3}, {}); },
                                    {"op `conv2d`: output height would be 0", "expected > 0"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 1, 5, 5}, {1, 1, 3, 3}, {{"paddings", std::vector<int>{1, 1, 1}}}); },
      {"op `conv2d` attribute `paddings`", "[1, 1, 1]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 1, 5, 5}, {1, 1, 3, 3}, {{"strides", std::vector<int>{0, 1}}}); },
      {"op `conv2d` attribute `strides`", "[0, 1]"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 1, 5, 5}, {1, 1, 3, 3}, {{"data_format", std::string("NCDHW")}}); },
      {"op `conv2d` attribute `data_format`", "NCDHW"});
  ExpectError<InvalidArgumentError>(
      [] { RunShapes({1, 1, 5, 5}, {1, 1, 3, 3}, {{"padding_algorithm", std::string("FULL")}}); },
      {"op `conv2d` attribute `padding_algorithm`", "FULL"});
  // Fused bias, residual and activations are conv_fusion_test's; a relu of the input is not
  // implemented.
  ExpectError<platform::UnimplementedError>(
      [] {
        RunShapes({1, 1, 5, 5}, {1, 1, 3, 3}, {{"fuse_relu_before_depthwise_conv", true}});
      },
      {"op `conv2d` attribute `fuse_relu_before_depthwise_conv`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
