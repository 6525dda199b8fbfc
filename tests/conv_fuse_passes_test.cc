// The conv fusion passes (inference/passes/conv_fuse_passes.h): on small programs with
// parameters, each pass's rewrite (ops left, inputs and attributes of the fused conv,
// parameters folded and dropped), the same numbers before and after (plain and oneDNN
// kernels, NCHW and NHWC, saved and reloaded), and the cases each must leave alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/ir/pass.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "platform/flags.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;

// A program with parameters, and the conv and batch_norm layers of the tests.
struct Model : ProgramWithParams {
  // conv (3x3, pad 1, `groups`) of `x` with a new filter `w`, output `y`.
  void Conv(const std::string& type, const std::string& x, const std::string& w,
            const std::string& y, int64_t in_c, int64_t out_c, int groups,
            const std::vector<int64_t>& out_shape, bool nhwc = false) {
    Param(w, {out_c, in_c / groups, 3, 3}, -0.5, 0.5);
    Declare(y, out_shape, false);
    Op(type, {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {y}}},
       {{"paddings", std::vector<int>{1, 1}}, {"groups", groups},
        {"data_format", std::string(nhwc ? "NHWC" : "NCHW")}});
  }
  // Inference batch_norm of `x` into `y` with new parameters `<prefix>.{scale,bias,mean,var}`.
  void BatchNorm(const std::string& x, const std::string& y, const std::string& prefix,
                 int64_t c, const std::vector<int64_t>& shape, bool is_test = true,
                 const std::string& layout = "NCHW") {
    Param(prefix + ".scale", {c}, 0.5, 1.5);
    Param(prefix + ".bias", {c}, -1, 1);
    Param(prefix + ".mean", {c}, -0.5, 0.5);
    Param(prefix + ".var", {c}, 0.2, 2);
    Declare(y, shape, false);
    Declare(prefix + ".saved_mean", {c}, false);
    Declare(prefix + ".saved_var", {c}, false);
    Op("batch_norm",
       {{"X", {x}}, {"Scale", {prefix + ".scale"}}, {"Bias", {prefix + ".bias"}},
        {"Mean", {prefix + ".mean"}}, {"Variance", {prefix + ".var"}}},
       {{"Y", {y}}, {"MeanOut", {prefix + ".mean"}}, {"VarianceOut", {prefix + ".var"}},
        {"SavedMean", {prefix + ".saved_mean"}}, {"SavedVariance", {prefix + ".saved_var"}}},
       {{"is_test", is_test}, {"epsilon", 1e-3f}, {"data_layout", layout}});
  }
};

// x [2, 8, 6, 6] -> conv2d -> + b[8] -> batch_norm -> + x (residual) -> relu
//   -> depthwise_conv2d -> batch_norm -> hard_swish -> out
Model ResidualBlock() {
  Model m;
  const std::vector<int64_t> act = {-1, 8, 6, 6};
  m.Declare("x", act, false);
  m.Conv("conv2d", "x", "w1", "y1", 8, 8, 1, act);
  m.Param("b1", {8}, -1, 1);
  m.Declare("a1", act, false);
  m.Op("elementwise_add", {{"X", {"y1"}}, {"Y", {"b1"}}}, {{"Out", {"a1"}}}, {{"axis", 1}});
  m.BatchNorm("a1", "n1", "bn1", 8, act);
  m.Declare("r1", act, false);
  m.Op("elementwise_add", {{"X", {"n1"}}, {"Y", {"x"}}}, {{"Out", {"r1"}}}, {{"axis", -1}});
  m.Declare("o1", act, false);
  m.Op("relu", {{"X", {"r1"}}}, {{"Out", {"o1"}}});
  m.Conv("depthwise_conv2d", "o1", "w2", "y2", 8, 8, 8, act);
  m.BatchNorm("y2", "n2", "bn2", 8, act);
  m.Declare("out", act, false);
  m.Op("hard_swish", {{"X", {"n2"}}}, {{"Out", {"out"}}},
       {{"threshold", 6.0f}, {"scale", 6.0f}, {"offset", 3.0f}});
  return m;
}

