// Gradients of the tensor ops reshape2, transpose2, cast and assign: finite-difference checks
// in float64 (second order where the backward is built from differentiable ops), the
// backward ops their grad makers emit, and dtypes of the gradients.
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/var_type_inference.h"
#include "operators/tensor/tensor_op_util.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;

const DDim kShapes[] = {DDim({3}), DDim({2, 3}), DDim({3, 1}), DDim({1, 2, 2}), DDim({2, 3, 2})};

// A program with one float64 variable `x` of `dims`.
ProgramDesc ProgramWithInput(const DDim& dims) {
  operators::RegisterAllOps();
  ProgramDesc program;
  framework::VarDesc* x = program.Block(0).Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape(dims.ToVector());
  return program;
}

void AddOp(BlockDesc* b, const std::string& type, const framework::VariableNameMap& in,
           const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, b);
}

// Every variable read by ops [first, end) of block 0.
std::set<std::string> ReadBy(const ProgramDesc& program, size_t first) {
  std::set<std::string> names;
  const BlockDesc& b = program.Block(0);
  for (size_t i = first; i < b.OpSize(); ++i) {
    for (const auto& in : b.Op(i)->InputArgumentNames()) names.insert(in);
  }
  return names;
}

// ---- reshape2 ----

struct ReshapeCase {
  DDim x;
  std::vector<int> shape;
};

const ReshapeCase kReshapeCases[] = {
    {{2, 3}, {3, 2}}, {{2, 3}, {0, -1}},  {{12}, {2, 2, 3}}, {{2, 2, 3}, {-1}},
    {{3}, {1, 3, 1}}, {{2, 3, 2}, {0, 6}}, {{1}, {}},  // To 0-D.
};

TEST(Reshape2Grad, FirstOrderMatchesFiniteDifferences) {
  unsigned seed = 1;
  for (const auto& c : kReshapeCases) {
    SCOPED_TRACE("reshape2 " + c.x.ToString() + " -> " + operators::ListToString(c.shape));
    GradCheck check;
    check.op_type = "reshape2";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}, {"XShape", 1}};
    check.loss_outputs = {"Out"};
    check.attrs = {{"shape", c.shape}};
    check.max_order = 1;
    CheckGradients(check);
  }
}

TEST(Reshape2Grad, ShapeInputsAndSecondOrder) {
  // The shape from a Shape tensor and from a ShapeTensor list; the second order (zero for a
  // linear op) runs the gradient of reshape2_grad.
  const DenseTensor x = MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 21));
  {
    GradCheck check;
    check.op_type = "reshape2";
    check.inputs = {{"X", {x}}, {"Shape", {MakeTensor<int32_t>({2}, {3, -1})}}};
    check.outputs = {{"Out", 1}, {"XShape", 1}};
    check.loss_outputs = {"Out"};
    check.wrt = {"X"};
    check.max_order = 2;
    CheckGradients(check);
  }
  {
    GradCheck check;
    check.op_type = "reshape2";
    check.inputs = {{"X", {x}},
                    {"ShapeTensor",
                     {MakeTensor<int64_t>({1}, {1}), MakeTensor<int64_t>({1}, {6})}}};
    check.outputs = {{"Out", 1}, {"XShape", 1}};
    check.loss_outputs = {"Out"};
    check.wrt = {"X"};
    check.attrs = {{"shape", std::vector<int>{6}}};  // Overridden by ShapeTensor.
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(Reshape2Grad, GradOpReadsOnlyXShapeAndOutGrad) {
  ProgramDesc program = ProgramWithInput({2, 3});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "reshape2", {{"X", {"x"}}}, {{"Out", {"y"}}, {"XShape", {"x_shape"}}},
        {{"shape", std::vector<int>{3, 2}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "y");
  ASSERT_EQ(result.grad_of.count("x"), 1u);
  const std::string dx = result.grad_of.at("x");

  const OpDesc* grad_op = nullptr;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "reshape2_grad") grad_op = b.Op(i);
  }
  ASSERT_NE(grad_op, nullptr);
  EXPECT_EQ(grad_op->Inputs(),
            (framework::VariableNameMap{{"XShape", {"x_shape"}}, {"Out@GRAD", {"y@GRAD"}}}));
  EXPECT_EQ(grad_op->Outputs(), (framework::VariableNameMap{{"X@GRAD", {dx}}}));
  EXPECT_EQ(ReadBy(program, forward_ops).count("x"), 0u);
  // Build-time inference gives the gradient X's dims and dtype.
  const framework::VarDesc* dx_var = b.FindVar(dx);
  ASSERT_NE(dx_var, nullptr);
  EXPECT_EQ(dx_var->GetShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dx_var->GetDataType(), DataType::FLOAT64);

  framework::Scope scope;
  const auto fetched =
      framework::Executor(platform::CPUPlace())
          .Run(program, &scope, {{"x", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}}, {dx});
  EXPECT_EQ(fetched[0].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(fetched[0]), std::vector<double>(6, 1.0), 0, 0, "dx");
}

