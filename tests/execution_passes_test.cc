// ApplyExecutionPasses on training programs: fuse_relu_grad_pass, then
// fuse_pool_relu_grad_pass (relu -> pool2d's two gradient ops as fused_relu_pool2d_grad),
// then fuse_conv_bias_relu_pass (conv2d -> bias add -> relu as one conv2d), what each leaves
// alone, and the gradients being those of the unfused program.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/execution_profile.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "framework/var_type_inference.h"
#include "operators/registry.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// A program built op by op, each op's outputs declared by its shape inference.
struct InferredProgram : ProgramWithParams {
  void Add(const std::string& type, const framework::VariableNameMap& in,
           const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
    framework::OpDesc* op = Op(type, in, out, attrs);
    framework::InferVarTypeAndShape(op, &program.Block(0));
  }
  framework::OpDesc* Find(const std::string& type) {
    for (framework::OpDesc* op : program.Block(0).AllOps()) {
      if (op->Type() == type) return op;
    }
    return nullptr;
  }
};

// x * w -> relu -> pool2d -> mean, with its backward.
struct ReluPoolProgram : InferredProgram {
  explicit ReluPoolProgram(const std::string& pooling = "max") {
    operators::RegisterAllOps();
    Declare("x", {2, 3, 6, 6}, false);
    Param("w", {2, 3, 6, 6});
    Add("elementwise_mul", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"c"}}});
    Add("relu", {{"X", {"c"}}}, {{"Out", {"r"}}});
    Add("pool2d", {{"X", {"r"}}}, {{"Out", {"p"}}},
        {{"pooling_type", pooling},
         {"ksize", std::vector<int>{3, 3}},
         {"strides", std::vector<int>{2, 2}},
         {"paddings", std::vector<int>{1, 1}}});
    Add("mean", {{"X", {"p"}}}, {{"Out", {"loss"}}});
    framework::AppendBackward(&program, "loss");
  }
  // x@GRAD and w@GRAD from a run on the plain kernels.
  std::vector<std::vector<double>> Gradients() const {
    framework::Scope scope;
    Fill(&scope);
    const DenseTensor x = MakeTensor<float>(DDim({2, 3, 6, 6}), RandomValues(216, -1, 1, 5));
    ScopedFlag plain(&FLAGS_use_onednn, false);
    framework::Executor exec{platform::CPUPlace()};
    std::vector<std::vector<double>> grads;
    for (const DenseTensor& t : exec.Run(program, &scope, {{"x", x}}, {"x@GRAD", "w@GRAD"})) {
      grads.push_back(ToDoubles(t));
    }
    return grads;
  }
};

size_t Count(const std::vector<std::string>& types, const std::string& type) {
  return static_cast<size_t>(std::count(types.begin(), types.end(), type));
}

TEST(ExecutionPasses, ReluThenPoolingGradientsBecomeOneOpWithTheSameGradients) {
  for (const std::string pooling : {"max", "avg"}) {
    SCOPED_TRACE(pooling);
    ReluPoolProgram unfused(pooling), fused(pooling);
    EXPECT_EQ(framework::ApplyExecutionPasses(&fused.program), 2);
    const std::vector<std::string> types = OpTypes(fused.program);
    EXPECT_EQ(Count(types, "relu_grad"), 0u);
    EXPECT_EQ(Count(types, "pool2d_grad"), 0u);
    EXPECT_EQ(Count(types, "sign"), 0u);
    const framework::OpDesc* op = fused.Find(framework::kFusedReluPool2dGrad);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->Input("X"), std::vector<std::string>{"r"});
    EXPECT_EQ(op->Input("Out"), std::vector<std::string>{"p"});
    EXPECT_EQ(op->Input("Out@GRAD"), std::vector<std::string>{"p@GRAD"});
    EXPECT_EQ(op->Output("X@GRAD"), std::vector<std::string>{"c@GRAD"});
    EXPECT_EQ(op->Attr<std::string>("pooling_type"), pooling);
    EXPECT_EQ(op->Attr<std::vector<int>>("paddings"), (std::vector<int>{1, 1}));
    EXPECT_EQ(fused.program.Block(0).FindVar("r@GRAD"), nullptr) << "the temporary is gone";
    EXPECT_EQ(fused.Gradients(), unfused.Gradients());
  }
}

