// gelu (erf and tanh forms) and leaky_relu: forward against double references, gradients
// against finite differences (leaky_relu also second order and closed forms), the backward ops
// the grad makers emit, the op version of leaky_relu, and errors.
#include <cmath>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

double GeluRef(double x, bool approximate) {
  if (approximate) {
    const double k = std::sqrt(2 / M_PI);
    return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}

double LeakyRef(double x, double alpha) { return x >= 0 ? x : alpha * x; }

const DDim kShapes[] = {DDim({7}), DDim({3, 4}), DDim({2, 1, 5}), DDim({0, 3})};

template <typename T>
void CheckGeluForward(bool approximate) {
  unsigned seed = 1;
  for (const DDim& dims : kShapes) {
    SCOPED_TRACE(dims.ToString() + (approximate ? " tanh" : " erf"));
    const DenseTensor x = MakeTensor<T>(dims, RandomValues(dims.numel(), -5, 5, seed++));
    const auto r = RunOp("gelu", {{"X", {x}}}, {{"Out", 1}}, {{"approximate", approximate}});
    std::vector<double> expected;
    for (double v : ToDoubles(x)) expected.push_back(GeluRef(v, approximate));
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), dims);
    const DataType dt = platform::ToDataType<T>();
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, RelTol(dt) * 10, AbsTol(dt), "Out");
  }
}

TEST(GeluOp, MatchesReference) {
  for (bool approximate : {false, true}) {
    CheckGeluForward<float>(approximate);
    CheckGeluForward<double>(approximate);
  }
}

TEST(GeluOp, DefaultIsTheErfForm) {
  const std::vector<double> x = {-3, -1, 0, 0.5, 2};
  const auto r = RunOp("gelu", {{"X", {MakeTensor<double>({5}, x)}}}, {{"Out", 1}});
  std::vector<double> expected;
  for (double v : x) expected.push_back(GeluRef(v, false));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, 1e-14, 1e-15, "Out");
}

TEST(GeluGrad, MatchesFiniteDifferences) {
  for (bool approximate : {false, true}) {
    unsigned seed = 10;
    for (const DDim& dims : {DDim({5}), DDim({2, 3}), DDim({1, 2, 2})}) {
      SCOPED_TRACE(dims.ToString() + (approximate ? " tanh" : " erf"));
      GradCheck check;
      check.op_type = "gelu";
      check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -3, 3, seed++))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"approximate", approximate}};
      CheckGradients(check);
    }
  }
}

// A one-op program `out = type(x)` (x float64 [2, 3]) with backward appended for loss `out`;
// returns the appended ops other than the seed of out@GRAD.
std::vector<const framework::OpDesc*> BackwardOpsOf(framework::ProgramDesc* program,
                                                    const std::string& type,
                                                    const AttributeMap& attrs = {}) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = program->Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({2, 3});
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  framework::AppendBackward(program, "out");
  std::vector<const framework::OpDesc*> ops;
  for (size_t i = 1; i < b.OpSize(); ++i) {
    if (b.Op(i)->Output("Out") == std::vector<std::string>{"out@GRAD"}) continue;
    ops.push_back(b.Op(i));
  }
  return ops;
}

TEST(GeluGrad, FusedOpReadsXAndOutputGradient) {
  framework::ProgramDesc program;
  const auto ops = BackwardOpsOf(&program, "gelu", {{"approximate", true}});
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0]->Type(), "gelu_grad");
  EXPECT_EQ(ops[0]->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(ops[0]->Input("Out@GRAD"), std::vector<std::string>{"out@GRAD"});
  EXPECT_FALSE(ops[0]->HasInput("Out"));
  EXPECT_EQ(ops[0]->Output("X@GRAD"), std::vector<std::string>{"x@GRAD"});
  EXPECT_TRUE(std::get<bool>(ops[0]->GetAttr("approximate")));
}

TEST(GeluGrad, SecondOrderIsReportedAsMissing) {
  ExpectError<platform::NotFoundError>(
      [] {
        NthGradient("gelu", {{"X", {MakeTensor<double>({2}, {0.5, -1})}}}, {{"Out", 1}}, {}, 2);
      },
      {"gelu_grad", "no grad maker"});
}

