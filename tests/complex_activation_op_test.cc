// Complex values through the elementwise math ops (operators/complex/complex_activation_op.cc):
// each function against its value written here through real functions of the parts
// (sin(a + ib) = sin a cosh b + i cos a sinh b, ...), the inverse functions against
// C99's logarithmic definitions of their principal branches; gradients by finite differences
// over the real and imaginary parts (PaddlePaddle's convention, dX = dOut * conj(f'(X))),
// to the second order where the grad maker composes differentiable ops (acosh's by
// 1 / (sqrt(X - 1) sqrt(X + 1)), the derivative of its principal branch, where PaddlePaddle
// 3.3 takes 1 / sqrt(X^2 - 1), off by a sign where Re(X) < 0); PaddlePaddle's fused
// sigmoid_grad, tanh_grad and square_grad against their formulas; isnan_v2, isinf_v2 and
// isfinite_v2 on complex values.
#include <cmath>
#include <complex>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/complex_test_util.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

const Cd kI(0.0, 1.0);

Cd ExpParts(const Cd& z) { return std::exp(z.real()) * Cd(std::cos(z.imag()), std::sin(z.imag())); }
Cd LogParts(const Cd& z) {
  return {std::log(std::hypot(z.real(), z.imag())), std::atan2(z.imag(), z.real())};
}
Cd SinParts(const Cd& z) {
  return {std::sin(z.real()) * std::cosh(z.imag()), std::cos(z.real()) * std::sinh(z.imag())};
}
Cd CosParts(const Cd& z) {
  return {std::cos(z.real()) * std::cosh(z.imag()), -std::sin(z.real()) * std::sinh(z.imag())};
}
Cd SinhParts(const Cd& z) {
  return {std::sinh(z.real()) * std::cos(z.imag()), std::cosh(z.real()) * std::sin(z.imag())};
}
Cd CoshParts(const Cd& z) {
  return {std::cosh(z.real()) * std::cos(z.imag()), std::sinh(z.real()) * std::sin(z.imag())};
}
// The principal square root: non-negative real part.
Cd SqrtParts(const Cd& z) {
  const double r = std::hypot(z.real(), z.imag());
  const double re = std::sqrt(0.5 * (r + z.real()));
  const double im = std::copysign(std::sqrt(0.5 * (r - z.real())), z.imag());
  return {re, im};
}
Cd SigmoidParts(const Cd& z) { return 1.0 / (1.0 + ExpParts(-z)); }

struct Function {
  std::string op;
  std::function<Cd(const Cd&)> want;
};

// Every op with its value computed here.
std::vector<Function> Functions() {
  const double ln2 = std::log(2.0), ln10 = std::log(10.0);
  return {
      {"sin", SinParts},
      {"cos", CosParts},
      {"tan", [](const Cd& z) { return SinParts(z) / CosParts(z); }},
      {"sinh", SinhParts},
      {"cosh", CoshParts},
      {"tanh", [](const Cd& z) { return SinhParts(z) / CoshParts(z); }},
      // C99's definitions of the principal branches (Annex G).
      {"asin", [](const Cd& z) { return -kI * LogParts(kI * z + SqrtParts(1.0 - z * z)); }},
      {"acos",
       [](const Cd& z) { return M_PI / 2 + kI * LogParts(kI * z + SqrtParts(1.0 - z * z)); }},
      {"atan",
       [](const Cd& z) { return 0.5 * kI * (LogParts(1.0 - kI * z) - LogParts(1.0 + kI * z)); }},
      {"asinh", [](const Cd& z) { return LogParts(z + SqrtParts(z * z + 1.0)); }},
      {"acosh", [](const Cd& z) { return LogParts(z + SqrtParts(z + 1.0) * SqrtParts(z - 1.0)); }},
      {"atanh", [](const Cd& z) { return 0.5 * (LogParts(1.0 + z) - LogParts(1.0 - z)); }},
      {"expm1", [](const Cd& z) { return ExpParts(z) - 1.0; }},
      {"log1p", [](const Cd& z) { return LogParts(1.0 + z); }},
      {"log2", [ln2](const Cd& z) { return LogParts(z) / ln2; }},
      {"log10", [ln10](const Cd& z) { return LogParts(z) / ln10; }},
      {"square",
       [](const Cd& z) {
         return Cd(z.real() * z.real() - z.imag() * z.imag(), 2 * z.real() * z.imag());
       }},
      {"reciprocal", [](const Cd& z) { return std::conj(z) / std::norm(z); }},
      {"sigmoid", SigmoidParts},
      {"silu", [](const Cd& z) { return z * SigmoidParts(z); }},
      {"logsigmoid", [](const Cd& z) { return -LogParts(1.0 + ExpParts(-z)); }},
      {"sign", [](const Cd& z) { return z / std::hypot(z.real(), z.imag()); }},
  };
}

// [3, 4] values with parts in +-[0.2, 0.9] of every sign combination: off the branch cuts
// (all on the axes) and away from the poles.
std::vector<double> Values() {
  std::vector<double> v = RandomValues(2 * 12, 0.2, 0.9, 71);
  for (size_t i = 0; i < v.size(); ++i) {
    if ((i / 2 + i % 2) % 2 == 1 || i % 7 == 3) v[i] = -v[i];
  }
  return v;
}