// conv2d -> bias add -> relu -> pool2d, as in LeNet. The bias gradient's reduce_as becomes
// the fused pooling gradient's ChannelSum. On oneDNN the convolution's output stays
// channel-last or blocked, and the fused pooling gradient, where relu's output dies, is
// granted its buffer: over disjoint windows (the loop over channel runs) it writes there;
// over overlapping ones (oneDNN's primitive, then the relu mask, which reads X last) it
// writes a buffer of its own. Either way the gradients are the plain kernels' on the
// unfused program.
TEST(ExecutionPasses, ConvBiasReluPoolGradientsFuseWithTheSameGradients) {
  // One input channel: oneDNN writes the 20 channels channel-last (LeNet's first layer);
  // three: in 16-channel blocks. Blocks with padding lanes (20 channels in blocks of 16)
  // are not granted (they need more bytes than the relu output's row-major size).
  // Without the relu, pool2d_grad is granted the bias add's output.
  struct Case {
    int in_channels, channels, window, stride;
    std::string data_format;
    bool relu = true;
  };
  for (const Case& c :
       {Case{1, 20, 2, 2, "NCHW"}, Case{3, 16, 2, 2, "NCHW"}, Case{1, 20, 3, 2, "NCHW"},
        Case{2, 8, 2, 2, "NHWC"}, Case{1, 20, 2, 2, "NCHW", false}}) {
    const bool nhwc = c.data_format == "NHWC";
    SCOPED_TRACE("channels " + std::to_string(c.in_channels) + " -> " + std::to_string(c.channels) +
                 ", window " + std::to_string(c.window) + ", stride " + std::to_string(c.stride) +
                 ", " + c.data_format + (c.relu ? "" : ", no relu"));
    const std::vector<int64_t> x_shape = nhwc ? std::vector<int64_t>{2, 12, 12, c.in_channels}
                                              : std::vector<int64_t>{2, c.in_channels, 12, 12};
    auto build = [&](InferredProgram* p) {
      operators::RegisterAllOps();
      p->Declare("x", x_shape, false);
      p->Param("w", {c.channels, c.in_channels, 3, 3});
      p->Param("b", {c.channels});
      p->Add("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
             {{"strides", std::vector<int>{1, 1}},
              {"paddings", std::vector<int>{0, 0}},
              {"data_format", c.data_format}});
      p->Add("elementwise_add", {{"X", {"c"}}, {"Y", {"b"}}}, {{"Out", {"cb"}}},
             {{"axis", nhwc ? -1 : 1}});
      if (c.relu) p->Add("relu", {{"X", {"cb"}}}, {{"Out", {"r"}}});
      p->Add("pool2d", {{"X", {c.relu ? "r" : "cb"}}}, {{"Out", {"p"}}},
             {{"pooling_type", std::string("max")},
              {"ksize", std::vector<int>{c.window, c.window}},
              {"strides", std::vector<int>{c.stride, c.stride}},
              {"paddings", std::vector<int>{0, 0}},
              {"data_format", c.data_format}});
      p->Add("mean", {{"X", {"p"}}}, {{"Out", {"loss"}}});
      framework::AppendBackward(&p->program, "loss");
    };
    InferredProgram unfused, fused;
    build(&unfused);
    build(&fused);
    framework::ApplyExecutionPasses(&fused.program);
    const std::string pool_grad_type = c.relu ? framework::kFusedReluPool2dGrad : "pool2d_grad";
    const framework::OpDesc* pool_grad = fused.Find(pool_grad_type);
    ASSERT_NE(pool_grad, nullptr);
    if (c.relu) {
      EXPECT_EQ(pool_grad->Output("ChannelSum"), std::vector<std::string>{"b@GRAD"});
      for (const framework::OpDesc* op : fused.program.Block(0).AllOps()) {
        if (op->Type() == "reduce_as") {
          EXPECT_NE(op->Output("Out"), pool_grad->Output("ChannelSum"));
        }
      }
    }
    const DDim x_dims(x_shape);
    const DenseTensor x = MakeTensor<float>(x_dims, RandomValues(x_dims.numel(), -1, 1, 17));
    const std::vector<std::string> fetches = {"x@GRAD", "w@GRAD", "b@GRAD"};
    auto run = [&](const InferredProgram& p, bool onednn, framework::ExecutionProfile* profile) {
      ScopedFlag flag(&FLAGS_use_onednn, onednn);
      framework::Scope scope;
      p.Fill(&scope);
      framework::Executor::RunOptions options;
      options.profile = profile;
      std::vector<std::vector<double>> grads;
      for (const DenseTensor& t : framework::Executor(platform::CPUPlace())
                                      .Run(p.program, &scope, {{"x", x}}, fetches, options)) {
        grads.push_back(ToDoubles(t));
      }
      return grads;
    };
    const auto expected = run(unfused, false, nullptr);
    for (const bool onednn : {false, true}) {
      SCOPED_TRACE(onednn ? "oneDNN" : "plain");
      framework::ExecutionProfile profile;
      const auto got = run(fused, onednn, &profile);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ExpectNear(got[i], expected[i], 1e-5, 1e-6, fetches[i]);
      }
      if (!onednn || nhwc) continue;
      bool granted = false;
      const std::string grant = c.relu ? "r -> cb@GRAD" : "cb -> cb@GRAD";
      for (const framework::OpRecord& op : profile.ops) {
        if (op.type != pool_grad_type) continue;
        EXPECT_EQ(op.key.backend, framework::LibraryType::kOneDNN);
        granted = op.in_place == std::vector<std::string>{grant};
      }
      EXPECT_TRUE(granted) << "the pooling's input dies at its gradient, which may write over it";
    }
  }
}