// Applies the inference passes in order; the rewrite count of each.
std::map<std::string, int> Optimize(ProgramDesc* p, Scope* params) {
  std::map<std::string, int> counts;
  for (const std::string& name : inference::InferencePassOrder()) {
    counts[name] = framework::ir::ApplyPass(*framework::ir::CreatePass(name), p, params);
  }
  return counts;
}

class ConvFusePassesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    inference::RegisterInferencePasses();
  }
};

TEST_F(ConvFusePassesTest, ResidualBlockBecomesTwoFusedConvsWithTheSameNumbers) {
  for (bool onednn : {false, true}) {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    ScopedFlag every_shape(&FLAGS_onednn_small_input_fallback, false);
    const Model m = ResidualBlock();
    const DenseTensor x = MakeTensor<float>(DDim{2, 8, 6, 6}, RandomValues(576, -1, 1, 5));
    Scope before_scope;
    m.Fill(&before_scope);
    const std::vector<double> before = RunProgram(m.program, &before_scope, x);

    ProgramDesc p = m.program;
    Scope params;
    m.Fill(&params);
    const auto counts = Optimize(&p, &params);
    EXPECT_EQ(counts.at("conv_bn_fuse_pass"), 2);
    EXPECT_EQ(counts.at("conv_bias_fuse_pass"), 0);  // The first bias went with its batch_norm.
    EXPECT_EQ(counts.at("conv_elementwise_add_fuse_pass"), 1);
    EXPECT_EQ(counts.at("conv_activation_fuse_pass"), 2);
    ASSERT_EQ(OpTypes(p), std::vector<std::string>({"conv2d", "depthwise_conv2d"}));
    const OpDesc& conv = *p.Block(0).Op(0);
    EXPECT_EQ(conv.Input("ResidualData"), std::vector<std::string>({"x"}));
    EXPECT_TRUE(conv.Attr<bool>("fuse_residual_connection"));
    EXPECT_EQ(conv.Attr<std::string>("fuse_activation"), "relu");
    EXPECT_EQ(conv.Output("Output"), std::vector<std::string>({"o1"}));
    const OpDesc& dw = *p.Block(0).Op(1);
    EXPECT_EQ(dw.Attr<std::string>("fuse_activation"), "hard_swish");
    EXPECT_EQ(dw.Output("Output"), std::vector<std::string>({"out"}));
    ASSERT_EQ(dw.Input("Bias").size(), 1u);
    // The batch_norm and bias parameters are gone; the folded bias is declared persistable.
    for (const char* gone : {"b1", "bn1.scale", "bn1.mean", "bn2.var", "y1", "a1", "n1", "n2"}) {
      EXPECT_FALSE(p.Block(0).HasVar(gone)) << gone;
      EXPECT_EQ(params.FindVar(gone), nullptr) << gone;
    }
    EXPECT_TRUE(p.Block(0).FindVar(dw.Input("Bias")[0])->Persistable());

    ExpectNear(RunProgram(p, &params, x), before, 1e-5, 1e-5, onednn ? "oneDNN" : "plain");
    const ProgramDesc reloaded = ProgramDesc::FromBinary(p.ToBinary());
    ExpectNear(RunProgram(reloaded, &params, x), before, 1e-5, 1e-5, "reloaded");
  }
}

