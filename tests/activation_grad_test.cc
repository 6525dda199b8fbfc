// Gradients of the activation ops: first and second orders against finite differences in
// float64 over several shapes, higher orders against closed forms, the backward ops a grad
// maker emits, and the gradient line of each op's doc.
#include <cmath>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/op_proto_maker.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct GradCase {
  const char* type;
  double lo, hi;        // Input range.
  bool away_from_zero;  // Inputs satisfy |x| >= lo (hi > lo > 0), with random signs.
};

// Inputs stay away from points where the op is not differentiable (relu, sign and abs at 0,
// softsign's second derivative at 0) and inside the domain (log, reciprocal, asin, acos).
// floor, ceil and round pass no gradient (their derivative is 0 between the integers).
const GradCase kCases[] = {
    {"relu", 0.1, 2, true},     {"sigmoid", -3, 3, false},     {"tanh", -2, 2, false},
    {"exp", -1.5, 1.5, false},  {"log", 0.5, 2, false},        {"sin", -3, 3, false},
    {"cos", -3, 3, false},      {"square", -2, 2, false},      {"sign", 0.1, 2, true},
    {"abs", 0.1, 2, true},      {"reciprocal", 0.5, 2, true},  {"erf", -2, 2, false},
    {"silu", -3, 3, false},     {"logsigmoid", -3, 3, false},  {"softsign", 0.1, 2, true},
    {"tan", -1, 1, false},      {"atan", -2, 2, false},        {"asin", -0.8, 0.8, false},
    {"acos", -0.8, 0.8, false}, {"sinh", -2, 2, false},        {"cosh", -2, 2, false},
    {"log1p", -0.5, 2, false},  {"expm1", -1.5, 1.5, false},   {"log2", 0.5, 2, false},
    {"log10", 0.5, 2, false},   {"tanh_shrink", -2, 2, false}, {"asinh", -2, 2, false},
    {"acosh", 1.2, 3, false},   {"atanh", -0.7, 0.7, false},
};

// Small shapes: finite differences run the program twice per element.
const DDim kShapes[] = {DDim({3}), DDim({2, 3}), DDim({1, 4}), DDim({2, 1, 3})};

std::vector<double> Inputs(const GradCase& c, int64_t n, unsigned seed) {
  std::vector<double> x = RandomValues(n, c.lo, c.hi, seed);
  if (c.away_from_zero) {
    const std::vector<double> side = RandomValues(n, 0, 1, seed + 100);
    for (int64_t i = 0; i < n; ++i) {
      if (side[i] < 0.5) x[i] = -x[i];
    }
  }
  return x;
}

