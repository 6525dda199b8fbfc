// conv2d_transpose and depthwise_conv2d_transpose: forward against a direct scatter loop in
// double (strides, paddings, SAME / VALID, dilations, groups, output_padding, output_size,
// NHWC, Bias; float and double; plain and oneDNN kernels), gradients against finite
// differences, and error messages.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/scope.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/flags.h"
#include "tests/conv_pool_test_util.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class Conv2dTranspose : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

DenseTensor Out(const OpRunResult& r, const std::string& slot) { return r.outputs.at(slot)[0]; }

// Direct loops, independent of the op's code: every input pixel adds filter * value into the
// output pixels its taps reach.
std::vector<double> ReferenceTranspose(const ConvTransposeCase& c, const std::vector<double>& in,
                                       const std::vector<double>& w, DDim* out_dims) {
  const bool nhwc = c.data_format == "NHWC";
  const int64_t n_ = c.input[0], ci = nhwc ? c.input[3] : c.input[1];
  const int64_t h_ = nhwc ? c.input[1] : c.input[2], w_ = nhwc ? c.input[2] : c.input[3];
  const int64_t mg = c.filter[1], kh = c.filter[2], kw = c.filter[3];
  const int64_t co = mg * c.groups, cg = ci / c.groups;
  int64_t pad[4];
  if (c.paddings.size() == 2) {
    pad[0] = pad[1] = c.paddings[0];
    pad[2] = pad[3] = c.paddings[1];
  } else {
    for (int i = 0; i < 4; ++i) pad[i] = c.paddings[i];
  }
  int64_t d[2] = {c.dilations[0], c.dilations[1]};
  const int64_t s[2] = {c.strides[0], c.strides[1]}, k[2] = {kh, kw}, in_hw[2] = {h_, w_};
  if (c.algorithm == "VALID") std::fill(pad, pad + 4, 0);
  if (c.algorithm == "SAME") {
    d[0] = d[1] = 1;
    for (int a = 0; a < 2; ++a) {
      const int64_t out = (in_hw[a] + s[a] - 1) / s[a];
      const int64_t sum = std::max<int64_t>((out - 1) * s[a] + k[a] - in_hw[a], 0);
      pad[2 * a] = sum / 2;
      pad[2 * a + 1] = sum - sum / 2;
    }
  }
  int64_t out_hw[2];
  for (int a = 0; a < 2; ++a) {
    out_hw[a] = (in_hw[a] - 1) * s[a] - pad[2 * a] - pad[2 * a + 1] + d[a] * (k[a] - 1) + 1;
    if (!c.output_size.empty()) {
      out_hw[a] = c.output_size[a];
    } else if (!c.output_padding.empty()) {
      out_hw[a] += c.output_padding[a];
    }
  }
  const int64_t oh = out_hw[0], ow = out_hw[1];
  *out_dims = nhwc ? DDim{n_, oh, ow, co} : DDim{n_, co, oh, ow};
  std::vector<double> out(static_cast<size_t>(n_ * co * oh * ow), 0.0);
  auto out_at = [&](int64_t n, int64_t m, int64_t y, int64_t x) -> double& {
    return nhwc ? out[((n * oh + y) * ow + x) * co + m] : out[((n * co + m) * oh + y) * ow + x];
  };
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c2 = 0; c2 < ci; ++c2) {
      const int64_t g = c2 / cg;
      for (int64_t y = 0; y < h_; ++y) {
        for (int64_t x = 0; x < w_; ++x) {
          const double v = nhwc ? in[((n * h_ + y) * w_ + x) * ci + c2]
                                : in[((n * ci + c2) * h_ + y) * w_ + x];
          for (int64_t m = 0; m < mg; ++m) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t oy = y * s[0] - pad[0] + i * d[0];
                const int64_t ox = x * s[1] - pad[2] + j * d[1];
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                out_at(n, g * mg + m, oy, ox) += v * w[((c2 * mg + m) * kh + i) * kw + j];
              }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<ConvTransposeCase> Cases() {
  std::vector<ConvTransposeCase> cases;
  auto add = [&](ConvTransposeCase c) { cases.push_back(c); };
  add({{1, 2, 3, 4}, {2, 3, 3, 3}});
  {
    ConvTransposeCase c{{2, 2, 4, 3}, {2, 3, 3, 2}};
    c.strides = {2, 3};
    c.paddings = {1, 0};
    add(c);
  }
  {
    ConvTransposeCase c{{1, 4, 3, 3}, {4, 2, 2, 3}};
    c.groups = 2;
    c.strides = {2, 1};
    c.paddings = {0, 1, 1, 0};
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 3}, {2, 1, 3, 3}};
    c.dilations = {2, 2};
    c.paddings = {2, 1};
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 4}, {2, 2, 3, 3}};
    c.strides = {2, 2};
    c.paddings = {1, 1};
    c.output_padding = {1, 0};
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 4}, {2, 2, 3, 3}};
    c.dilations = {2, 2};
    c.output_padding = {1, 1};  // A stride or more: a last row and column no tap reaches.
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 4}, {2, 2, 3, 3}};
    c.strides = {3, 2};
    c.paddings = {1, 1};
    c.output_size = {8, 8};  // Natural sizes 5 and 7.
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 4}, {2, 2, 3, 2}};
    c.strides = {2, 2};
    c.algorithm = "SAME";
    c.dilations = {3, 3};  // Ignored with SAME.
    add(c);
  }
  {
    ConvTransposeCase c{{1, 2, 3, 2}, {2, 1, 2, 3}};
    c.strides = {2, 2};
    c.paddings = {1, 1};
    c.algorithm = "VALID";
    add(c);
  }
  {
    ConvTransposeCase c{{2, 3, 4, 4}, {4, 3, 3, 3}};  // NHWC: 4 input channels.
    c.data_format = "NHWC";
    c.groups = 2;
    c.strides = {2, 2};
    c.paddings = {1, 1};
    add(c);
  }
  {
    ConvTransposeCase c{{1, 3, 4, 3}, {3, 2, 3, 3}};
    c.op = "depthwise_conv2d_transpose";
    c.groups = 3;
    c.strides = {2, 2};
    c.paddings = {1, 1};
    add(c);
  }
  return cases;
}