// Statistics that would fold into a non-finite filter or bias (a negative variance, an
// infinite scale, a NaN mean) are refused by name, as PaddlePaddle's conv_bn_fuse_pass
// refuses them, and nothing is rewritten.
TEST_F(ConvFusePassesTest, DamagedBatchNormStatisticsAreRefused) {
  struct Damage {
    const char* param;
    float value;
    const char* what;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const Damage& d : {Damage{"bn1.var", -2.0f, "non-finite scale"},
                          Damage{"bn1.scale", inf, "non-finite scale"},
                          Damage{"bn1.mean", nan, "non-finite bias"}}) {
    const Model m = ResidualBlock();
    ProgramDesc p = m.program;
    Scope params;
    m.Fill(&params);
    params.FindVar(d.param)->GetMutable<DenseTensor>()->data<float>()[3] = d.value;
    const std::vector<double> filter = ToDoubles(params.FindVar("w1")->Get<DenseTensor>());
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          framework::ir::ApplyPass(*framework::ir::CreatePass("conv_bn_fuse_pass"), &p, &params);
        },
        {"op `batch_norm` (Y: n1): folding it into `conv2d` gives a ", d.what, "for channel 3",
         "Variance `bn1.var`", "the parameters are damaged"});
    EXPECT_EQ(OpTypes(p), OpTypes(m.program)) << d.param;
    EXPECT_EQ(ToDoubles(params.FindVar("w1")->Get<DenseTensor>()), filter) << d.param;
  }
}

TEST_F(ConvFusePassesTest, NhwcConvBiasAndSigmoid) {
  Model m;
  const std::vector<int64_t> act = {-1, 5, 5, 6};
  m.Declare("x", {-1, 5, 5, 4}, false);
  m.Conv("conv2d", "x", "w", "y", 4, 6, 1, act, /*nhwc=*/true);
  m.Param("b", {6}, -1, 1);
  m.Declare("a", act, false);
  m.Op("elementwise_add", {{"X", {"y"}}, {"Y", {"b"}}}, {{"Out", {"a"}}}, {{"axis", -1}});
  m.Declare("out", act, false);
  m.Op("sigmoid", {{"X", {"a"}}}, {{"Out", {"out"}}});
  const DenseTensor x = MakeTensor<float>(DDim{2, 5, 5, 4}, RandomValues(200, -1, 1, 9));
  Scope s1, s2;
  m.Fill(&s1);
  m.Fill(&s2);
  const std::vector<double> before = RunProgram(m.program, &s1, x);
  ProgramDesc p = m.program;
  const auto counts = Optimize(&p, &s2);
  EXPECT_EQ(counts.at("conv_bias_fuse_pass"), 1);
  EXPECT_EQ(counts.at("conv_activation_fuse_pass"), 1);
  ASSERT_EQ(OpTypes(p), std::vector<std::string>({"conv2d"}));
  EXPECT_EQ(p.Block(0).Op(0)->Input("Bias"), std::vector<std::string>({"b"}));
  ExpectNear(RunProgram(p, &s2, x), before, 1e-5, 1e-6, "NHWC");
}