TEST(Reshape2Grad, GradOpIsDifferentiable) {
  // reshape2_grad on its own: linear in Out@GRAD, its gradient is a reshape2 back.
  for (const auto& c : kReshapeCases) {
    SCOPED_TRACE("reshape2_grad " + c.x.ToString() + " -> " + operators::ListToString(c.shape));
    std::vector<int64_t> xshape = c.x.ToVector();
    xshape.insert(xshape.begin(), 0);
    // The forward output's dims: reshape2's own inference.
    const DenseTensor x = MakeTensor<double>(c.x, RandomValues(c.x.numel(), 0, 1));
    const auto forward = RunOp("reshape2", {{"X", {x}}}, {{"Out", 1}}, {{"shape", c.shape}});
    const DDim out_dims = forward.outputs.at("Out")[0].dims();
    GradCheck check;
    check.op_type = "reshape2_grad";
    check.inputs = {{"XShape", {MakeTensor<double>(DDim(xshape), {})}},
                    {"Out@GRAD", {MakeTensor<double>(out_dims,
                                                     RandomValues(out_dims.numel(), -2, 2, 5))}}};
    check.outputs = {{"X@GRAD", 1}};
    check.attrs = {{"shape", c.shape}};
    check.wrt = {"Out@GRAD"};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(Reshape2Grad, IntegerKernels) {
  const auto r = RunOp("reshape2_grad",
                       {{"XShape", {MakeTensor<int64_t>({0, 2, 2}, {})}},
                        {"Out@GRAD", {MakeTensor<int64_t>({4}, {1, -2, 3, 4})}}},
                       {{"X@GRAD", 1}});
  const DenseTensor& dx = r.outputs.at("X@GRAD")[0];
  EXPECT_EQ(dx.dtype(), DataType::INT64);
  EXPECT_EQ(dx.dims(), DDim({2, 2}));
  ExpectNear(ToDoubles(dx), {1, -2, 3, 4}, 0, 0, "dx");
  const auto r32 = RunOp("reshape2_grad",
                         {{"XShape", {MakeTensor<int32_t>({0, 3}, {})}},
                          {"Out@GRAD", {MakeTensor<int32_t>({3, 1}, {7, 8, 9})}}},
                         {{"X@GRAD", 1}});
  EXPECT_EQ(r32.outputs.at("X@GRAD")[0].dims(), DDim({3}));
  EXPECT_THROW(RunOp("reshape2_grad",
                     {{"XShape", {MakeTensor<double>({0, 2, 2}, {})}},
                      {"Out@GRAD", {MakeTensor<double>({3}, {1, 2, 3})}}},
                     {{"X@GRAD", 1}}),
               platform::Error);
}

// ---- reshape (the first version) ----

TEST(ReshapeV1Grad, MatchesFiniteDifferencesToThirdOrder) {
  // reshape -> reshape_grad (X's dims from X) -> reshape: the third order runs the gradient of
  // reshape_grad.
  unsigned seed = 70;
  for (const auto& c : kReshapeCases) {
    SCOPED_TRACE("reshape " + c.x.ToString() + " -> " + operators::ListToString(c.shape));
    GradCheck check;
    check.op_type = "reshape";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"shape", c.shape}};
    check.max_order = 3;
    CheckGradients(check);
  }
  GradCheck from_tensor;
  from_tensor.op_type = "reshape";
  from_tensor.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 90))}},
                        {"Shape", {MakeTensor<int32_t>({3}, {3, 1, -1})}}};
  from_tensor.outputs = {{"Out", 1}};
  from_tensor.wrt = {"X"};
  from_tensor.max_order = 2;
  CheckGradients(from_tensor);
}