TEST_F(Conv2dTranspose, MatchesDirectLoopsInFloatAndDouble) {
  for (const ConvTransposeCase& c : Cases()) {
    SCOPED_TRACE(c.Name());
    const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, 3);
    const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, 4);
    DDim want_dims;
    const std::vector<double> want = ReferenceTranspose(c, in, w, &want_dims);
    const DenseTensor got_d =
        Out(RunOp(c.op, {{"Input", {MakeTensor<double>(c.input, in)}},
                         {"Filter", {MakeTensor<double>(c.filter, w)}}},
                  {{"Output", 1}}, c.Attrs()),
            "Output");
    ASSERT_EQ(got_d.dims(), want_dims);
    ExpectNear(ToDoubles(got_d), want, 1e-12, 1e-12, c.op);
    const DenseTensor got_f =
        Out(RunOp(c.op, {{"Input", {MakeTensor<float>(c.input, in)}},
                         {"Filter", {MakeTensor<float>(c.filter, w)}}},
                  {{"Output", 1}}, c.Attrs()),
            "Output");
    ExpectNear(ToDoubles(got_f), want, 1e-5, 1e-5, c.op);
  }
}

// PaddlePaddle's PIR programs may give output_size as values computed when the program runs
// (one-element tensors, OutputSizeTensorList): the same result as the attribute, on the plain
// kernel and on oneDNN's.
TEST_F(Conv2dTranspose, OutputSizeReadWhenTheProgramRuns) {
  ConvTransposeCase c{{1, 2, 3, 4}, {2, 2, 3, 3}};
  c.strides = {3, 2};
  c.paddings = {1, 1};
  const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, 13);
  const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, 14);
  for (const bool onednn : {false, true}) {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    for (const std::vector<int>& size : {std::vector<int>{8, 8}, std::vector<int>{9, 7}}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN " : "plain ") + operators::ListToString(size));
      c.output_size = size;
      DDim want_dims;
      const std::vector<double> want = ReferenceTranspose(c, in, w, &want_dims);
      framework::AttributeMap attrs = c.Attrs();
      attrs["output_size"] = std::vector<int>{};
      const DenseTensor got =
          Out(RunOp(c.op,
                    {{"Input", {MakeTensor<float>(c.input, in)}},
                     {"Filter", {MakeTensor<float>(c.filter, w)}},
                     {"OutputSizeTensorList",
                      {MakeTensor<int64_t>({1}, {static_cast<double>(size[0])}),
                       MakeTensor<int32_t>({1}, {static_cast<double>(size[1])})}}},
                    {{"Output", 1}}, attrs),
              "Output");
      ASSERT_EQ(got.dims(), want_dims);
      ExpectNear(ToDoubles(got), want, 1e-5, 1e-5, c.op);
    }
  }
  // A size outside [natural, natural + stride) names the input.
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        framework::AttributeMap attrs = c.Attrs();
        attrs["output_size"] = std::vector<int>{};
        RunOp(c.op,
              {{"Input", {MakeTensor<float>(c.input, in)}},
               {"Filter", {MakeTensor<float>(c.filter, w)}},
               {"OutputSizeTensorList",
                {MakeTensor<int64_t>({1}, {20}), MakeTensor<int64_t>({1}, {7})}}},
              {{"Output", 1}}, attrs);
      },
      {"op `conv2d_transpose`", "output_size", "20"});
}

