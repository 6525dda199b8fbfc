// Activation ops: forward against double references, as a table over ops x dtypes x shapes,
// plus declarations (docs, extra attributes) and errors.
#include <cmath>
#include <limits>

#include "framework/op_info.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct ActivationCase {
  const char* type;
  double (*reference)(double);
  double lo, hi;  // Input range.
  const char* formula_part;
};

const ActivationCase kCases[] = {
    {"relu", [](double x) { return x > 0 ? x : 0.0; }, -3, 3, "\\max"},
    {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8, "\\frac{1}{1 + e^{-X}}"},
    {"tanh", [](double x) { return std::tanh(x); }, -4, 4, "e^{X}"},
    {"exp", [](double x) { return std::exp(x); }, -5, 5, "e^{X}"},
    {"log", [](double x) { return std::log(x); }, 0.05, 10, "\\ln"},
    {"sin", [](double x) { return std::sin(x); }, -6, 6, "\\sin"},
    {"cos", [](double x) { return std::cos(x); }, -6, 6, "\\cos"},
    {"square", [](double x) { return x * x; }, -4, 4, "X^2"},
    {"sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, -3, 3, "\\mathrm{sign}"},
    {"abs", [](double x) { return std::fabs(x); }, -3, 3, "|X|"},
    {"floor", [](double x) { return std::floor(x); }, -3, 3, "\\lfloor"},
    {"ceil", [](double x) { return std::ceil(x); }, -3, 3, "\\lceil"},
    {"round", [](double x) { return std::nearbyint(x); }, -3, 3, "\\mathrm{round}"},
    {"reciprocal", [](double x) { return 1 / x; }, 0.2, 3, "\\frac{1}{X}"},
    {"erf", [](double x) { return std::erf(x); }, -3, 3, "\\int_0^X"},
    {"silu", [](double x) { return x / (1 + std::exp(-x)); }, -6, 6, "\\frac{X}{1 + e^{-X}}"},
    {"logsigmoid",
     [](double x) { return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)); }, -20,
     20, "\\ln \\frac{1}{1 + e^{-X}}"},
    {"softsign", [](double x) { return x / (1 + std::fabs(x)); }, -5, 5, "\\frac{X}{1 + |X|}"},
    {"tan", [](double x) { return std::tan(x); }, -1.2, 1.2, "\\tan"},
    {"atan", [](double x) { return std::atan(x); }, -5, 5, "\\arctan"},
    {"asin", [](double x) { return std::asin(x); }, -0.95, 0.95, "\\arcsin"},
    {"acos", [](double x) { return std::acos(x); }, -0.95, 0.95, "\\arccos"},
    {"sinh", [](double x) { return std::sinh(x); }, -3, 3, "\\sinh"},
    {"cosh", [](double x) { return std::cosh(x); }, -3, 3, "\\cosh"},
    {"log1p", [](double x) { return std::log(1 + x); }, -0.9, 5, "\\ln(1 + X)"},
    {"expm1", [](double x) { return std::exp(x) - 1; }, -3, 3, "e^{X} - 1"},
    {"log2", [](double x) { return std::log(x) / std::log(2.0); }, 0.05, 10, "\\log_2"},
    {"log10", [](double x) { return std::log(x) / std::log(10.0); }, 0.05, 10, "\\log_{10}"},
    {"tanh_shrink", [](double x) { return x - std::tanh(x); }, -4, 4, "X - \\tanh"},
    {"asinh", [](double x) { return std::log(x + std::sqrt(x * x + 1)); }, -5, 5,
     "\\operatorname{arsinh}"},
    {"acosh", [](double x) { return std::log(x + std::sqrt(x * x - 1)); }, 1.05, 6,
     "\\operatorname{arcosh}"},
    {"atanh", [](double x) { return 0.5 * std::log((1 + x) / (1 - x)); }, -0.95, 0.95,
     "\\operatorname{artanh}"},
};

const DDim kShapes[] = {DDim({3, 5}),  DDim({1, 1, 7}), DDim({0, 4}), DDim({}),
                        DDim({2, 1, 3}), DDim({1}),     DDim({40000})};

template <typename T>
void CheckCase(const ActivationCase& c, const DDim& dims) {
  const std::string what = std::string(c.type) + " " + dims.ToString();
  const auto x = RandomValues(dims.numel(), c.lo, c.hi, 11);
  auto r = RunOp(c.type, {{"X", {MakeTensor<T>(dims, x)}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), dims) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  std::vector<double> expected;
  for (double v : x) expected.push_back(c.reference(static_cast<double>(static_cast<T>(v))));
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), expected, RelTol(t), AbsTol(t), what);
}

TEST(ActivationOps, ForwardMatchesReference) {
  for (const auto& c : kCases) {
    for (const DDim& d : kShapes) {
      CheckCase<float>(c, d);
      CheckCase<double>(c, d);
    }
  }
}