TEST(ReshapeV1Grad, GradOpReadsOnlyTheDimsOfX) {
  ProgramDesc program = ProgramWithInput({2, 3});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "reshape", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"shape", std::vector<int>{3, 2}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "y");
  const std::string dx = result.grad_of.at("x");
  const OpDesc* grad_op = nullptr;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "reshape_grad") grad_op = b.Op(i);
  }
  ASSERT_NE(grad_op, nullptr);
  EXPECT_EQ(grad_op->Inputs(),
            (framework::VariableNameMap{{"X", {"x"}}, {"Out@GRAD", {"y@GRAD"}}}));
  // X is read for its dims only: the memory plan may free its buffer after the forward op.
  EXPECT_FALSE(framework::OpRegistry::CreateOp(*grad_op)->NeedsBuffer("X"));
  EXPECT_EQ(b.FindVar(dx)->GetShape(), (std::vector<int64_t>{2, 3}));
  framework::Scope scope;
  const auto fetched =
      framework::Executor(platform::CPUPlace())
          .Run(program, &scope, {{"x", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}}, {dx});
  EXPECT_EQ(fetched[0].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(fetched[0]), std::vector<double>(6, 1.0), 0, 0, "dx");
}

// ---- transpose2 ----

struct TransposeCase {
  DDim x;
  std::vector<int> axis;
};

const TransposeCase kTransposeCases[] = {
    {{3}, {0}},
    {{2, 3}, {1, 0}},
    {{3, 1}, {0, 1}},
    {{2, 3, 2}, {2, 0, 1}},
    {{2, 3, 2}, {1, 2, 0}},
    {{1, 2, 3}, {-1, 0, -2}},  // Negative entries count from the end.
    {{2, 1, 2, 3}, {3, 1, 0, 2}},
};

TEST(Transpose2Grad, FirstAndSecondOrderMatchFiniteDifferences) {
  // transpose2 and transpose, its first version (no XShape).
  unsigned seed = 40;
  for (const std::string type : {"transpose2", "transpose"}) {
    for (const auto& c : kTransposeCases) {
      SCOPED_TRACE(type + " " + c.x.ToString() + " axis " + operators::ListToString(c.axis));
      GradCheck check;
      check.op_type = type;
      check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
      check.outputs = {{"Out", 1}};
      if (type == "transpose2") check.outputs["XShape"] = 1;
      check.loss_outputs = {"Out"};
      check.attrs = {{"axis", c.axis}};
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(Transpose2Grad, GradIsTransposeByTheInversePermutation) {
  ProgramDesc program = ProgramWithInput({2, 3, 2});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "transpose2", {{"X", {"x"}}}, {{"Out", {"y"}}, {"XShape", {"x_shape"}}},
        {{"axis", std::vector<int>{2, 0, 1}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "y");
  const std::string dx = result.grad_of.at("x");
  const OpDesc* grad_op = nullptr;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    if (b.Op(i)->Output("Out") == std::vector<std::string>{dx}) grad_op = b.Op(i);
  }
  ASSERT_NE(grad_op, nullptr);
  EXPECT_EQ(grad_op->Type(), "transpose2");
  EXPECT_EQ(grad_op->Input("X"), std::vector<std::string>{"y@GRAD"});
  EXPECT_EQ(grad_op->Attr<std::vector<int>>("axis"), (std::vector<int>{1, 2, 0}));
  ASSERT_EQ(grad_op->Output("XShape").size(), 1u);
  EXPECT_NE(grad_op->Output("XShape")[0], "x_shape");
  EXPECT_EQ(ReadBy(program, forward_ops).count("x"), 0u);
  EXPECT_EQ(b.FindVar(dx)->GetShape(), (std::vector<int64_t>{2, 3, 2}));
}

// ---- cast ----

TEST(CastGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  unsigned seed = 60;
  for (const DDim& dims : kShapes) {
    SCOPED_TRACE("cast " + dims.ToString());
    GradCheck check;
    check.op_type = "cast";
    check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"in_dtype", 6}, {"out_dtype", 6}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(CastGrad, GradientCastsBackToTheInputDtype) {
  // float32 -> float64: dX is float32 ones (the loss sums Out).
  const auto grads = NthGradient("cast", {{"X", {MakeTensor<float>({2, 2}, {1.5, -2, 0, 3})}}},
                                 {{"Out", 1}}, {{"in_dtype", 5}, {"out_dtype", 6}}, 1);
  const DenseTensor& dx = grads.at("X_0");
  EXPECT_EQ(dx.dtype(), DataType::FLOAT32);
  EXPECT_EQ(dx.dims(), DDim({2, 2}));
  ExpectNear(ToDoubles(dx), std::vector<double>(4, 1.0), 0, 0, "dx");

  ProgramDesc program = ProgramWithInput({3});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "cast", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"in_dtype", 6}, {"out_dtype", 5}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "y");
  const std::string dx_name = result.grad_of.at("x");
  const OpDesc* grad_op = b.Op(b.OpSize() - 1);
  ASSERT_GT(b.OpSize(), forward_ops);
  EXPECT_EQ(grad_op->Type(), "cast");
  EXPECT_EQ(grad_op->Output("Out"), std::vector<std::string>{dx_name});
  EXPECT_EQ(grad_op->Attr<int>("in_dtype"), 5);
  EXPECT_EQ(grad_op->Attr<int>("out_dtype"), 6);
  EXPECT_EQ(b.FindVar(dx_name)->GetDataType(), DataType::FLOAT64);
}

TEST(CastGrad, IntegerOutputCarriesNoGradient) {
  // x -> cast to int64 -> y: nothing floating reaches the loss.
  ProgramDesc program = ProgramWithInput({3});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "cast", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"in_dtype", 6}, {"out_dtype", 3}});
  EXPECT_THROW(framework::AppendBackward(&program, "y"), platform::InvalidArgumentError);
}

