// elu, selu, celu, mish, stanh, hard_shrink, softshrink, thresholded_relu and brelu against
// their closed forms in double, at default and other attributes, with inputs on both sides of
// every kink; their attribute checks. Their grad ops (`<type>_grad`) are checked against
// finite differences by tests/paddle_grad_ops_test.cc (every unary fused grad op) and here at
// non-default attributes.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Case {
  std::string type;
  AttributeMap attrs;
  std::function<double(double)> reference;
};

double Softplus(double x) { return std::log(1 + std::exp(x)); }

std::vector<Case> Cases() {
  // Attributes are floats: the references use their float values.
  const double selu_scale = 1.0507009873554804934193349852946f;
  const double selu_alpha = 1.6732632423543772848170429916717f;
  const double elu_alpha = 0.3f, stanh_a = 0.67f, stanh_b = 1.7159f;
  return {
      {"elu", {}, [](double x) { return x > 0 ? x : std::exp(x) - 1; }},
      {"elu", {{"alpha", 0.3f}},
       [=](double x) { return x > 0 ? x : elu_alpha * (std::exp(x) - 1); }},
      {"selu", {},
       [=](double x) { return selu_scale * (x > 0 ? x : selu_alpha * (std::exp(x) - 1)); }},
      {"selu", {{"scale", 2.0f}, {"alpha", 0.5f}},
       [](double x) { return 2 * (x > 0 ? x : 0.5 * (std::exp(x) - 1)); }},
      {"celu", {}, [](double x) { return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1); }},
      {"celu", {{"alpha", 2.0f}},
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }},
      {"celu", {{"alpha", -1.5f}},
       [](double x) { return std::max(0.0, x) + std::min(0.0, -1.5 * (std::exp(x / -1.5) - 1)); }},
      {"mish", {}, [](double x) { return x * std::tanh(x > 20 ? x : Softplus(x)); }},
      {"mish", {{"threshold", 1.0f}}, [](double x) { return x * std::tanh(x > 1 ? x : Softplus(x)); }},
      {"stanh", {}, [=](double x) { return stanh_b * std::tanh(stanh_a * x); }},
      {"stanh", {{"scale_a", 2.0f}, {"scale_b", -0.5f}},
       [](double x) { return -0.5 * std::tanh(2 * x); }},
      // The boundary is kept (PaddlePaddle 3's behaviour).
      {"hard_shrink", {}, [](double x) { return std::fabs(x) >= 0.5 ? x : 0.0; }},
      {"hard_shrink", {{"threshold", 1.25f}},
       [](double x) { return std::fabs(x) >= 1.25 ? x : 0.0; }},
      {"hard_shrink", {{"threshold", -1.0f}}, [](double x) { return x; }},
      {"softshrink", {},
       [](double x) { return x > 0.5 ? x - 0.5 : (x < -0.5 ? x + 0.5 : 0.0); }},
      {"softshrink", {{"lambda", 0.0f}}, [](double x) { return x; }},
      {"thresholded_relu", {}, [](double x) { return x > 1 ? x : 0.0; }},
      {"thresholded_relu", {{"threshold", -0.5f}, {"value", 2.0f}},
       [](double x) { return x > -0.5 ? x : 2.0; }},
      {"brelu", {}, [](double x) { return std::min(std::max(x, 0.0), 24.0); }},
      {"brelu", {{"t_min", -1.0f}, {"t_max", 1.5f}},
       [](double x) { return std::min(std::max(x, -1.0), 1.5); }},
  };
}

TEST(PiecewiseActivationOp, MatchesClosedForms) {
  operators::RegisterAllOps();
  // Both sides of every kink (0, +-0.5, +-1, +-1.25, 1.5, 20, 24) and far out.
  std::vector<double> xs = {-30, -21, -4, -1.25, -1.2, -0.5, -0.3, 0,  0.2, 0.5,
                            0.9, 1.1,  1.25, 1.6,  3,   19,   21,   23, 25,  40};
  for (double x : RandomValues(40, -3, 3, 5)) xs.push_back(x);
  const DDim dims({2, 3, 10});
  for (const Case& c : Cases()) {
    std::vector<double> want;
    for (double x : xs) want.push_back(c.reference(x));
    for (DataType dtype : {DataType::FLOAT64, DataType::FLOAT32}) {
      const DenseTensor x = dtype == DataType::FLOAT64 ? MakeTensor<double>(dims, xs)
                                                       : MakeTensor<float>(dims, xs);
      const OpRunResult r = RunOp(c.type, {{"X", {x}}}, {{"Out", 1}}, c.attrs);
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), dims);
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, RelTol(dtype), AbsTol(dtype),
                 c.type + " " + std::to_string(c.attrs.size()) + " attrs");
    }
  }
}

// The fused grad ops at non-default attributes against central differences of the forward op
// (paddle_grad_ops_test.cc covers the defaults).
TEST(PiecewiseActivationOp, GradOpsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  const DDim dims({4, 5});
  for (const Case& c : Cases()) {
    // Inputs away from the kinks by more than the step.
    std::vector<double> xs = RandomValues(dims.numel(), -3, 3, 17);
    const auto forward = [&](const std::vector<double>& v) {
      return ToDoubles(RunOp(c.type, {{"X", {MakeTensor<double>(dims, v)}}}, {{"Out", 1}}, c.attrs)
                           .outputs.at("Out")[0]);
    };
    const std::vector<double> dout = RandomValues(dims.numel(), -1, 1, 18);
    std::vector<double> want(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      const double h = 1e-6;
      std::vector<double> plus = xs, minus = xs;
      plus[i] += h;
      minus[i] -= h;
      want[i] = dout[i] * (forward(plus)[i] - forward(minus)[i]) / (2 * h);
    }
    const std::string dep = c.type == "selu" ? "Out" : "X";
    const DenseTensor read = dep == "X" ? MakeTensor<double>(dims, xs)
                                        : MakeTensor<double>(dims, forward(xs));
    const OpRunResult r = RunOp(c.type + "_grad",
                                {{dep, {read}}, {"Out@GRAD", {MakeTensor<double>(dims, dout)}}},
                                {{"X@GRAD", 1}}, c.attrs);
    ExpectNear(ToDoubles(r.outputs.at("X@GRAD")[0]), want, 1e-6, 1e-7, c.type + "_grad");
  }
}

TEST(PiecewiseActivationOp, BadAttributesAreErrors) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2}, {1, 2});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("celu", {{"X", {x}}}, {{"Out", 1}}, {{"alpha", 0.0f}}); },
      {"op `celu` attribute `alpha`", "non-zero", "received 0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("softshrink", {{"X", {x}}}, {{"Out", 1}}, {{"lambda", -0.5f}}); },
      {"op `softshrink` attribute `lambda`", ">= 0", "-0.5"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("brelu", {{"X", {x}}}, {{"Out", 1}}, {{"t_min", 2.0f}, {"t_max", 1.0f}}); },
      {"op `brelu`", "t_min <= t_max", "2 > 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