TEST(ActivationGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  for (const auto& c : kCases) {
    unsigned seed = 3;
    for (const DDim& dims : kShapes) {
      SCOPED_TRACE(std::string(c.type) + " " + dims.ToString());
      GradCheck check;
      check.op_type = c.type;
      check.inputs = {{"X", {MakeTensor<double>(dims, Inputs(c, dims.numel(), seed++))}}};
      check.outputs = {{"Out", 1}};
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

// The order-`order` derivative of sum(op(x)) with respect to x.
std::vector<double> Derivative(const std::string& type, const std::vector<double>& x, int order) {
  const auto grads =
      NthGradient(type, {{"X", {MakeTensor<double>({3}, x)}}}, {{"Out", 1}}, {}, order);
  return ToDoubles(grads.at("X_0"));
}

std::vector<double> Map(const std::vector<double>& x, double (*f)(double)) {
  std::vector<double> y;
  for (double v : x) y.push_back(f(v));
  return y;
}

const std::vector<double> kX = {-1.3, 0.4, 2.1};

TEST(ActivationGrad, SinHigherOrdersHaveClosedForms) {
  ExpectNear(Derivative("sin", kX, 1), Map(kX, [](double x) { return std::cos(x); }), 1e-12, 1e-12,
             "d sin");
  ExpectNear(Derivative("sin", kX, 2), Map(kX, [](double x) { return -std::sin(x); }), 1e-12, 1e-12,
             "d2 sin");
  ExpectNear(Derivative("sin", kX, 3), Map(kX, [](double x) { return -std::cos(x); }), 1e-12, 1e-12,
             "d3 sin");
  ExpectNear(Derivative("cos", kX, 2), Map(kX, [](double x) { return -std::cos(x); }), 1e-12, 1e-12,
             "d2 cos");
  ExpectNear(Derivative("cos", kX, 3), Map(kX, [](double x) { return std::sin(x); }), 1e-12, 1e-12,
             "d3 cos");
}

TEST(ActivationGrad, ExpIsItsOwnDerivative) {
  for (int order = 1; order <= 3; ++order) {
    ExpectNear(Derivative("exp", kX, order), Map(kX, [](double x) { return std::exp(x); }), 1e-12,
               1e-12, "exp order " + std::to_string(order));
  }
}

TEST(ActivationGrad, SquareSecondOrderIsTwoAndThirdIsZero) {
  ExpectNear(Derivative("square", kX, 1), Map(kX, [](double x) { return 2 * x; }), 0, 0,
             "d square");
  ExpectNear(Derivative("square", kX, 2), {2, 2, 2}, 0, 0, "d2 square");
  ExpectNear(Derivative("square", kX, 3), {0, 0, 0}, 0, 0, "d3 square");
}

TEST(ActivationGrad, LogTanhSigmoidSecondOrders) {
  const std::vector<double> pos = {0.5, 1.2, 2};
  ExpectNear(Derivative("log", pos, 2), Map(pos, [](double x) { return -1 / (x * x); }), 1e-12,
             1e-12, "d2 log");
  ExpectNear(Derivative("log", pos, 3), Map(pos, [](double x) { return 2 / (x * x * x); }), 1e-12,
             1e-12, "d3 log");
  ExpectNear(Derivative("tanh", kX, 2),
             Map(kX,
                 [](double x) {
                   const double t = std::tanh(x);
                   return -2 * t * (1 - t * t);
                 }),
             1e-12, 1e-12, "d2 tanh");
  ExpectNear(Derivative("sigmoid", kX, 2),
             Map(kX,
                 [](double x) {
                   const double s = 1 / (1 + std::exp(-x));
                   return s * (1 - s) * (1 - 2 * s);
                 }),
             1e-12, 1e-12, "d2 sigmoid");
}

TEST(ActivationGrad, ReluAndSignHigherOrdersAreZero) {
  const std::vector<double> x = {-1.5, 0.3, 2};
  ExpectNear(Derivative("relu", x, 1), {0, 1, 1}, 0, 0, "d relu");
  ExpectNear(Derivative("relu", x, 2), {0, 0, 0}, 0, 0, "d2 relu");
  ExpectNear(Derivative("sign", x, 1), {0, 0, 0}, 0, 0, "d sign");
}

// A one-op program `out = type(x)` (x float64 [2, 3]) whose backward is appended with `out` as
// the loss. Returns the appended ops other than the seed of out@GRAD.
std::vector<const framework::OpDesc*> BackwardOpsOf(framework::ProgramDesc* program,
                                                    const std::string& type) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = program->Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({2, 3});
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  framework::InferVarTypeAndShape(op, &b);
  framework::AppendBackward(program, "out");
  std::vector<const framework::OpDesc*> ops;
  for (size_t i = 1; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "fill_any_like" &&
        b.Op(i)->Output("Out") == std::vector<std::string>{"out@GRAD"}) {
      continue;
    }
    ops.push_back(b.Op(i));
  }
  return ops;
}

TEST(ActivationGrad, SinBackwardIsCosTimesOutputGradient) {
  framework::ProgramDesc program;
  const auto ops = BackwardOpsOf(&program, "sin");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0]->Type(), "cos");
  EXPECT_EQ(ops[1]->Type(), "elementwise_mul");
  for (const auto* op : ops) {
    EXPECT_EQ(std::get<int>(op->GetAttr("op_role")), static_cast<int>(framework::OpRole::kBackward))
        << op->Type();
  }
  // cos reads X (not Out); the product reads out@GRAD and writes x@GRAD.
  EXPECT_EQ(ops[0]->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(ops[1]->Input("X"), std::vector<std::string>{"out@GRAD"});
  EXPECT_EQ(ops[1]->Input("Y"), ops[0]->Output("Out"));
  EXPECT_EQ(ops[1]->Output("Out"), std::vector<std::string>{"x@GRAD"});
  EXPECT_EQ(std::get<int>(ops[1]->GetAttr("axis")), -1);
}

TEST(ActivationGrad, MakersReadOnlyWhatTheFormulaNeeds) {
  // type -> (backward op types, whether X is read, whether Out is read).
  struct Expected {
    const char* type;
    std::vector<std::string> ops;
    bool reads_x, reads_out;
  };
  const Expected kExpected[] = {
      {"relu", {"sign", "elementwise_mul"}, false, true},
      {"sigmoid", {"scale", "elementwise_mul", "elementwise_mul"}, false, true},
      {"tanh", {"square", "scale", "elementwise_mul"}, false, true},
      {"exp", {"elementwise_mul"}, false, true},
      {"log", {"elementwise_div"}, true, false},
      {"sin", {"cos", "elementwise_mul"}, true, false},
      {"cos", {"sin", "elementwise_mul", "scale"}, true, false},
      {"square", {"scale", "elementwise_mul"}, true, false},
      {"sign", {}, false, false},
  };
  for (const auto& e : kExpected) {
    SCOPED_TRACE(e.type);
    framework::ProgramDesc program;
    const auto ops = BackwardOpsOf(&program, e.type);
    std::vector<std::string> types;
    bool reads_x = false, reads_out = false;
    for (const auto* op : ops) {
      types.push_back(op->Type());
      for (const auto& in : op->InputArgumentNames()) {
        reads_x |= in == "x";
        reads_out |= in == "out";
      }
    }
    EXPECT_EQ(types, e.ops);
    EXPECT_EQ(reads_x, e.reads_x);
    EXPECT_EQ(reads_out, e.reads_out);
  }
}

TEST(ActivationGrad, DocsStateTheGradient) {
  operators::RegisterAllOps();
  for (const auto& c : kCases) {
    const auto& info = framework::OpInfoMap::Instance().Get(c.type);
    EXPECT_NE(info.spec.comment.find("Gradient"), std::string::npos) << c.type;
    EXPECT_NE(info.spec.comment.find("dX = "), std::string::npos) << c.type;
    EXPECT_TRUE(static_cast<bool>(info.grad_op_maker)) << c.type;
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