// ---- assign ----

TEST(AssignGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  unsigned seed = 80;
  for (const DDim& dims : kShapes) {
    SCOPED_TRACE("assign " + dims.ToString());
    GradCheck check;
    check.op_type = "assign";
    check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(AssignGrad, GradIsAnAssign) {
  ProgramDesc program = ProgramWithInput({2, 2});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "assign", {{"X", {"x"}}}, {{"Out", {"y"}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "y");
  const OpDesc* grad_op = b.Op(b.OpSize() - 1);
  ASSERT_GT(b.OpSize(), forward_ops);
  EXPECT_EQ(grad_op->Type(), "assign");
  EXPECT_EQ(grad_op->Input("X"), std::vector<std::string>{"y@GRAD"});
  EXPECT_EQ(grad_op->Output("Out"), std::vector<std::string>{result.grad_of.at("x")});
  EXPECT_EQ(ReadBy(program, forward_ops).count("x"), 0u);
}

// ---- ops without gradients ----

TEST(TensorGrad, FillConstantNeedsNoGradMaker) {
  // A constant feeding the loss is off the gradient path: x still gets its gradient.
  ProgramDesc program = ProgramWithInput({3});
  BlockDesc& b = program.Block(0);
  AddOp(&b, "fill_constant", {}, {{"Out", {"c"}}},
        {{"shape", std::vector<int64_t>{3}}, {"dtype", 6}, {"value", 2.0f}});
  AddOp(&b, "assign", {{"X", {"x"}}}, {{"Out", {"y"}}});
  AddOp(&b, "elementwise_mul", {{"X", {"y"}}, {"Y", {"c"}}}, {{"Out", {"z"}}});
  const auto result = framework::AppendBackward(&program, "z");
  ASSERT_EQ(result.grad_of.count("x"), 1u);
  EXPECT_EQ(result.grad_of.count("c"), 0u);
  framework::Scope scope;
  const auto fetched =
      framework::Executor(platform::CPUPlace())
          .Run(program, &scope, {{"x", MakeTensor<double>({3}, {1, 2, 3})}},
               {result.grad_of.at("x")});
  ExpectNear(ToDoubles(fetched[0]), {2, 2, 2}, 0, 0, "dx");
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
