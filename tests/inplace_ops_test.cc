// Programs that write an op's output over its input (PaddlePaddle's in-place passes produce
// them): for every same-shape op here, with the plain and the oneDNN kernels, the in-place
// result equals the out-of-place one, and a tensor outside the program that shares the
// input's buffer keeps its values (operators never write through an input's buffer).
#include <string>
#include <vector>

#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct InPlaceCase {
  std::string type;
  std::string in_slot, out_slot;
  AttributeMap attrs;
  double lo = -3, hi = 3;  // Input range.
};

std::vector<InPlaceCase> Cases() {
  std::vector<InPlaceCase> cases;
  for (const char* op : {"relu", "sigmoid", "tanh", "exp", "sin", "cos", "square", "sign",
                         "gelu", "leaky_relu", "hard_sigmoid", "hard_swish", "assign"}) {
    cases.push_back({op, "X", "Out", {}});
  }
  cases.push_back({"log", "X", "Out", {}, 0.1, 4});
  cases.push_back({"scale", "X", "Out", {{"scale", 2.5f}, {"bias", -1.0f}}});
  cases.push_back({"softmax", "X", "Out", {{"axis", -1}}});
  cases.push_back({"softmax", "X", "Out", {{"axis", 0}}});
  cases.push_back({"dropout", "X", "Out", {{"is_test", true}, {"dropout_prob", 0.3f}}});
  cases.push_back({"cast", "X", "Out", {{"in_dtype", 5}, {"out_dtype", 5}}});
  return cases;
}

class InPlaceOpsTest : public OneDNNKernelTestBase {
 protected:
  // Plain kernels run in every build; the oneDNN ones where the build has them.
  void SetUp() override {
    operators::RegisterAllOps();
    if (platform::BuiltWithOneDNN()) OneDNNKernelTestBase::SetUp();
  }
};

TEST_F(InPlaceOpsTest, OutputOverInputEqualsOutOfPlace) {
  const DDim dims({64, 300});  // Large enough for the oneDNN kernels' primitives.
  unsigned seed = 40;
  for (const InPlaceCase& c : Cases()) {
    for (bool use_onednn : {false, true}) {
      if (use_onednn && !platform::BuiltWithOneDNN()) continue;
      ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
      const std::string what = c.type + (use_onednn ? " (oneDNN allowed)" : " (plain)");
      const std::vector<double> values = RandomValues(dims.numel(), c.lo, c.hi, ++seed);
      const DenseTensor x = MakeTensor<float>(dims, values);
      const std::vector<double> before = ToDoubles(x);
      const NamedOpRun apart = RunNamedOp(c.type, {{c.in_slot, {"x"}}}, {{c.out_slot, {"y"}}},
                                          {{"x", x}}, c.attrs);
      // `x` (outside the program) shares its buffer with the fed variable.
      const NamedOpRun over = RunNamedOp(c.type, {{c.in_slot, {"x"}}}, {{c.out_slot, {"x"}}},
                                         {{"x", x}}, c.attrs);
      EXPECT_EQ(over.vars.at("x").dims(), dims) << what;
      ExpectNear(ToDoubles(over.vars.at("x")), ToDoubles(apart.vars.at("y")), 0, 0,
                 what + ": in place vs apart");
      ExpectNear(ToDoubles(x), before, 0, 0, what + ": the caller's tensor");
    }
  }
}

// PaddlePaddle's fused grad ops with X@GRAD written over Out@GRAD or over the forward value
// they read.
TEST_F(InPlaceOpsTest, GradientOverItsInputsEqualsOutOfPlace) {
  struct GradCase {
    std::string type, dep;  // dep: the forward value the grad op reads (X or Out).
    AttributeMap attrs;
    double lo, hi;
  };
  const std::vector<GradCase> cases = {
      {"relu_grad", "Out", {}, 0, 3},          {"sigmoid_grad", "Out", {}, 0.05, 0.95},
      {"tanh_grad", "Out", {}, -0.9, 0.9},     {"exp_grad", "Out", {}, 0.1, 3},
      {"square_grad", "X", {}, -3, 3},         {"gelu_grad", "X", {}, -3, 3},
      {"leaky_relu_grad", "X", {{"alpha", 0.1f}}, -3, 3},
      {"hard_swish_grad", "X", {}, -5, 5},     {"hard_sigmoid_grad", "Out", {}, 0, 1},
      {"softmax_grad", "Out", {{"axis", -1}}, 0.001, 0.1},
  };
  const DDim dims({64, 300});
  unsigned seed = 90;
  for (const GradCase& c : cases) {
    for (bool use_onednn : {false, true}) {
      if (use_onednn && !platform::BuiltWithOneDNN()) continue;
      ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
      const DenseTensor v = MakeTensor<float>(dims, RandomValues(dims.numel(), c.lo, c.hi, ++seed));
      const DenseTensor g = MakeTensor<float>(dims, RandomValues(dims.numel(), -1, 1, ++seed));
      const std::vector<double> v_before = ToDoubles(v), g_before = ToDoubles(g);
      const framework::VariableNameMap inputs = {{c.dep, {"v"}}, {"Out@GRAD", {"g"}}};
      const std::map<std::string, DenseTensor> feeds = {{"v", v}, {"g", g}};
      const NamedOpRun apart = RunNamedOp(c.type, inputs, {{"X@GRAD", {"dx"}}}, feeds, c.attrs);
      for (const char* over : {"g", "v"}) {
        const std::string what = c.type + " over `" + over + "`" +
                                 (use_onednn ? " (oneDNN allowed)" : " (plain)");
        const NamedOpRun r = RunNamedOp(c.type, inputs, {{"X@GRAD", {over}}}, feeds, c.attrs);
        ExpectNear(ToDoubles(r.vars.at(over)), ToDoubles(apart.vars.at("dx")), 0, 0, what);
      }
      ExpectNear(ToDoubles(v), v_before, 0, 0, c.type + ": the caller's forward value");
      ExpectNear(ToDoubles(g), g_before, 0, 0, c.type + ": the caller's Out@GRAD");
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