// A bias gradient that is not one value per channel stays a reduce_as.
TEST(ExecutionPasses, BiasGradientNotPerChannelStaysApart) {
  InferredProgram p;
  operators::RegisterAllOps();
  p.Declare("x", {2, 3, 6, 6}, false);
  p.Param("b", {6});  // Added along the width.
  p.Add("elementwise_add", {{"X", {"x"}}, {"Y", {"b"}}}, {{"Out", {"cb"}}}, {{"axis", -1}});
  p.Add("relu", {{"X", {"cb"}}}, {{"Out", {"r"}}});
  p.Add("pool2d", {{"X", {"r"}}}, {{"Out", {"p"}}},
        {{"pooling_type", std::string("max")},
         {"ksize", std::vector<int>{2, 2}},
         {"strides", std::vector<int>{2, 2}}});
  p.Add("mean", {{"X", {"p"}}}, {{"Out", {"loss"}}});
  framework::AppendBackward(&p.program, "loss");
  framework::ApplyExecutionPasses(&p.program);
  const framework::OpDesc* pool_grad = p.Find(framework::kFusedReluPool2dGrad);
  ASSERT_NE(pool_grad, nullptr);
  EXPECT_FALSE(pool_grad->HasOutput("ChannelSum"));
  bool reduced = false;
  for (const framework::OpDesc* op : p.program.Block(0).AllOps()) {
    reduced |= op->Type() == "reduce_as" && op->Output("Out") == std::vector<std::string>{"b@GRAD"};
  }
  EXPECT_TRUE(reduced);
}

TEST(ExecutionPasses, PoolingAndReluGradientsStayApartWhereFusingWouldChangeSomething) {
  {
    SCOPED_TRACE("relu's output gradient kept for the caller");
    ReluPoolProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {"r@GRAD"}), 1);
    EXPECT_NE(p.Find("pool2d_grad"), nullptr);
    EXPECT_NE(p.Find("relu_grad"), nullptr);
  }
  {
    SCOPED_TRACE("relu's output gradient read by another op");
    ReluPoolProgram p;
    p.Add("scale", {{"X", {"r@GRAD"}}}, {{"Out", {"seen"}}});
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 1);
    EXPECT_NE(p.Find("pool2d_grad"), nullptr);
  }
  {
    SCOPED_TRACE("relu_grad's mask is not the pooling's input");
    ReluPoolProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {"r@GRAD"}), 1);
    p.Find("relu_grad")->SetInput("Out", {"c"});
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 0);
  }
  {
    SCOPED_TRACE("a device without a kernel of the fused op");
    ReluPoolProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {}, platform::CUDAPlace(0)), 1);
    EXPECT_NE(p.Find("pool2d_grad"), nullptr);
    EXPECT_NE(p.Find("relu_grad"), nullptr);
  }
  {
    SCOPED_TRACE("the two ops placed differently");
    ReluPoolProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {"r@GRAD"}), 1);
    p.Find("pool2d_grad")->SetAttr("use_mkldnn", true);
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 0);
    p.Find("relu_grad")->SetAttr("use_mkldnn", true);
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 1);
  }
}

