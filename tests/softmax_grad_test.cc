// Gradients of softmax: first and second orders against finite differences in float64 over
// shapes x axes, the backward ops its grad maker emits, and closed forms.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct SoftmaxGradCase {
  DDim x;
  int axis;
};

const SoftmaxGradCase kCases[] = {
    {{5}, -1},      {{5}, 0},       {{2, 3}, -1},   {{2, 3}, 0},     {{3, 4}, 1},
    {{2, 2, 3}, 1}, {{2, 3, 2}, -3}, {{2, 3, 2}, -1}, {{4, 1}, 1},     {{1, 3}, 0},
    {{}, -1},
};

TEST(SoftmaxGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  unsigned seed = 3;
  for (const auto& c : kCases) {
    SCOPED_TRACE("softmax " + c.x.ToString() + " axis " + std::to_string(c.axis));
    GradCheck check;
    check.op_type = "softmax";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"axis", c.axis}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(SoftmaxGrad, LargeInputsStayAccurate) {
  // Values far from 0: the forward subtracts the maximum; the backward reads only Out.
  GradCheck check;
  check.op_type = "softmax";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, {100, 101, 99, -50, -52, -51})}}};
  check.outputs = {{"Out", 1}};
  check.max_order = 2;
  CheckGradients(check);
}

// Softmax sums to 1 along its axis, so the gradient of sum(Out) is zero at every order.
TEST(SoftmaxGrad, GradientOfTheSumIsZero) {
  const DenseTensor x = MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 11));
  for (int order = 1; order <= 2; ++order) {
    const auto grads = NthGradient("softmax", {{"X", {x}}}, {{"Out", 1}}, {{"axis", 1}}, order);
    ExpectNear(ToDoubles(grads.at("X_0")), std::vector<double>(6, 0.0), 0, 1e-12,
               "order " + std::to_string(order));
  }
}

// Closed form: d/dx_i sum_j c_j softmax(x)_j = p_i (c_i - sum_j c_j p_j).
TEST(SoftmaxGrad, WeightedSumMatchesClosedForm) {
  const std::vector<double> xs = {0.5, -1.0, 2.0, 0.0};
  const std::vector<double> c = {1.0, 2.0, -1.0, 0.5};
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const char* name : {"x", "c"}) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(DataType::FLOAT64);
    v->SetShape({4});
  }
  b.FindVar("c")->SetStopGradient(true);
  auto add_op = [&b](const std::string& type, const framework::VariableNameMap& in,
                     const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(op, &b);
  };
  operators::RegisterAllOps();
  add_op("softmax", {{"X", {"x"}}}, {{"Out", {"p"}}}, {{"axis", -1}});
  add_op("elementwise_mul", {{"X", {"p"}}, {"Y", {"c"}}}, {{"Out", {"pc"}}}, {});
  add_op("reduce_sum", {{"X", {"pc"}}}, {{"Out", {"loss"}}},
         {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "loss");
  ASSERT_EQ(result.grad_of.count("x"), 1u);

  // The softmax backward reads Out (p), never X.
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    for (const auto& in : b.Op(i)->InputArgumentNames()) {
      EXPECT_NE(in, "x") << "backward op #" << i << " `" << b.Op(i)->Type() << "` reads X";
    }
  }

  framework::Scope scope;
  const auto fetched = framework::Executor(platform::CPUPlace())
                           .Run(program, &scope,
                                {{"x", MakeTensor<double>({4}, xs)},
                                 {"c", MakeTensor<double>({4}, c)}},
                                {result.grad_of.at("x")});
  double z = 0;
  for (double v : xs) z += std::exp(v);
  std::vector<double> p(4), expected(4);
  double cp = 0;
  for (int i = 0; i < 4; ++i) {
    p[i] = std::exp(xs[i]) / z;
    cp += c[i] * p[i];
  }
  for (int i = 0; i < 4; ++i) expected[i] = p[i] * (c[i] - cp);
  ExpectNear(ToDoubles(fetched[0]), expected, 1e-12, 1e-14, "dloss/dx");
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