TEST(ComplexActivations, EveryFunctionAgainstItsPartsInBothPrecisions) {
  operators::RegisterAllOps();
  const std::vector<double> v = Values();
  const std::vector<Cd> x = Pairs(v);
  for (const Function& f : Functions()) {
    std::vector<Cd> want;
    for (const Cd& z : x) want.push_back(f.want(z));
    for (bool single : {true, false}) {
      const DenseTensor in =
          single ? MakeComplexTensor<float>({3, 4}, v) : MakeComplexTensor<double>({3, 4}, v);
      const DenseTensor got = RunOp(f.op, {{"X", {in}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
      ASSERT_EQ(got.dtype(), in.dtype()) << f.op;
      ExpectClose(ToDoubles(got), Interleaved(want), single,
                  f.op + (single ? " complex64" : " complex128"));
    }
  }
}

TEST(ComplexActivations, SmallArgumentsKeepTheirDigits) {
  operators::RegisterAllOps();
  // expm1 and log1p of 1e-9 (1 + 1e-9 i): the leading terms z and z - z^2 / 2 to double's
  // precision, where exp(z) - 1 and log(1 + z) keep 7 digits.
  const Cd z(1e-9, 2e-9);
  const DenseTensor in = MakeComplexTensor<double>({1}, {z.real(), z.imag()});
  const Cd e =
      Pairs(ToDoubles(RunOp("expm1", {{"X", {in}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]))[0];
  const Cd l =
      Pairs(ToDoubles(RunOp("log1p", {{"X", {in}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]))[0];
  const Cd e_want = z + z * z / 2.0, l_want = z - z * z / 2.0;
  EXPECT_NEAR(e.real(), e_want.real(), 1e-24);
  EXPECT_NEAR(e.imag(), e_want.imag(), 1e-24);
  EXPECT_NEAR(l.real(), l_want.real(), 1e-24);
  EXPECT_NEAR(l.imag(), l_want.imag(), 1e-24);
  // sign(0) = 0.
  const DenseTensor zero = MakeComplexTensor<float>({1}, {0.0, 0.0});
  EXPECT_EQ(ToDoubles(RunOp("sign", {{"X", {zero}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]),
            std::vector<double>({0.0, 0.0}));
}

TEST(ComplexActivations, GradientsConjugateTheDerivative) {
  operators::RegisterAllOps();
  for (const Function& f : Functions()) {
    if (f.op == "sign") continue;  // Zero almost everywhere; nothing flows back.
    SCOPED_TRACE(f.op);
    GradCheck check;
    check.op_type = f.op;
    check.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, Values())}}};
    check.outputs = {{"Out", 1}};
    // Each grad maker writes f' with differentiable ops, but sqrt's gradient (in those of
    // asin, acos, asinh and acosh) is a fused first-order op.
    const bool through_sqrt =
        f.op == "asin" || f.op == "acos" || f.op == "asinh" || f.op == "acosh";
    check.max_order = through_sqrt ? 1 : 2;
    CheckGradients(check);
  }
}

TEST(ComplexActivations, PaddlePaddleFusedGradOps) {
  operators::RegisterAllOps();
  const std::vector<double> v = Values();
  const std::vector<Cd> x = Pairs(v);
  const std::vector<double> gv = RandomValues(2 * 12, -1, 1, 72);
  const std::vector<Cd> dout = Pairs(gv);
  struct Case {
    std::string op, reads;
    std::function<Cd(const Cd&, const Cd&)> want;  // (read value, dOut) -> dX
  };
  for (const Case& c :
       {Case{"sigmoid_grad", "Out",
             [](const Cd&y, const Cd&g) { return g * std::conj(y * (1.0 - y)); }},
        Case{"tanh_grad", "Out", [](const Cd&y, const Cd&g) { return g * std::conj(1.0 - y * y); }},
        Case{"square_grad", "X", [](const Cd&z, const Cd&g) { return g * std::conj(2.0 * z); }}}) {
    std::vector<Cd> want;
    for (size_t i = 0; i < x.size(); ++i) want.push_back(c.want(x[i], dout[i]));
    for (bool single : {true, false}) {
      const auto make = [&](const std::vector<double>& p) {
        return single ? MakeComplexTensor<float>({3, 4}, p) : MakeComplexTensor<double>({3, 4}, p);
      };
      const DenseTensor got =
          RunOp(c.op, {{c.reads, {make(v)}}, {"Out@GRAD", {make(gv)}}}, {{"X@GRAD", 1}}, {})
              .outputs.at("X@GRAD")[0];
      ExpectClose(ToDoubles(got), Interleaved(want), single, c.op);
    }
  }
}

TEST(ComplexActivations, NanAndInfinityTestsLookAtBothParts) {
  operators::RegisterAllOps();
  const double nan = std::nan(""), inf = HUGE_VAL;
  // (1, 2), (NaN, 0), (0, inf), (-inf, NaN), (3, -4).
  const std::vector<double> v = {1, 2, nan, 0, 0, inf, -inf, nan, 3, -4};
  const std::map<std::string, std::vector<double>> want = {{"isnan_v2", {0, 1, 0, 1, 0}},
                                                           {"isinf_v2", {0, 0, 1, 1, 0}},
                                                           {"isfinite_v2", {1, 0, 0, 0, 1}}};
  for (const auto& [op, expected] : want) {
    for (bool single : {true, false}) {
      const DenseTensor in =
          single ? MakeComplexTensor<float>({5}, v) : MakeComplexTensor<double>({5}, v);
      const DenseTensor got = RunOp(op, {{"X", {in}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
      ASSERT_EQ(got.dtype(), DataType::BOOL) << op;
      EXPECT_EQ(ToDoubles(got), expected) << op << (single ? " complex64" : " complex128");
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