// A decoder's upsampling: conv2d_transpose (two groups, stride 2) + bias + batch_norm + relu,
// then depthwise_conv2d_transpose + bias. The bias and batch_norm fold into the transposed
// convolutions (whose filters are [C_in, C_out / groups, kh, kw]); the relu stays.
TEST_F(ConvFusePassesTest, TransposedConvolutionsTakeBiasAndBatchNorm) {
  for (bool onednn : {false, true}) {
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN" : "plain") + (nhwc ? " NHWC" : " NCHW"));
      ScopedFlag flag(&FLAGS_use_onednn, onednn);
      ScopedFlag every_shape(&FLAGS_onednn_small_input_fallback, false);
      auto shape = [&](int64_t c, int64_t hw) {
        return nhwc ? std::vector<int64_t>{-1, hw, hw, c} : std::vector<int64_t>{-1, c, hw, hw};
      };
      const std::string layout = nhwc ? "NHWC" : "NCHW";
      Model m;
      m.Declare("x", shape(16, 5), false);
      m.Param("w1", {16, 4, 4, 4}, -0.5, 0.5);  // 2 groups: 16 -> 8 channels.
      m.Declare("y1", shape(8, 10), false);
      m.Op("conv2d_transpose", {{"Input", {"x"}}, {"Filter", {"w1"}}}, {{"Output", {"y1"}}},
           {{"strides", std::vector<int>{2, 2}}, {"paddings", std::vector<int>{1, 1}},
            {"groups", 2}, {"data_format", layout}});
      m.Param("b1", {8}, -1, 1);
      m.Declare("a1", shape(8, 10), false);
      m.Op("elementwise_add", {{"X", {"y1"}}, {"Y", {"b1"}}}, {{"Out", {"a1"}}},
           {{"axis", nhwc ? -1 : 1}});
      m.BatchNorm("a1", "n1", "bn1", 8, shape(8, 10), true, layout);
      m.Declare("r1", shape(8, 10), false);
      m.Op("relu", {{"X", {"n1"}}}, {{"Out", {"r1"}}});
      m.Param("w2", {8, 1, 3, 3}, -0.5, 0.5);
      m.Declare("y2", shape(8, 10), false);
      m.Op("depthwise_conv2d_transpose", {{"Input", {"r1"}}, {"Filter", {"w2"}}},
           {{"Output", {"y2"}}},
           {{"paddings", std::vector<int>{1, 1}}, {"groups", 8}, {"data_format", layout}});
      m.Param("b2", {8}, -1, 1);
      m.Declare("out", shape(8, 10), false);
      m.Op("elementwise_add", {{"X", {"y2"}}, {"Y", {"b2"}}}, {{"Out", {"out"}}},
           {{"axis", nhwc ? 3 : 1}});

      const DDim x_dims = nhwc ? DDim{2, 5, 5, 16} : DDim{2, 16, 5, 5};
      const DenseTensor x = MakeTensor<float>(x_dims, RandomValues(800, -1, 1, 21));
      Scope s1, s2;
      m.Fill(&s1);
      m.Fill(&s2);
      const std::vector<double> before = RunProgram(m.program, &s1, x);
      ProgramDesc p = m.program;
      const auto counts = Optimize(&p, &s2);
      EXPECT_EQ(counts.at("conv_bn_fuse_pass"), 1);
      EXPECT_EQ(counts.at("conv_bias_fuse_pass"), 1);
      EXPECT_EQ(OpTypes(p), std::vector<std::string>(
                                {"conv2d_transpose", "relu", "depthwise_conv2d_transpose"}));
      EXPECT_EQ(p.Block(0).Op(2)->Input("Bias"), std::vector<std::string>({"b2"}));
      for (const char* gone : {"b1", "bn1.scale", "bn1.var", "a1", "y2"}) {
        EXPECT_FALSE(p.Block(0).HasVar(gone)) << gone;
      }
      ExpectNear(RunProgram(p, &s2, x), before, 1e-5, 1e-5, "transposed");
    }
  }
}

TEST_F(ConvFusePassesTest, LeavesAloneWhatItCannotFuse) {
  Model m;
  const std::vector<int64_t> act = {-1, 4, 5, 5};
  m.Declare("x", act, false);
  // The conv output is also fetched: neither the bias add nor the relu may take it.
  m.Conv("conv2d", "x", "w", "y", 4, 4, 1, act);
  m.Param("b", {4}, -1, 1);
  m.Declare("a", act, false);
  m.Op("elementwise_add", {{"X", {"y"}}, {"Y", {"b"}}}, {{"Out", {"a"}}}, {{"axis", 1}});
  m.Declare("s", act, false);
  m.Op("scale", {{"X", {"y"}}}, {{"Out", {"s"}}}, {{"scale", 2.0f}});
  // A training batch_norm (batch statistics) is not folded.
  m.Conv("conv2d", "a", "w2", "y2", 4, 4, 1, act);
  m.BatchNorm("y2", "n2", "bn", 4, act, /*is_test=*/false);
  // A bias along the wrong axis (W, not the channels) is not a conv bias.
  m.Conv("conv2d", "n2", "w3", "y3", 4, 5, 1, {-1, 5, 5, 5});
  m.Param("b3", {5}, -1, 1);
  m.Declare("out", {-1, 5, 5, 5}, false);
  m.Op("elementwise_add", {{"X", {"y3"}}, {"Y", {"b3"}}}, {{"Out", {"out"}}}, {{"axis", -1}});
  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  const std::string before = p.ToBinary();
  for (const auto& kv : Optimize(&p, &params)) EXPECT_EQ(kv.second, 0) << kv.first;
  EXPECT_EQ(p.ToBinary(), before);
}