// conv2d -> elementwise_add(b) -> relu -> mean, with its backward; NCHW (bias on axis 1) or
// NHWC (axis -1).
struct ConvBiasReluProgram : InferredProgram {
  explicit ConvBiasReluProgram(bool channel_last = false) {
    operators::RegisterAllOps();
    const std::vector<int64_t> x_shape =
        channel_last ? std::vector<int64_t>{2, 7, 7, 3} : std::vector<int64_t>{2, 3, 7, 7};
    Declare("x", x_shape, false);
    Param("w", {4, 3, 3, 3});
    Param("b", {4});
    Add("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
        {{"strides", std::vector<int>{1, 1}},
         {"paddings", std::vector<int>{1, 1}},
         {"data_format", std::string(channel_last ? "NHWC" : "NCHW")}});
    Add("elementwise_add", {{"X", {"c"}}, {"Y", {"b"}}}, {{"Out", {"a"}}},
        {{"axis", channel_last ? -1 : 1}});
    Add("relu", {{"X", {"a"}}}, {{"Out", {"r"}}});
    Add("mean", {{"X", {"r"}}}, {{"Out", {"loss"}}});
    framework::AppendBackward(&program, "loss");
  }
  size_t CountOf(const std::string& type) const { return Count(OpTypes(program), type); }
  // The loss and the gradients of x, w and b, from a run on the plain or the oneDNN kernels.
  std::vector<std::vector<double>> Run(bool onednn) const {
    framework::Scope scope;
    Fill(&scope);
    const framework::VarDesc* x = program.Block(0).FindVar("x");
    const DDim dims(x->GetShape());
    const DenseTensor input = MakeTensor<float>(dims, RandomValues(dims.numel(), -1, 1, 7));
    ScopedFlag library(&FLAGS_use_onednn, onednn);
    framework::Executor exec{platform::CPUPlace()};
    std::vector<std::vector<double>> values;
    for (const DenseTensor& t :
         exec.Run(program, &scope, {{"x", input}}, {"loss", "x@GRAD", "w@GRAD", "b@GRAD"})) {
      values.push_back(ToDoubles(t));
    }
    return values;
  }
};

TEST(ExecutionPasses, ConvBiasAndReluBecomeOneConvWithTheSameLossAndGradients) {
  for (bool channel_last : {false, true}) {
    SCOPED_TRACE(channel_last ? "NHWC" : "NCHW");
    ConvBiasReluProgram unfused(channel_last), fused(channel_last);
    EXPECT_EQ(framework::ApplyExecutionPasses(&fused.program, {"loss"}), 2);  // + relu_grad.
    EXPECT_EQ(fused.CountOf("elementwise_add"), 0u);
    EXPECT_EQ(fused.CountOf("relu"), 0u);
    const framework::OpDesc* conv = nullptr;
    for (const framework::OpDesc* op : fused.program.Block(0).AllOps()) {
      if (op->Type() == "conv2d") conv = op;
      // The add's gradient reads the relu's output for its shape; c and a are gone.
      if (op->Type() == "reduce_as" && op->Input("X") != std::vector<std::string>{"b"}) {
        EXPECT_NE(op->Input("Target"), std::vector<std::string>{"c"});
      }
    }
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->Input("Bias"), std::vector<std::string>{"b"});
    EXPECT_EQ(conv->Attr<std::string>("fuse_activation"), "relu");
    EXPECT_EQ(conv->Output("Output"), std::vector<std::string>{"r"});
    EXPECT_EQ(fused.program.Block(0).FindVar("c"), nullptr);
    for (bool onednn : {false, true}) {
      SCOPED_TRACE(onednn ? "oneDNN kernels" : "plain kernels");
      const auto want = unfused.Run(onednn), got = fused.Run(onednn);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        ASSERT_EQ(got[k].size(), want[k].size()) << k;
        for (size_t i = 0; i < want[k].size(); ++i) {
          EXPECT_NEAR(got[k][i], want[k][i], 1e-6 * (1 + std::abs(want[k][i])))
              << "output " << k << " element " << i;
        }
      }
    }
  }
}

TEST(ExecutionPasses, ConvBiasAndReluStayApartWhereFusingWouldChangeSomething) {
  {
    SCOPED_TRACE("the conv's output kept for the caller");
    ConvBiasReluProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {"c"}), 1);
    EXPECT_EQ(p.CountOf("elementwise_add"), 1u);
  }
  {
    SCOPED_TRACE("the conv's output read by another op");
    ConvBiasReluProgram p;
    p.Add("scale", {{"X", {"c"}}}, {{"Out", {"seen"}}});
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 1);
    EXPECT_EQ(p.CountOf("relu"), 1u);
  }
  {
    SCOPED_TRACE("a bias on another axis");
    ConvBiasReluProgram p;
    for (framework::OpDesc* op : p.program.Block(0).AllOps()) {
      if (op->Type() == "elementwise_add") op->SetAttr("axis", 0);
    }
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 1);
    EXPECT_EQ(p.CountOf("elementwise_add"), 1u);
  }
  {
    SCOPED_TRACE("a conv with a bias of its own");
    ConvBiasReluProgram p;
    p.Param("b2", {4});
    for (framework::OpDesc* op : p.program.Block(0).AllOps()) {
      if (op->Type() == "conv2d") op->SetInput("Bias", {"b2"});
    }
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program), 1);
    EXPECT_EQ(p.CountOf("relu"), 1u);
  }
  {
    SCOPED_TRACE("a GPU place");
    ConvBiasReluProgram p;
    EXPECT_EQ(framework::ApplyExecutionPasses(&p.program, {}, platform::CUDAPlace(0)), 1);
    EXPECT_EQ(p.CountOf("relu"), 1u);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
