// Gradients of scale and quadratic: first and second orders against finite differences in
// float64, higher orders against closed forms, and the backward ops their grad makers emit.
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

const DDim kShapes[] = {DDim({3}), DDim({2, 3}), DDim({3, 1}), DDim({1, 2, 2})};

TEST(ScaleGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  const AttributeMap kAttrs[] = {
      {},
      {{"scale", 2.5f}, {"bias", -1.0f}},
      {{"scale", -0.75f}, {"bias", 0.5f}, {"bias_after_scale", false}},
  };
  unsigned seed = 5;
  for (const auto& attrs : kAttrs) {
    for (const DDim& dims : kShapes) {
      SCOPED_TRACE("scale " + dims.ToString());
      GradCheck check;
      check.op_type = "scale";
      check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -2, 2, seed++))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = attrs;
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(ScaleGrad, ScaleTensorScalesTheGradientOfX) {
  for (const DDim& dims : kShapes) {
    SCOPED_TRACE("scale with ScaleTensor " + dims.ToString());
    GradCheck check;
    check.op_type = "scale";
    check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -2, 2, 9))}},
                    {"ScaleTensor", {MakeTensor<double>({1}, {-1.75})}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"scale", 3.0f}, {"bias", 0.25f}};  // The attribute `scale` is overridden.
    check.wrt = {"X"};
    check.max_order = 2;
    CheckGradients(check);
  }
  // A float32 ScaleTensor with float64 X: dX keeps X's dtype.
  const auto grads = NthGradient(
      "scale",
      {{"X", {MakeTensor<double>({2}, {1, 2})}}, {"ScaleTensor", {MakeTensor<float>({1}, {0.5})}}},
      {{"Out", 1}}, {}, 1);
  EXPECT_EQ(grads.at("X_0").dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(grads.at("X_0")), {0.5, 0.5}, 0, 0, "dX");
  // No gradient flows to ScaleTensor: it comes back as zeros.
  ExpectNear(ToDoubles(grads.at("ScaleTensor_0")), {0}, 0, 0, "dScaleTensor");
}

// Appends the backward of a one-op program `out = scale(x[, s])` and returns the ops after
// the seed of out@GRAD.
std::vector<const framework::OpDesc*> ScaleBackwardOps(framework::ProgramDesc* program,
                                                       bool with_scale_tensor) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = program->Block(0);
  for (const char* name : {"x", "s"}) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(DataType::FLOAT64);
    v->SetShape({std::string(name) == "x" ? 4 : 1});
  }
  framework::OpDesc* op = b.AppendOp();
  op->SetType("scale");
  op->SetInput("X", {"x"});
  if (with_scale_tensor) op->SetInput("ScaleTensor", {"s"});
  op->SetOutput("Out", {"out"});
  op->SetAttr("scale", 3.0f);
  op->SetAttr("bias", 2.0f);
  framework::InferVarTypeAndShape(op, &b);
  framework::AppendBackward(program, "out");
  std::vector<const framework::OpDesc*> ops;
  for (size_t i = 2; i < b.OpSize(); ++i) ops.push_back(b.Op(i));
  return ops;
}

TEST(ScaleGrad, BackwardIsOneScaleOp) {
  {
    framework::ProgramDesc program;
    const auto ops = ScaleBackwardOps(&program, false);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0]->Type(), "scale");
    EXPECT_EQ(ops[0]->Input("X"), std::vector<std::string>{"out@GRAD"});
    EXPECT_FALSE(ops[0]->HasInput("ScaleTensor"));
    EXPECT_EQ(ops[0]->Output("Out"), std::vector<std::string>{"x@GRAD"});
    EXPECT_EQ(std::get<float>(ops[0]->GetAttr("scale")), 3.0f);
    EXPECT_EQ(std::get<float>(ops[0]->GetAttr("bias")), 0.0f);
  }
  {
    framework::ProgramDesc program;
    const auto ops = ScaleBackwardOps(&program, true);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0]->Type(), "scale");
    EXPECT_EQ(ops[0]->Input("ScaleTensor"), std::vector<std::string>{"s"});
    EXPECT_EQ(ops[0]->Output("Out"), std::vector<std::string>{"x@GRAD"});
    EXPECT_EQ(std::get<float>(ops[0]->GetAttr("bias")), 0.0f);
  }
}

TEST(QuadraticGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  const AttributeMap kAttrs[] = {
      {{"a", 1.5f}, {"b", -0.5f}, {"c", 2.0f}},
      {{"a", -0.25f}, {"b", 2.0f}},
      {{"b", 1.0f}},  // Linear: the second derivative is zero.
  };
  unsigned seed = 21;
  for (const auto& attrs : kAttrs) {
    for (const DDim& dims : kShapes) {
      SCOPED_TRACE("quadratic " + dims.ToString());
      GradCheck check;
      check.op_type = "quadratic";
      check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -2, 2, seed++))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = attrs;
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(QuadraticGrad, HigherOrdersHaveClosedForms) {
  const std::vector<double> x = {-1, 0.5, 3};
  const AttributeMap attrs = {{"a", 1.5f}, {"b", -0.5f}, {"c", 2.0f}};
  auto nth = [&](int order) {
    return ToDoubles(
        NthGradient("quadratic", {{"X", {MakeTensor<double>({3}, x)}}}, {{"Out", 1}}, attrs, order)
            .at("X_0"));
  };
  ExpectNear(nth(1), {3 * -1 - 0.5, 3 * 0.5 - 0.5, 3 * 3 - 0.5}, 1e-12, 0, "d quadratic");
  ExpectNear(nth(2), {3, 3, 3}, 1e-12, 0, "d2 quadratic");
  ExpectNear(nth(3), {0, 0, 0}, 0, 0, "d3 quadratic");
}

TEST(QuadraticGrad, BackwardIsScaleThenProduct) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetDataType(DataType::FLOAT64);
  b.Var("x")->SetShape({3});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("quadratic");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  op->SetAttr("a", 1.5f);
  op->SetAttr("b", -0.5f);
  framework::InferVarTypeAndShape(op, &b);
  framework::AppendBackward(&program, "out");
  ASSERT_EQ(b.OpSize(), 4u);  // quadratic, seed, scale, elementwise_mul.
  const framework::OpDesc* scale = b.Op(2);
  const framework::OpDesc* mul = b.Op(3);
  EXPECT_EQ(scale->Type(), "scale");
  EXPECT_EQ(scale->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(std::get<float>(scale->GetAttr("scale")), 3.0f);
  EXPECT_EQ(std::get<float>(scale->GetAttr("bias")), -0.5f);
  EXPECT_EQ(mul->Type(), "elementwise_mul");
  EXPECT_EQ(mul->Input("X"), std::vector<std::string>{"out@GRAD"});
  EXPECT_EQ(mul->Input("Y"), scale->Output("Out"));
  EXPECT_EQ(mul->Output("Out"), std::vector<std::string>{"x@GRAD"});
}

TEST(ScaleQuadraticGrad, DocsStateTheGradient) {
  operators::RegisterAllOps();
  for (const char* type : {"scale", "quadratic"}) {
    const auto& info = framework::OpInfoMap::Instance().Get(type);
    EXPECT_NE(info.spec.comment.find("dX = "), std::string::npos) << type;
    EXPECT_TRUE(static_cast<bool>(info.grad_op_maker)) << type;
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