// One prepared program run twice, the sizes changed between the runs and the input shapes
// not: the oneDNN kernel prepares its primitive again for the new size.
TEST_F(Conv2dTranspose, PreparedOneDNNKernelFollowsSizesThatChange) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  ConvTransposeCase c{{1, 8, 3, 4}, {8, 8, 3, 3}};
  c.strides = {3, 2};
  c.paddings = {1, 1};
  const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, 15);
  const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, 16);
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(c.op);
  op->SetInput("Input", {"x"});
  op->SetInput("Filter", {"w"});
  op->SetInput("OutputSizeTensorList", {"h", "wd"});
  op->SetOutput("Output", {"y"});
  framework::AttributeMap attrs = c.Attrs();
  attrs["output_size"] = std::vector<int>{};
  for (const auto& [name, value] : attrs) op->SetAttr(name, value);
  for (const char* name : {"x", "w", "h", "wd", "y"}) block.Var(name)->SetPersistable(true);
  framework::Scope scope;
  auto set = [&scope](const char* name, const DenseTensor& t) {
    framework::CopyTensor(t, platform::CPUPlace(),
                          scope.Var(name)->GetMutable<framework::DenseTensor>());
  };
  set("x", MakeTensor<float>(c.input, in));
  set("w", MakeTensor<float>(c.filter, w));
  framework::Executor exec{platform::CPUPlace()};
  std::unique_ptr<framework::PreparedProgram> prepared;
  for (const std::vector<int>& size :
       {std::vector<int>{8, 8}, std::vector<int>{9, 7}, std::vector<int>{8, 8}}) {
    SCOPED_TRACE(operators::ListToString(size));
    set("h", MakeTensor<int64_t>({1}, {static_cast<double>(size[0])}));
    set("wd", MakeTensor<int64_t>({1}, {static_cast<double>(size[1])}));
    if (prepared == nullptr) prepared = exec.Prepare(program, 0, &scope, {});
    exec.Run(prepared.get());
    c.output_size = size;
    DDim want_dims;
    const std::vector<double> want = ReferenceTranspose(c, in, w, &want_dims);
    const DenseTensor& got = scope.FindVar("y")->Get<framework::DenseTensor>();
    ASSERT_EQ(got.dims(), want_dims);
    ExpectNear(ToDoubles(got), want, 1e-5, 1e-5, c.op);
  }
}

// The backward of a transposed convolution sized at run time (9 x 7, not the natural 7 x 7)
// takes that size from Output@GRAD: plain and oneDNN kernels, NCHW and NHWC.
TEST_F(Conv2dTranspose, GradientOfAnOutputSizedAtRunTime) {
  for (const bool onednn : {false, true}) {
    for (const char* layout : {"NCHW", "NHWC"}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN " : "plain ") + layout);
      ScopedFlag flag(&FLAGS_use_onednn, onednn);
      const bool nhwc = std::string(layout) == "NHWC";
      ConvTransposeCase c{nhwc ? DDim{1, 3, 4, 2} : DDim{1, 2, 3, 4}, {2, 2, 3, 3}};
      c.strides = {3, 2};
      c.paddings = {1, 1};
      c.data_format = layout;
      GradCheck check;
      check.op_type = c.op;
      check.inputs = {
          {"Input", {MakeTensor<double>(c.input, RandomValues(c.input.numel(), -1, 1, 17))}},
          {"Filter", {MakeTensor<double>(c.filter, RandomValues(c.filter.numel(), -1, 1, 18))}},
          {"OutputSizeTensorList", {MakeTensor<int64_t>({1}, {9}), MakeTensor<int32_t>({1}, {7})}}};
      check.wrt = {"Input", "Filter"};
      check.outputs = {{"Output", 1}};
      check.attrs = c.Attrs();
      check.attrs["output_size"] = std::vector<int>{};
      CheckGradients(check);
    }
  }
}

TEST_F(Conv2dTranspose, GradientsMatchFiniteDifferences) {
  for (const ConvTransposeCase& c : Cases()) {
    SCOPED_TRACE(c.Name());
    GradCheck check;
    check.op_type = c.op;
    check.inputs = {{"Input", {MakeTensor<double>(c.input, RandomValues(c.input.numel(), -1, 1, 5))}},
                    {"Filter", {MakeTensor<double>(c.filter,
                                                   RandomValues(c.filter.numel(), -1, 1, 6))}}};
    check.outputs = {{"Output", 1}};
    check.attrs = c.Attrs();
    CheckGradients(check);
  }
}