TEST(ActivationOps, RoundKeepsDecimalPlaces) {
  const std::vector<double> x = {1.234567, -2.125, 0.005, 1234.5, -1250, 0};
  auto run = [&](int decimals) {
    return ToDoubles(RunOp("round", {{"X", {MakeTensor<double>({6}, x)}}}, {{"Out", 1}},
                           {{"decimals", decimals}})
                         .outputs["Out"][0]);
  };
  // -2.125 and 0.005 are halves at 2 places (x 100 gives -212.5 and 0.5): to even.
  ExpectNear(run(2), {1.23, -2.12, 0, 1234.5, -1250, 0}, 1e-15, 0, "decimals 2");
  ExpectNear(run(-2), {0, 0, 0, 1200, -1200, 0}, 0, 0, "decimals -2");
  ExpectNear(run(0), {1, -2, 0, 1234, -1250, 0}, 0, 0, "decimals 0");
}

TEST(ActivationOps, InputIsLeftUnchanged) {
  const std::vector<double> x = {-1, 0.5, 2};
  DenseTensor in = MakeTensor<double>({3}, x);
  RunOp("square", {{"X", {in}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(in), x, 0, 0, "input");
}

TEST(ActivationOps, EdgeValues) {
  const double inf = std::numeric_limits<double>::infinity();
  auto run = [](const char* type, std::vector<double> x) {
    return ToDoubles(
        RunOp(type, {{"X", {MakeTensor<float>({static_cast<int64_t>(x.size())}, x)}}},
              {{"Out", 1}})
            .outputs["Out"][0]);
  };
  // Sigmoid saturates without overflow warnings or NaN.
  ExpectNear(run("sigmoid", {-1000, 0, 1000}), {0, 0.5, 1}, 0, 0, "sigmoid");
  const auto log_out = run("log", {0, 1});
  EXPECT_EQ(log_out[0], -inf);
  EXPECT_EQ(log_out[1], 0);
  EXPECT_TRUE(std::isnan(run("log", {-1})[0]));
  ExpectNear(run("relu", {-2, 0, 3}), {0, 0, 3}, 0, 0, "relu");
  ExpectNear(run("sign", {-2, -0.0, 0, 1e-30, -inf, inf}), {-1, 0, 0, 1, -1, 1}, 0, 0, "sign");
  EXPECT_TRUE(std::isnan(run("sign", {std::nan("")})[0]));
  // Halves round to even, as PaddlePaddle 3 rounds.
  ExpectNear(run("round", {-2.5, -0.5, 0.5, 1.5, 2.5}), {-2, 0, 0, 2, 2}, 0, 0, "round");
  // logsigmoid and silu stay finite far out.
  ExpectNear(run("logsigmoid", {-1000, 1000}), {-1000, 0}, 0, 0, "logsigmoid");
  ExpectNear(run("silu", {-1000, 1000}), {0, 1000}, 0, 0, "silu");
  EXPECT_EQ(run("reciprocal", {0})[0], inf);
  EXPECT_TRUE(std::isnan(run("asin", {1.5})[0]));
}

TEST(ActivationOps, DeclarationsCarryFormulaAndExtraAttributes) {
  operators::RegisterAllOps();
  for (const auto& c : kCases) {
    const auto& info = framework::OpInfoMap::Instance().Get(c.type);
    EXPECT_NE(info.spec.comment.find("$$"), std::string::npos) << c.type;
    EXPECT_NE(info.spec.comment.find(c.formula_part), std::string::npos) << c.type;
    for (const char* name : {"use_mkldnn", "use_cudnn"}) {
      const auto* a = info.spec.FindAttr(name);
      ASSERT_NE(a, nullptr) << c.type << " " << name;
      EXPECT_TRUE(a->extra) << c.type << " " << name;
      EXPECT_EQ(a->type, framework::AttrType::BOOLEAN);
      EXPECT_EQ(std::get<bool>(a->default_value), false);
    }
    ASSERT_NE(info.spec.FindInput("X"), nullptr);
    ASSERT_NE(info.spec.FindOutput("Out"), nullptr);
  }
}

TEST(ActivationOps, MissingInputNamesOpAndSlot) {
  try {
    RunOp("tanh", {}, {{"Out", 1}});
    FAIL() << "expected NotFoundError";
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("op `tanh` input `X`"), std::string::npos) << e.what();
  }
}

TEST(ActivationOps, IntegerInputHasNoKernel) {
  DenseTensor x({2}, DataType::INT64);
  x.mutable_data<int64_t>(platform::CPUPlace());
  try {
    RunOp("exp", {{"X", {x}}}, {{"Out", 1}});
    FAIL() << "expected NotFoundError";
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("exp"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