// DenseNet's pattern: a batch_norm after a concat (no convolution to fold it into) takes the
// relu after it; one whose output another op also reads, one in training mode and one before
// relu6 keep their activations.
TEST_F(ConvFusePassesTest, BatchNormAfterConcatTakesItsRelu) {
  for (bool onednn : {false, true}) {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    ScopedFlag every_shape(&FLAGS_onednn_small_input_fallback, false);
    Model m;
    const std::vector<int64_t> act = {-1, 8, 6, 6}, cat = {-1, 16, 6, 6};
    m.Declare("x", act, false);
    m.Conv("conv2d", "x", "w1", "y1", 8, 8, 1, act);
    m.Declare("c", cat, false);
    m.Op("concat", {{"X", {"y1", "x"}}}, {{"Out", {"c"}}}, {{"axis", 1}});
    m.BatchNorm("c", "n", "bn", 16, cat);
    m.Declare("r", cat, false);
    m.Op("relu", {{"X", {"n"}}}, {{"Out", {"r"}}});
    m.Conv("conv2d", "r", "w2", "y2", 16, 8, 1, act);
    // Read twice: by relu and by the add below.
    m.BatchNorm("y2", "n2", "bn2", 8, act);
    m.Declare("r2", act, false);
    m.Op("relu", {{"X", {"n2"}}}, {{"Out", {"r2"}}});
    m.Declare("s2", act, false);
    m.Op("elementwise_add", {{"X", {"r2"}}, {"Y", {"n2"}}}, {{"Out", {"s2"}}}, {{"axis", -1}});
    // Batch statistics, then relu6.
    m.BatchNorm("s2", "n3", "bn3", 8, act, /*is_test=*/false);
    m.Declare("r3", act, false);
    m.Op("relu", {{"X", {"n3"}}}, {{"Out", {"r3"}}});
    m.BatchNorm("r3", "n4", "bn4", 8, act);
    m.Declare("out", act, false);
    m.Op("relu6", {{"X", {"n4"}}}, {{"Out", {"out"}}}, {{"threshold", 6.0f}});
    const DenseTensor x = MakeTensor<float>(DDim{2, 8, 6, 6}, RandomValues(576, -1, 1, 7));
    Scope before_scope;
    m.Fill(&before_scope);
    const std::vector<double> before = RunProgram(m.program, &before_scope, x);

    ProgramDesc p = m.program;
    Scope params;
    m.Fill(&params);
    EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("batch_norm_relu_fuse_pass"), &p,
                                       &params),
              1);
    ASSERT_EQ(OpTypes(p), std::vector<std::string>({"conv2d", "concat", "batch_norm", "conv2d",
                                                    "batch_norm", "relu", "elementwise_add",
                                                    "batch_norm", "relu", "batch_norm", "relu6"}));
    const OpDesc& bn = *p.Block(0).Op(2);
    EXPECT_TRUE(bn.Attr<bool>("fuse_with_relu"));
    EXPECT_EQ(bn.Output("Y"), std::vector<std::string>({"r"}));
    for (size_t i : {4, 7, 9}) {
      EXPECT_FALSE(p.Block(0).Op(i)->HasAttr("fuse_with_relu") &&
                   p.Block(0).Op(i)->Attr<bool>("fuse_with_relu"))
          << i;
    }
    ExpectNear(RunProgram(p, &params, x), before, 1e-5, 1e-5, onednn ? "oneDNN" : "plain");
  }
}