TEST_F(Conv2dTranspose, BadShapesAndAttributesNameWhatIsWrong) {
  const DenseTensor x = MakeTensor<double>({1, 2, 3, 3}, RandomValues(18, -1, 1, 7));
  const DenseTensor w = MakeTensor<double>({2, 2, 3, 3}, RandomValues(36, -1, 1, 8));
  auto run = [&](const DenseTensor& input, const DenseTensor& filter, AttributeMap attrs) {
    RunOp("conv2d_transpose", {{"Input", {input}}, {"Filter", {filter}}}, {{"Output", 1}},
          attrs);
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(x, MakeTensor<double>({3, 2, 3, 3}, RandomValues(54, -1, 1, 9)), {}); },
      {"op `conv2d_transpose` input `Filter`", "expected dim 0 equal to the 2 channels"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(x, w, {{"strides", std::vector<int>{2, 2}}, {"output_size", std::vector<int>{9, 7}}});
      },
      {"attribute `output_size`", "height in [7, 9)", "received 9"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(x, w, {{"strides", std::vector<int>{2, 2}},
                   {"output_padding", std::vector<int>{0, 2}}});
      },
      {"attribute `output_padding`", "width in [0, max(stride 2, dilation 1))", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(x, w, {{"paddings", std::vector<int>{3, 0}}}); },
      {"op `conv2d_transpose`: output height would be -1", "expected > 0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(x, w, {{"groups", 3}}); },
      {"op `conv2d_transpose` input `Input`", "divisible by groups = 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(MakeTensor<double>({2, 3, 3}, RandomValues(18, -1, 1, 7)), w, {}); },
      {"op `conv2d_transpose` input `Input`", "expected 4-D"});
  // Filter [2, 2, 3, 3] with groups 1: 2 output channels.
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("conv2d_transpose",
              {{"Input", {x}}, {"Filter", {w}}, {"Bias", {MakeTensor<double>({3}, {1, 2, 3})}}},
              {{"Output", 1}}, {});
      },
      {"op `conv2d_transpose` input `Bias`", "expected shape [2]", "received [3]"});
}

// Bias[o] added to every value of output channel o, after the transposed convolution.
std::vector<double> AddBias(const ConvTransposeCase& c, const DDim& out_dims, std::vector<double> out,
                            const std::vector<double>& bias) {
  const bool nhwc = c.data_format == "NHWC";
  const int64_t channels = nhwc ? out_dims[3] : out_dims[1];
  const int64_t hw = out_dims[1] * out_dims[2] * out_dims[3] / channels;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t within = static_cast<int64_t>(i) % (channels * hw);
    out[i] += bias[nhwc ? within % channels : within / hw];
  }
  return out;
}

TEST_F(Conv2dTranspose, BiasIsAddedPerOutputChannel) {
  for (const ConvTransposeCase& c : Cases()) {
    SCOPED_TRACE(c.Name());
    const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, 13);
    const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, 14);
    const int64_t out_channels = c.filter[1] * c.groups;
    const std::vector<double> b = RandomValues(out_channels, -1, 1, 15);
    DDim dims;
    const std::vector<double> plain = ReferenceTranspose(c, in, w, &dims);
    const DenseTensor got =
        Out(RunOp(c.op, {{"Input", {MakeTensor<double>(c.input, in)}},
                         {"Filter", {MakeTensor<double>(c.filter, w)}},
                         {"Bias", {MakeTensor<double>({out_channels}, b)}}},
                  {{"Output", 1}}, c.Attrs()),
            "Output");
    ASSERT_EQ(got.dims(), dims);
    ExpectNear(ToDoubles(got), AddBias(c, dims, plain, b), 1e-12, 1e-12, c.op);
  }
}

// ---------------------------------------------------------------------------- oneDNN

class Conv2dTransposeOneDNN : public OneDNNKernelTestBase {};

