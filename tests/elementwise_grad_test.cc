// Gradients of the elementwise ops (add, sub, mul, div) against finite differences, first
// and second order, with every broadcasting layout the `axis` rule allows; and the backward
// ops the grad makers emit.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Layout {
  std::vector<int64_t> x, y;
  int axis;
};

// Same shape; Y [3] right-aligned in X [2, 3]; Y in the middle with axis = 1; size-1 dims
// broadcasting on both sides; X of lower rank than Y (with and without axis); equal ranks
// where Y's trailing 1 is dropped; a 0-D Y.
const std::vector<Layout> kLayouts = {
    {{2, 3}, {2, 3}, -1}, {{2, 3}, {3}, -1},      {{2, 3, 2}, {3}, 1},
    {{2, 1}, {1, 3}, -1}, {{2, 1, 3}, {2, 1}, 1}, {{3}, {2, 3}, -1},
    {{3}, {2, 3, 2}, 1},  {{2, 3}, {3, 1}, 1},    {{2, 3}, {}, -1},
};

std::string Describe(const std::string& op, const Layout& l) {
  return op + " X " + DDim(l.x).ToString() + " Y " + DDim(l.y).ToString() + " axis " +
         std::to_string(l.axis);
}

void CheckOp(const std::string& op, double y_lo, double y_hi) {
  unsigned seed = 11;
  for (const Layout& l : kLayouts) {
    SCOPED_TRACE(Describe(op, l));
    const DDim xd(l.x), yd(l.y);
    GradCheck c;
    c.op_type = op;
    c.inputs = {{"X", {MakeTensor<double>(xd, RandomValues(xd.numel(), -1.5, 1.5, seed++))}},
                {"Y", {MakeTensor<double>(yd, RandomValues(yd.numel(), y_lo, y_hi, seed++))}}};
    c.outputs = {{"Out", 1}};
    c.attrs = {{"axis", l.axis}};
    c.max_order = 2;
    c.rtol = 1e-6;
    c.atol = 1e-7;
    CheckGradients(c);
  }
}

TEST(ElementwiseGrad, AddFirstAndSecondOrder) { CheckOp("elementwise_add", -1.5, 1.5); }
TEST(ElementwiseGrad, SubFirstAndSecondOrder) { CheckOp("elementwise_sub", -1.5, 1.5); }
TEST(ElementwiseGrad, MulFirstAndSecondOrder) { CheckOp("elementwise_mul", -1.5, 1.5); }
TEST(ElementwiseGrad, DivFirstAndSecondOrder) { CheckOp("elementwise_div", 0.6, 1.8); }

TEST(ElementwiseGrad, OnlyOneSideWanted) {
  for (const char* op : {"elementwise_mul", "elementwise_div", "elementwise_sub"}) {
    for (const char* side : {"X", "Y"}) {
      SCOPED_TRACE(std::string(op) + " wrt " + side);
      GradCheck c;
      c.op_type = op;
      c.inputs = {{"X", {MakeTensor<double>({2, 3, 2}, RandomValues(12, -1, 1, 3))}},
                  {"Y", {MakeTensor<double>({3}, RandomValues(3, 0.7, 1.6, 4))}}};
      c.outputs = {{"Out", 1}};
      c.attrs = {{"axis", 1}};
      c.wrt = {side};
      c.max_order = 2;
      c.rtol = 1e-6;
      CheckGradients(c);
    }
  }
}