// A batch_norm with its own relu (fuse_with_relu, as PaddlePaddle's oneDNN passes save it)
// folds into the conv with the relu as the conv's activation.
TEST_F(ConvFusePassesTest, BatchNormWithItsReluFoldsIntoTheConvWithTheRelu) {
  Model m;
  const std::vector<int64_t> act = {-1, 4, 6, 6};
  m.Declare("x", act, false);
  m.Conv("conv2d", "x", "w", "y", 4, 4, 1, act);
  m.BatchNorm("y", "out", "bn", 4, act);
  m.program.Block(0).Op(1)->SetAttr("fuse_with_relu", true);
  const DenseTensor x = MakeTensor<float>(DDim{2, 4, 6, 6}, RandomValues(288, -1, 1, 5));
  Scope before_scope;
  m.Fill(&before_scope);
  const std::vector<double> before = RunProgram(m.program, &before_scope, x);
  EXPECT_EQ(*std::min_element(before.begin(), before.end()), 0.0);  // The relu clipped some.

  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("conv_bn_fuse_pass"), &p, &params),
            1);
  ASSERT_EQ(OpTypes(p), std::vector<std::string>({"conv2d"}));
  EXPECT_EQ(p.Block(0).Op(0)->Attr<std::string>("fuse_activation"), "relu");
  ExpectNear(RunProgram(p, &params, x), before, 1e-5, 1e-5, "folded");
}

TEST_F(ConvFusePassesTest, SharedFilterIsNotRewritten) {
  Model m;
  const std::vector<int64_t> act = {-1, 4, 5, 5};
  m.Declare("x", act, false);
  m.Conv("conv2d", "x", "w", "y", 4, 4, 1, act);
  m.BatchNorm("y", "n", "bn", 4, act);
  m.Declare("y2", act, false);
  m.Op("conv2d", {{"Input", {"n"}}, {"Filter", {"w"}}}, {{"Output", {"y2"}}},
       {{"paddings", std::vector<int>{1, 1}}});
  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("conv_bn_fuse_pass"), &p, &params),
            0);
  // Without parameters a folding pass does nothing.
  EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("conv_bn_fuse_pass"), &p), 0);
}