// The plain cases, and larger ones where the primitive picks blocked formats (8 or more
// input channels per group), with and without Bias.
std::vector<ConvTransposeCase> OneDNNCases() {
  std::vector<ConvTransposeCase> cases = Cases();
  {
    ConvTransposeCase c{{2, 16, 7, 6}, {16, 8, 3, 3}};
    c.strides = {2, 2};
    c.paddings = {1, 1};
    c.output_padding = {1, 1};
    cases.push_back(c);
  }
  {
    ConvTransposeCase c{{1, 32, 5, 5}, {32, 8, 4, 4}};  // Two groups of 16 -> 8.
    c.groups = 2;
    c.strides = {2, 2};
    c.paddings = {1, 2, 1, 0};
    cases.push_back(c);
  }
  {
    ConvTransposeCase c{{1, 16, 6, 6}, {16, 1, 3, 3}};
    c.op = "depthwise_conv2d_transpose";
    c.groups = 16;
    c.strides = {2, 2};
    c.paddings = {1, 1};
    c.output_size = {12, 11};
    cases.push_back(c);
  }
  {
    ConvTransposeCase c{{2, 5, 4, 16}, {16, 12, 2, 2}};
    c.data_format = "NHWC";
    c.strides = {2, 2};
    cases.push_back(c);
  }
  {
    // output_padding of a stride or more, which dilation > stride allows.
    ConvTransposeCase c{{1, 8, 4, 4}, {8, 8, 3, 3}};
    c.dilations = {3, 2};
    c.output_padding = {2, 1};
    cases.push_back(c);
  }
  return cases;
}

TEST_F(Conv2dTransposeOneDNN, MatchesDirectLoopsWithAndWithoutBias) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  unsigned seed = 40;
  for (const ConvTransposeCase& c : OneDNNCases()) {
    for (const bool with_bias : {false, true}) {
      SCOPED_TRACE(c.Name() + (with_bias ? " with Bias" : ""));
      const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, ++seed);
      const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, ++seed);
      const int64_t out_channels = c.filter[1] * c.groups;
      const std::vector<double> b = RandomValues(out_channels, -1, 1, ++seed);
      DDim dims;
      std::vector<double> want = ReferenceTranspose(c, in, w, &dims);
      SlotTensors inputs = {{"Input", {MakeTensor<float>(c.input, in)}},
                            {"Filter", {MakeTensor<float>(c.filter, w)}}};
      if (with_bias) {
        inputs["Bias"] = {MakeTensor<float>({out_channels}, b)};
        want = AddBias(c, dims, want, b);
      }
      const OpRunResult r = RunOp(c.op, inputs, {{"Output", 1}}, c.Attrs());
      EXPECT_EQ(r.kernel->key.backend, framework::LibraryType::kOneDNN);
      const DenseTensor got = Out(r, "Output");
      ASSERT_EQ(got.dims(), dims);
      ExpectNear(ToDoubles(got), want, 1e-5, 1e-5, c.op);
    }
  }
}

// The oneDNN gradient kernel (a forward convolution for Input@GRAD, the convolution's
// weights gradient for Filter@GRAD) against the plain kernel in double, whose gradients
// GradientsMatchFiniteDifferences checks; both outputs, and each alone.
TEST_F(Conv2dTransposeOneDNN, GradientsMatchThePlainKernel) {
  unsigned seed = 80;
  for (const ConvTransposeCase& c : OneDNNCases()) {
    SCOPED_TRACE(c.Name());
    const std::string grad = c.op + "_grad";
    const std::vector<double> in = RandomValues(c.input.numel(), -1, 1, ++seed);
    const std::vector<double> w = RandomValues(c.filter.numel(), -1, 1, ++seed);
    DDim out_dims;
    ReferenceTranspose(c, in, w, &out_dims);
    const std::vector<double> dy = RandomValues(out_dims.numel(), -1, 1, ++seed);
    const auto inputs = [&](auto zero) {
      using T = decltype(zero);
      return SlotTensors{{"Input", {MakeTensor<T>(c.input, in)}},
                         {"Filter", {MakeTensor<T>(c.filter, w)}},
                         {"Output@GRAD", {MakeTensor<T>(out_dims, dy)}}};
    };
    OpRunResult want;
    {
      ScopedFlag plain(&FLAGS_use_onednn, false);
      want = RunOp(grad, inputs(0.0), {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
    }
    ScopedFlag onednn(&FLAGS_use_onednn, true);
    for (const auto& slots : std::vector<std::map<std::string, int>>{
             {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, {{"Input@GRAD", 1}}, {{"Filter@GRAD", 1}}}) {
      const OpRunResult got = RunOp(grad, inputs(0.0f), slots, c.Attrs());
      EXPECT_EQ(got.kernel->key.backend, framework::LibraryType::kOneDNN);
      for (const auto& [slot, n] : slots) {
        const DenseTensor& g = Out(got, slot);
        ASSERT_EQ(g.dims(), Out(want, slot).dims()) << slot;
        ExpectNear(ToDoubles(g), ToDoubles(Out(want, slot)), 1e-4, 1e-4, slot);
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