TEST(LeakyReluOp, MatchesReference) {
  const std::vector<double> x = {-3, -0.5, 0, 0.25, 4, -1e-3};
  for (float alpha : {0.02f, 0.3f, -0.5f, 1.5f}) {
    for (bool as_float : {true, false}) {
      const DenseTensor t = as_float ? MakeTensor<float>({2, 3}, x) : MakeTensor<double>({2, 3}, x);
      const auto r = RunOp("leaky_relu", {{"X", {t}}}, {{"Out", 1}}, {{"alpha", alpha}});
      std::vector<double> expected;
      for (double v : ToDoubles(t)) expected.push_back(LeakyRef(v, static_cast<double>(alpha)));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, as_float ? 1e-6 : 1e-15, 0,
                 "alpha " + std::to_string(alpha));
    }
  }
  // Default alpha 0.02.
  const auto r = RunOp("leaky_relu", {{"X", {MakeTensor<double>({2}, {-1, 2})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {-static_cast<double>(0.02f), 2}, 0, 0, "default");
}

TEST(LeakyReluGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  unsigned seed = 20;
  for (float alpha : {0.02f, 0.4f, -0.3f}) {
    for (const DDim& dims : {DDim({6}), DDim({2, 3}), DDim({2, 1, 2})}) {
      SCOPED_TRACE(dims.ToString() + " alpha " + std::to_string(alpha));
      // Away from the kink at 0.
      std::vector<double> x = RandomValues(dims.numel(), 0.1, 2, seed);
      const std::vector<double> side = RandomValues(dims.numel(), 0, 1, seed + 100);
      for (size_t i = 0; i < x.size(); ++i) x[i] = side[i] < 0.5 ? -x[i] : x[i];
      ++seed;
      GradCheck check;
      check.op_type = "leaky_relu";
      check.inputs = {{"X", {MakeTensor<double>(dims, x)}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"alpha", alpha}};
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(LeakyReluGrad, SlopeIsOneAtZeroAndHigherOrdersAreZero) {
  const auto grad = [](int order) {
    return ToDoubles(NthGradient("leaky_relu", {{"X", {MakeTensor<double>({3}, {-1.5, 0, 2})}}},
                                 {{"Out", 1}}, {{"alpha", 0.25f}}, order)
                         .at("X_0"));
  };
  ExpectNear(grad(1), {0.25, 1, 1}, 0, 0, "d leaky_relu");
  ExpectNear(grad(2), {0, 0, 0}, 0, 0, "d2 leaky_relu");
}

TEST(LeakyReluGrad, BackwardIsBuiltFromForwardOps) {
  framework::ProgramDesc program;
  const auto ops = BackwardOpsOf(&program, "leaky_relu", {{"alpha", 0.1f}});
  std::vector<std::string> types;
  for (const auto* op : ops) types.push_back(op->Type());
  EXPECT_EQ(types, (std::vector<std::string>{"scale", "relu", "sign", "scale", "elementwise_mul"}));
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_EQ(ops[0]->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(ops[4]->Input("X"), std::vector<std::string>{"out@GRAD"});
  EXPECT_EQ(ops[4]->Output("Out"), std::vector<std::string>{"x@GRAD"});
  for (const auto* op : ops) {
    for (const auto& kv : op->Inputs()) {
      for (const auto& name : kv.second) EXPECT_NE(name, "out") << op->Type() << " reads Out";
    }
  }
}

TEST(LeakyReluOp, HasOneVersionCheckpoint) {
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("leaky_relu").version(), 1);
}

TEST(GeluLeakyRelu, ErrorsNameOpAndAttribute) {
  const DenseTensor x = MakeTensor<float>({2}, {1, -1});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("leaky_relu", {{"X", {x}}}, {{"Out", 1}}, {{"alpha", std::string("big")}});
      },
      {"op `leaky_relu`", "attribute `alpha`", "FLOAT"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("gelu", {{"X", {x}}}, {{"Out", 1}}, {{"approximate", std::string("yes")}});
      },
      {"op `gelu`", "attribute `approximate`", "BOOLEAN"});
  ExpectError<platform::NotFoundError>(
      [&] {
        RunOp("gelu", {}, {{"Out", 1}});
      },
      {"op `gelu`", "input `X`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