// PP-LCNet's squeeze-and-excitation block: the biases reach the adds through reshape2 of a
// [C] parameter, which constant folding turns into [1, C, 1, 1] parameters the bias pass takes.
TEST_F(ConvFusePassesTest, SqueezeExcitationBiasesThroughReshapeAreFolded) {
  Model m;
  m.Declare("x", {-1, 16, 5, 5}, false);
  m.Declare("pooled", {-1, 16, 1, 1}, false);
  m.Op("pool2d", {{"X", {"x"}}}, {{"Out", {"pooled"}}},
       {{"pooling_type", std::string("avg")}, {"global_pooling", true},
        {"ksize", std::vector<int>{1, 1}}});
  const std::vector<int64_t> squeezed = {-1, 4, 1, 1}, excited = {-1, 16, 1, 1};
  m.Param("w1", {4, 16, 1, 1}, -0.5, 0.5);
  m.Declare("c1", squeezed, false);
  m.Op("conv2d", {{"Input", {"pooled"}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}});
  m.Param("b1", {4}, -1, 1);
  m.Declare("b1r", {1, 4, 1, 1}, false);
  m.Declare("b1shape", {0, 4}, false);
  m.Op("reshape2", {{"X", {"b1"}}}, {{"Out", {"b1r"}}, {"XShape", {"b1shape"}}},
       {{"shape", std::vector<int>{1, 4, 1, 1}}});
  m.Declare("a1", squeezed, false);
  m.Op("elementwise_add", {{"X", {"c1"}}, {"Y", {"b1r"}}}, {{"Out", {"a1"}}}, {{"axis", -1}});
  m.Declare("r1", squeezed, false);
  m.Op("relu", {{"X", {"a1"}}}, {{"Out", {"r1"}}});
  m.Param("w2", {16, 4, 1, 1}, -0.5, 0.5);
  m.Declare("c2", excited, false);
  m.Op("conv2d", {{"Input", {"r1"}}, {"Filter", {"w2"}}}, {{"Output", {"c2"}}});
  m.Param("b2", {16}, -1, 1);
  m.Declare("b2r", {1, 16, 1, 1}, false);
  m.Declare("b2shape", {0, 16}, false);
  m.Op("reshape2", {{"X", {"b2"}}}, {{"Out", {"b2r"}}, {"XShape", {"b2shape"}}},
       {{"shape", std::vector<int>{1, 16, 1, 1}}});
  m.Declare("a2", excited, false);
  m.Op("elementwise_add", {{"X", {"c2"}}, {"Y", {"b2r"}}}, {{"Out", {"a2"}}}, {{"axis", -1}});
  m.Declare("s", excited, false);
  m.Op("hard_sigmoid", {{"X", {"a2"}}}, {{"Out", {"s"}}}, {{"slope", 0.2f}, {"offset", 0.5f}});
  m.Declare("out", {-1, 16, 5, 5}, false);
  m.Op("elementwise_mul", {{"X", {"x"}}, {"Y", {"s"}}}, {{"Out", {"out"}}}, {{"axis", -1}});

  const DenseTensor x = MakeTensor<float>(DDim{2, 16, 5, 5}, RandomValues(800, -1, 1, 3));
  Scope s1, s2;
  m.Fill(&s1);
  m.Fill(&s2);
  const std::vector<double> before = RunProgram(m.program, &s1, x);
  ProgramDesc p = m.program;
  const auto counts = Optimize(&p, &s2);
  EXPECT_EQ(counts.at("constant_folding_pass"), 2);
  EXPECT_EQ(counts.at("conv_bias_fuse_pass"), 2);
  EXPECT_EQ(counts.at("conv_activation_fuse_pass"), 2);
  EXPECT_EQ(OpTypes(p),
            std::vector<std::string>({"pool2d", "conv2d", "conv2d", "elementwise_mul"}));
  for (const char* gone : {"b1", "b1r", "b1shape", "b2r"}) {
    EXPECT_EQ(s2.FindVar(gone), nullptr) << gone;
    EXPECT_FALSE(p.Block(0).HasVar(gone)) << gone;
  }
  ExpectNear(RunProgram(p, &s2, x), before, 1e-5, 1e-6, "SE block");
}

TEST_F(ConvFusePassesTest, ConstantFoldingRunsParameterOnlyOpsOnce) {
  Model m;
  m.Declare("x", {-1, 3}, false);
  m.Declare("c", {2, 3}, false);
  m.Op("fill_constant", {}, {{"Out", {"c"}}},
       {{"shape", std::vector<int64_t>{2, 3}}, {"value", 1.5f}, {"dtype", 5}});
  m.Declare("noise", {2, 3}, false);
  m.Op("uniform_random", {}, {{"Out", {"noise"}}},
       {{"shape", std::vector<int64_t>{2, 3}}, {"min", -1.0f}, {"max", 1.0f}, {"seed", 3},
        {"dtype", 5}});
  m.Declare("sum", {2, 3}, false);
  m.Op("elementwise_add", {{"X", {"x"}}, {"Y", {"c"}}}, {{"Out", {"sum"}}});
  m.Declare("out", {2, 3}, false);
  m.Op("elementwise_add", {{"X", {"sum"}}, {"Y", {"noise"}}}, {{"Out", {"out"}}});
  ProgramDesc p = m.program;
  Scope params;
  EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("constant_folding_pass"), &p,
                                     &params),
            1);
  EXPECT_EQ(OpTypes(p),
            std::vector<std::string>({"uniform_random", "elementwise_add", "elementwise_add"}));
  ASSERT_NE(params.FindVar("c"), nullptr);
  EXPECT_TRUE(p.Block(0).FindVar("c")->Persistable());
  EXPECT_EQ(ToDoubles(params.FindVar("c")->Get<DenseTensor>()), std::vector<double>(6, 1.5));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