// Third order in closed form. NthGradient differentiates the plain sum of all gradients of
// the previous order: with f = sum(x / y),
//   order 1: (1/y, -x/y^2); loss_2 = sum(1/y - x/y^2)
//   order 2: (-1/y^2, -1/y^2 + 2x/y^3); loss_3 = sum(-2/y^2 + 2x/y^3)
//   order 3: (2/y^3, 4/y^3 - 6x/y^4).
TEST(ElementwiseGrad, DivThirdOrderInClosedForm) {
  const std::vector<double> x = {1.0, -0.5, 2.0};
  const std::vector<double> y = {0.8, 1.25, 2.0};
  auto g = NthGradient("elementwise_div",
                       {{"X", {MakeTensor<double>({3}, x)}}, {"Y", {MakeTensor<double>({3}, y)}}},
                       {{"Out", 1}}, {{"axis", -1}}, 3);
  std::vector<double> dx, dy;
  for (size_t i = 0; i < y.size(); ++i) {
    const double v = y[i];
    dx.push_back(2 / (v * v * v));
    dy.push_back(4 / (v * v * v) - 6 * x[i] / (v * v * v * v));
  }
  ExpectNear(ToDoubles(g.at("X_0")), dx, 1e-12, 1e-12, "third order, x");
  ExpectNear(ToDoubles(g.at("Y_0")), dy, 1e-12, 1e-12, "third order, y");
}

TEST(ElementwiseGrad, ThirdOrderWithBroadcasting) {
  for (const char* op : {"elementwise_mul", "elementwise_div"}) {
    SCOPED_TRACE(op);
    GradCheck c;
    c.op_type = op;
    c.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 5))}},
                {"Y", {MakeTensor<double>({3}, RandomValues(3, 0.7, 1.5, 6))}}};
    c.outputs = {{"Out", 1}};
    c.max_order = 3;
    c.rtol = 1e-6;
    c.atol = 1e-7;
    CheckGradients(c);
  }
}

// The ops a first backward pass emits for one forward elementwise op.
std::vector<std::string> BackwardOps(const std::string& op, const Layout& l) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  auto add = [&b](const std::string& type, const framework::VariableNameMap& in,
                  const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* o = b.AppendOp();
    o->SetType(type);
    for (const auto& kv : in) o->SetInput(kv.first, kv.second);
    for (const auto& kv : out) o->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) o->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(o, &b);
  };
  for (const auto& kv : std::map<std::string, std::vector<int64_t>>{{"x", l.x}, {"y", l.y}}) {
    framework::VarDesc* v = b.Var(kv.first);
    v->SetDataType(DataType::FLOAT64);
    v->SetShape(kv.second);
  }
  add(op, {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}}, {{"axis", l.axis}});
  add("reduce_sum", {{"X", {"out"}}}, {{"Out", {"loss"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const size_t forward_ops = b.OpSize();
  framework::AppendBackward(&p, "loss");
  std::vector<std::string> types;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) types.push_back(b.Op(i)->Type());
  return types;
}

size_t Count(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<size_t>(std::count(v.begin(), v.end(), s));
}

TEST(ElementwiseGrad, EmitsDifferentiableForwardOps) {
  // Add: one reduce_as per input (a copy when shapes are equal).
  auto ops = BackwardOps("elementwise_add", {{2, 3}, {3}, -1});
  EXPECT_EQ(Count(ops, "reduce_as"), 2u);
  // Mul with equal shapes: the products are written to the gradients directly.
  ops = BackwardOps("elementwise_mul", {{2, 3}, {2, 3}, -1});
  EXPECT_EQ(Count(ops, "elementwise_mul"), 2u);
  EXPECT_EQ(Count(ops, "reduce_as"), 0u);
  // Mul with a broadcast Y: only Y's gradient is summed.
  ops = BackwardOps("elementwise_mul", {{2, 3, 2}, {3}, 1});
  EXPECT_EQ(Count(ops, "reduce_as"), 1u);
  // Sub and div negate with scale.
  ops = BackwardOps("elementwise_sub", {{2, 3}, {3}, -1});
  EXPECT_EQ(Count(ops, "scale"), 1u);
  ops = BackwardOps("elementwise_div", {{2, 3}, {3}, -1});
  EXPECT_EQ(Count(ops, "scale"), 1u);
  for (const auto& t : ops) EXPECT_EQ(t.find("_grad"), std::string::npos) << t;
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
