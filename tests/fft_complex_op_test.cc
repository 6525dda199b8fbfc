// The discrete Fourier transform ops (fft_c2c, fft_r2c, fft_c2r) against the transform's
// definition summed directly here (every axis combination, the three normalizations, both
// directions, one-sided spectra, odd lengths, a last_dim_size that cuts or pads), their
// gradients by finite differences over the real and imaginary parts; the ops between complex
// tensors and their parts; complex tensors through the data-movement ops and .npy files.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "framework/block_desc.h"
#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/complex_test_util.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
  return idx;
}

// The multi-axis DFT by its definition: Out[k] = sum over t agreeing with k off `axes` of
// X[t] exp(sign 2 pi i sum_a k_a t_a / n_a), sign -1 when forward.
std::vector<Cd> NaiveDft(const std::vector<Cd>& x, const std::vector<int64_t>& dims,
                         const std::vector<int>& axes, bool forward) {
  const int64_t total = static_cast<int64_t>(x.size());
  std::vector<Cd> out(x.size());
  for (int64_t k = 0; k < total; ++k) {
    const auto ki = Unravel(k, dims);
    Cd sum = 0;
    for (int64_t t = 0; t < total; ++t) {
      const auto ti = Unravel(t, dims);
      bool same = true;
      double phase = 0;
      for (size_t a = 0; a < dims.size(); ++a) {
        const bool transformed = std::count(axes.begin(), axes.end(), static_cast<int>(a)) > 0;
        if (transformed) {
          phase += static_cast<double>(ki[a] * ti[a]) / static_cast<double>(dims[a]);
        } else if (ki[a] != ti[a]) {
          same = false;
        }
      }
      if (!same) continue;
      sum += x[t] * std::polar(1.0, (forward ? -2.0 : 2.0) * M_PI * phase);
    }
    out[k] = sum;
  }
  return out;
}

double Scale(const std::string& norm, bool forward, double n) {
  if (norm == "ortho") return 1 / std::sqrt(n);
  if (norm == "backward") return forward ? 1 : 1 / n;
  return forward ? 1 / n : 1;
}

double Points(const std::vector<int64_t>& dims, const std::vector<int>& axes) {
  double n = 1;
  for (int a : axes) n *= static_cast<double>(dims[a]);
  return n;
}

std::vector<Cd> Scaled(std::vector<Cd> v, double s) {
  for (Cd& c : v) c *= s;
  return v;
}

std::vector<int> Resolved(const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  for (int64_t a : axes) out.push_back(static_cast<int>(a < 0 ? a + rank : a));
  return out;
}

TEST(FftC2COp, MatchesTheDefinitionOverAnyAxes) {
  operators::RegisterAllOps();
  const std::vector<int64_t> dims = {3, 4, 5};
  const std::vector<double> xv = RandomValues(2 * 60, -1, 1, 11);
  const std::vector<Cd> x = Pairs(xv);
  for (const std::vector<int64_t>& axes :
       {std::vector<int64_t>{-1}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{2, 1, 0}}) {
    for (const std::string norm : {"backward", "forward", "ortho"}) {
      for (const bool forward : {true, false}) {
        const auto ax = Resolved(axes, 3);
        const std::vector<double> want = Interleaved(
            Scaled(NaiveDft(x, dims, ax, forward), Scale(norm, forward, Points(dims, ax))));
        for (const bool single : {true, false}) {
          const DenseTensor xt = single ? MakeComplexTensor<float>(DDim(dims), xv)
                                        : MakeComplexTensor<double>(DDim(dims), xv);
          const DenseTensor out =
              RunOp("fft_c2c", {{"X", {xt}}}, {{"Out", 1}},
                    {{"axes", axes}, {"normalization", norm}, {"forward", forward}})
                  .outputs.at("Out")[0];
          ASSERT_EQ(out.dtype(), xt.dtype());
          ASSERT_EQ(out.dims(), DDim(dims));
          ExpectClose(ToDoubles(out), want, single,
                      "fft_c2c " + norm + (forward ? " forward" : " inverse"));
        }
      }
    }
  }
}

TEST(FftR2COp, FullAndOneSidedSpectra) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> dims, axes;
  };
  for (const Case& c : {Case{{2, 6}, {1}}, Case{{3, 5}, {-1}}, Case{{3, 5}, {0, 1}},
                        Case{{4, 3, 2}, {0}}, Case{{2, 3, 7}, {2, 0}}}) {
    const int64_t n = DDim(c.dims).numel();
    const std::vector<double> xv = RandomValues(n, -1, 1, 12);
    std::vector<Cd> xc(xv.begin(), xv.end());
    const auto ax = Resolved(c.axes, static_cast<int>(c.dims.size()));
    for (const bool onesided : {true, false}) {
      for (const bool forward : {true, false}) {
        const std::string norm = forward ? "backward" : "ortho";
        const std::vector<Cd> full =
            Scaled(NaiveDft(xc, c.dims, ax, forward), Scale(norm, forward, Points(c.dims, ax)));
        std::vector<int64_t> od = c.dims;
        const int last = ax.back();
        if (onesided) od[last] = c.dims[last] / 2 + 1;
        std::vector<Cd> want;
        for (int64_t i = 0; i < n; ++i) {
          if (Unravel(i, c.dims)[last] < od[last]) want.push_back(full[i]);
        }
        for (const bool single : {true, false}) {
          const DenseTensor xt =
              single ? MakeTensor<float>(DDim(c.dims), xv) : MakeTensor<double>(DDim(c.dims), xv);
          const DenseTensor out = RunOp("fft_r2c", {{"X", {xt}}}, {{"Out", 1}},
                                        {{"axes", c.axes},
                                         {"normalization", norm},
                                         {"forward", forward},
                                         {"onesided", onesided}})
                                      .outputs.at("Out")[0];
          ASSERT_EQ(out.dtype(), single ? DataType::COMPLEX64 : DataType::COMPLEX128);
          ASSERT_EQ(out.dims(), DDim(od));
          ExpectClose(ToDoubles(out), Interleaved(want), single,
                      "fft_r2c " + DDim(c.dims).ToString() + (onesided ? " one-sided" : ""));
        }
      }
    }
  }
}

// The Hermitian extension of X's lines along `last` to n points (X[n - k] = conj(X[k]);
// entries past n / 2 unread, missing ones 0), then the definition's transform.
std::vector<double> NaiveC2R(const std::vector<Cd>& x, const std::vector<int64_t>& dims,
                             const std::vector<int>& axes, int64_t n, bool forward,
                             const std::string& norm) {
  const int last = axes.back();
  const std::vector<int> others(axes.begin(), axes.end() - 1);
  const std::vector<Cd> mixed = NaiveDft(x, dims, others, forward);
  std::vector<int64_t> od = dims;
  od[last] = n;
  const int64_t total = DDim(od).numel();
  std::vector<Cd> full(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) {
    auto idx = Unravel(i, od);
    const int64_t k = idx[last];
    const bool mirrored = k > n / 2;
    idx[last] = mirrored ? n - k : k;
    if (idx[last] >= dims[last]) continue;  // Past X's length: 0.
    int64_t src = 0;
    for (size_t a = 0; a < dims.size(); ++a) src = src * dims[a] + idx[a];
    full[i] = mirrored ? std::conj(mixed[src]) : mixed[src];
  }
  const std::vector<Cd> out =
      Scaled(NaiveDft(full, od, {last}, forward), Scale(norm, forward, Points(od, axes)));
  std::vector<double> re;
  for (const Cd& c : out) re.push_back(c.real());
  return re;
}

TEST(FftC2ROp, RealSignalsFromHalfSpectra) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> dims, axes;
    int64_t last_dim_size, n;
  };
  // n from 2 (m - 1), an odd n, an n that leaves X's last entry unread, one that pads X.
  for (const Case& c :
       {Case{{2, 4}, {1}, 0, 6}, Case{{2, 4}, {-1}, 7, 7}, Case{{3, 4}, {1}, 5, 5},
        Case{{2, 4}, {1}, 9, 9}, Case{{3, 4}, {0, 1}, 0, 6}, Case{{4, 3, 2}, {2, 0}, 0, 6}}) {
    const int64_t count = DDim(c.dims).numel();
    const std::vector<double> xv = RandomValues(2 * count, -1, 1, 13);
    const auto ax = Resolved(c.axes, static_cast<int>(c.dims.size()));
    for (const bool forward : {false, true}) {
      for (const std::string norm : {"backward", "forward", "ortho"}) {
        const std::vector<double> want = NaiveC2R(Pairs(xv), c.dims, ax, c.n, forward, norm);
        std::vector<int64_t> od = c.dims;
        od[ax.back()] = c.n;
        for (const bool single : {true, false}) {
          const DenseTensor xt = single ? MakeComplexTensor<float>(DDim(c.dims), xv)
                                        : MakeComplexTensor<double>(DDim(c.dims), xv);
          const DenseTensor out = RunOp("fft_c2r", {{"X", {xt}}}, {{"Out", 1}},
                                        {{"axes", c.axes},
                                         {"normalization", norm},
                                         {"forward", forward},
                                         {"last_dim_size", c.last_dim_size}})
                                      .outputs.at("Out")[0];
          ASSERT_EQ(out.dtype(), single ? DataType::FLOAT32 : DataType::FLOAT64);
          ASSERT_EQ(out.dims(), DDim(od));
          ExpectClose(ToDoubles(out), want, single,
                      "fft_c2r n=" + std::to_string(c.n) + " " + norm);
        }
      }
    }
  }
  // irfft(rfft(x)) = x, even and odd lengths.
  for (const int64_t n : {8, 9}) {
    const std::vector<double> xv = RandomValues(2 * n, -1, 1, 14);
    const DenseTensor spectrum =
        RunOp("fft_r2c", {{"X", {MakeTensor<double>({2, n}, xv)}}}, {{"Out", 1}},
              {{"axes", std::vector<int64_t>{1}}, {"forward", true}, {"onesided", true}})
            .outputs.at("Out")[0];
    const DenseTensor back = RunOp("fft_c2r", {{"X", {spectrum}}}, {{"Out", 1}},
                                   {{"axes", std::vector<int64_t>{1}}, {"last_dim_size", n}})
                                 .outputs.at("Out")[0];
    ExpectNear(ToDoubles(back), xv, 0, 1e-13, "irfft(rfft(x)), n = " + std::to_string(n));
  }
}

TEST(FftOps, GradientsByFiniteDifferences) {
  const std::vector<double> cv = RandomValues(2 * 12, -1, 1, 15);
  for (const std::string norm : {"backward", "forward", "ortho"}) {
    for (const bool forward : {true, false}) {
      for (const std::vector<int64_t>& axes :
           {std::vector<int64_t>{1}, std::vector<int64_t>{0, 1}}) {
        GradCheck c2c;
        c2c.op_type = "fft_c2c";
        c2c.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, cv)}}};
        c2c.outputs = {{"Out", 1}};
        c2c.attrs = {{"axes", axes}, {"normalization", norm}, {"forward", forward}};
        CheckGradients(c2c);

        for (const bool onesided : {true, false}) {
          GradCheck r2c;
          r2c.op_type = "fft_r2c";
          r2c.inputs = {{"X", {MakeTensor<double>({3, 5}, RandomValues(15, -1, 1, 16))}}};
          r2c.outputs = {{"Out", 1}};
          r2c.attrs = {{"axes", axes},
                       {"normalization", norm},
                       {"forward", forward},
                       {"onesided", onesided}};
          CheckGradients(r2c);
        }
        // n = 6 (from m = 4), 7 (odd), 5 (X's last entry unread), 9 (X padded).
        for (const int64_t n : {0, 7, 5, 9}) {
          GradCheck c2r;
          c2r.op_type = "fft_c2r";
          c2r.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, cv)}}};
          c2r.outputs = {{"Out", 1}};
          c2r.attrs = {
              {"axes", axes}, {"normalization", norm}, {"forward", forward}, {"last_dim_size", n}};
          CheckGradients(c2r);
        }
      }
    }
  }
}

TEST(FftOps, EmptyBatches) {
  operators::RegisterAllOps();
  const DenseTensor spectrum =
      RunOp("fft_r2c", {{"X", {MakeTensor<float>({0, 8}, {})}}}, {{"Out", 1}},
            {{"axes", std::vector<int64_t>{1}}, {"onesided", true}})
          .outputs.at("Out")[0];
  EXPECT_EQ(spectrum.dims(), DDim({0, 5}));
  const DenseTensor signal =
      RunOp("fft_c2r", {{"X", {spectrum}}}, {{"Out", 1}}, {{"axes", std::vector<int64_t>{1}}})
          .outputs.at("Out")[0];
  EXPECT_EQ(signal.dims(), DDim({0, 8}));
}

TEST(FftOps, RefuseBadAttributes) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeComplexTensor<double>({2, 3}, RandomValues(12, -1, 1, 17));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fft_c2c", {{"X", {x}}}, {{"Out", 1}}, {{"axes", std::vector<int64_t>{2}}});
      },
      {"op `fft_c2c` attribute `axes`", "axis 2 is out of range", "rank 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fft_c2c", {{"X", {x}}}, {{"Out", 1}}, {{"axes", std::vector<int64_t>{1, -1}}});
      },
      {"op `fft_c2c` attribute `axes`", "axis 1 is given twice"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fft_c2r", {{"X", {MakeComplexTensor<double>({2, 1}, {1, 0, 2, 0})}}}, {{"Out", 1}},
              {{"axes", std::vector<int64_t>{1}}});
      },
      {"op `fft_c2r` input `X`", "2 or more long", "[2, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fft_c2r", {{"X", {x}}}, {{"Out", 1}},
              {{"axes", std::vector<int64_t>{1}}, {"last_dim_size", int64_t{-3}}});
      },
      {"op `fft_c2r` attribute `last_dim_size`", "expected >= 0", "-3"});
}

// A program that makes complex values of integers is refused while it is built.
TEST(ComplexTensors, OpsThatMakeComplexValuesRefuseIntegerInputs) {
  operators::RegisterAllOps();
  for (const std::string op_type : {"fft_r2c", "as_complex", "complex"}) {
    framework::ProgramDesc program;
    framework::BlockDesc& block = program.Block(0);
    framework::VarDesc* x = block.Var("x");
    x->SetDataType(DataType::INT32);
    x->SetShape({2, 2});
    block.Var("out");
    framework::OpDesc* op = block.AppendOp();
    op->SetType(op_type);
    op->SetInput("X", {"x"});
    if (op_type == "complex") op->SetInput("Y", {"x"});
    op->SetOutput("Out", {"out"});
    if (op_type == "fft_r2c") op->SetAttr("axes", std::vector<int64_t>{1});
    ExpectError<platform::InvalidArgumentError>(
        [&] { framework::InferVarTypeAndShape(op, &block); },
        {"op `" + op_type + "` input `X`", "float32, float64 or a complex type", "int32"});
  }
}

TEST(ComplexPartsOps, PartsConjugatesAndAngles) {
  operators::RegisterAllOps();
  const std::vector<double> v = {3, 4, -1, 0, 0, -2, -0.5, 0.25, 0, 0, 1e-3, -7};
  const std::vector<Cd> c = Pairs(v);
  for (const bool single : {true, false}) {
    const DenseTensor x =
        single ? MakeComplexTensor<float>({2, 3}, v) : MakeComplexTensor<double>({2, 3}, v);
    const auto run = [&](const std::string& op) {
      return RunOp(op, {{"X", {x}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
    };
    std::vector<double> re, im, conj, angle, abs, exp;
    for (const Cd& z : c) {
      abs.push_back(std::abs(z));
      exp.push_back(std::exp(z).real());
      exp.push_back(std::exp(z).imag());
      re.push_back(z.real());
      im.push_back(z.imag());
      conj.push_back(z.real());
      conj.push_back(-z.imag());
      angle.push_back(std::atan2(z.imag(), z.real()));
    }
    const DataType real_type = single ? DataType::FLOAT32 : DataType::FLOAT64;
    // Exact: each value is a part of X's (float32 parts compared as float32).
    const auto exact = [&](const std::vector<double>& v) {
      std::vector<double> out;
      for (double d : v) out.push_back(single ? static_cast<double>(static_cast<float>(d)) : d);
      return out;
    };
    EXPECT_EQ(run("real").dtype(), real_type);
    EXPECT_EQ(ToDoubles(run("real")), exact(re));
    EXPECT_EQ(ToDoubles(run("imag")), exact(im));
    EXPECT_EQ(run("conj").dtype(), x.dtype());
    EXPECT_EQ(ToDoubles(run("conj")), exact(conj));
    ExpectClose(ToDoubles(run("angle")), angle, single, "angle");
    EXPECT_EQ(run("exp").dtype(), x.dtype());
    ExpectClose(ToDoubles(run("exp")), exp, single, "exp");
    EXPECT_EQ(run("abs").dtype(), real_type);
    ExpectClose(ToDoubles(run("abs")), abs, single, "abs");
    const DenseTensor parts = run("as_real");
    ASSERT_EQ(parts.dims(), DDim({2, 3, 2}));
    EXPECT_EQ(ToDoubles(parts), ToDoubles(x));
    const DenseTensor back =
        RunOp("as_complex", {{"X", {parts}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
    EXPECT_EQ(back.dtype(), x.dtype());
    EXPECT_EQ(back.dims(), DDim({2, 3}));
    EXPECT_EQ(ToDoubles(back), ToDoubles(x));
  }
  // Real inputs: conj copies, angle is 0 or pi.
  const DenseTensor r = MakeTensor<double>({4}, {2, -3, 0, -0.0});
  EXPECT_EQ(ToDoubles(RunOp("conj", {{"X", {r}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]),
            std::vector<double>({2, -3, 0, -0.0}));
  EXPECT_EQ(ToDoubles(RunOp("angle", {{"X", {r}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]),
            std::vector<double>({0, M_PI, 0, 0}));
  // complex(X, Y) broadcasts: [3, 1] and [4] give [3, 4].
  const std::vector<double> a = {1, 2, 3}, b = {-1, 0.5, 4, 8};
  const DenseTensor z =
      RunOp("complex", {{"X", {MakeTensor<float>({3, 1}, a)}}, {"Y", {MakeTensor<float>({4}, b)}}},
            {{"Out", 1}}, {})
          .outputs.at("Out")[0];
  ASSERT_EQ(z.dtype(), DataType::COMPLEX64);
  ASSERT_EQ(z.dims(), DDim({3, 4}));
  std::vector<double> want;
  for (double ai : a) {
    for (double bj : b) {
      want.push_back(ai);
      want.push_back(bj);
    }
  }
  EXPECT_EQ(ToDoubles(z), want);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("as_complex", {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, 0, 1))}}},
              {{"Out", 1}}, {});
      },
      {"op `as_complex` input `X`", "last dim of 2", "[2, 3]"});
}

TEST(ComplexPartsOps, GradientsByFiniteDifferences) {
  // Values away from 0, where angle's derivative is singular.
  const std::vector<double> v = {0.7, -0.4, -1.1, 0.3, 0.5, 0.9, -0.6, -0.8, 1.2, 0.2, 0.4, -1.3};
  for (const std::string op : {"real", "imag", "conj", "angle", "as_real", "abs", "exp"}) {
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeComplexTensor<double>({2, 3}, v)}}};
    check.outputs = {{"Out", 1}};
    // conj and as_real emit differentiable ops: their second order too.
    check.max_order = op == "conj" || op == "as_real" || op == "exp" ? 2 : 1;
    CheckGradients(check);
  }
  GradCheck as_complex;
  as_complex.op_type = "as_complex";
  as_complex.inputs = {{"X", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 18))}}};
  as_complex.outputs = {{"Out", 1}};
  as_complex.max_order = 2;
  CheckGradients(as_complex);
  GradCheck angle_real;
  angle_real.op_type = "angle";
  angle_real.inputs = {{"X", {MakeTensor<double>({4}, {0.5, -0.25, 2, -3})}}};
  angle_real.outputs = {{"Out", 1}};
  CheckGradients(angle_real);
  GradCheck complex;
  complex.op_type = "complex";
  complex.inputs = {{"X", {MakeTensor<double>({3, 1}, RandomValues(3, -1, 1, 19))}},
                    {"Y", {MakeTensor<double>({4}, RandomValues(4, -1, 1, 20))}}};
  complex.outputs = {{"Out", 1}};
  CheckGradients(complex);
}

TEST(ComplexMath, SqrtLogAndPowOnThePrincipalBranch) {
  operators::RegisterAllOps();
  // Away from the negative real axis (the branch cut), where both parts of the derivatives
  // are smooth.
  const std::vector<double> v = {0.7, -0.4, 1.1, 0.3, 0.5, 0.9, 2.0, -0.8, 1.2, 1.5, 0.4, -1.3};
  const std::vector<Cd> c = Pairs(v);
  std::vector<Cd> sqrt, log, pow, pow_tensor;
  for (const Cd& z : c) {
    sqrt.push_back(std::sqrt(z));
    log.push_back(std::log(z));
    pow.push_back(std::pow(z, 2.5));
    pow_tensor.push_back(std::pow(z, -1.5));
  }
  for (const bool single : {true, false}) {
    const DenseTensor x =
        single ? MakeComplexTensor<float>({2, 3}, v) : MakeComplexTensor<double>({2, 3}, v);
    const auto run = [&](const std::string& op, const AttributeMap& attrs) {
      const DenseTensor out = RunOp(op, {{"X", {x}}}, {{"Out", 1}}, attrs).outputs.at("Out")[0];
      EXPECT_EQ(out.dtype(), x.dtype()) << op;
      return ToDoubles(out);
    };
    ExpectClose(run("sqrt", {}), Interleaved(sqrt), single, "sqrt");
    ExpectClose(run("log", {}), Interleaved(log), single, "log");
    ExpectClose(run("pow", {{"factor", 2.5f}}), Interleaved(pow), single, "pow");
    const DenseTensor out =
        RunOp("pow", {{"X", {x}}, {"FactorTensor", {MakeTensor<float>({1}, {-1.5})}}}, {{"Out", 1}},
              {})
            .outputs.at("Out")[0];
    ExpectClose(ToDoubles(out), Interleaved(pow_tensor), single, "pow with FactorTensor");
  }
  for (const std::string op : {"sqrt", "log", "pow"}) {
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeComplexTensor<double>({2, 3}, v)}}};
    check.outputs = {{"Out", 1}};
    if (op == "pow") check.attrs = {{"factor", 2.5f}};
    // sqrt's backward is the fused sqrt_grad; log's and pow's are ops with conj.
    check.max_order = op == "sqrt" ? 1 : 2;
    CheckGradients(check);
  }
  // PaddlePaddle's fused exp_grad (its training programs): dX = dOut * conj(Out).
  const std::vector<double> gv = RandomValues(12, -1, 1, 24);
  std::vector<Cd> want_dx;
  for (size_t i = 0; i < c.size(); ++i) want_dx.push_back(Pairs(gv)[i] * std::conj(std::exp(c[i])));
  const DenseTensor exp_out =
      RunOp("exp", {{"X", {MakeComplexTensor<double>({2, 3}, v)}}}, {{"Out", 1}}, {})
          .outputs.at("Out")[0];
  const DenseTensor dx =
      RunOp("exp_grad", {{"Out", {exp_out}}, {"Out@GRAD", {MakeComplexTensor<double>({2, 3}, gv)}}},
            {{"X@GRAD", 1}}, {})
          .outputs.at("X@GRAD")[0];
  ExpectClose(ToDoubles(dx), Interleaved(want_dx), false, "exp_grad");
  GradCheck tensor_factor;
  tensor_factor.op_type = "pow";
  tensor_factor.inputs = {{"X", {MakeComplexTensor<double>({2, 3}, v)}},
                          {"FactorTensor", {MakeTensor<double>({1}, {-1.5})}}};
  tensor_factor.outputs = {{"Out", 1}};
  tensor_factor.wrt = {"X"};
  CheckGradients(tensor_factor);
}

TEST(ComplexElementwise, ArithmeticAndItsConjugatedGradients) {
  operators::RegisterAllOps();
  const std::vector<double> xv = RandomValues(2 * 6, -1, 1, 22);
  const std::vector<double> yv = {0.5, -0.7, 1.1, 0.2, -0.9, -0.4};  // [3], away from 0.
  const std::vector<Cd> x = Pairs(xv), y = Pairs(yv);
  for (const std::string op :
       {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div"}) {
    // Y [3] broadcast over X [2, 3].
    std::vector<Cd> want;
    for (int i = 0; i < 6; ++i) {
      const Cd a = x[i], b = y[i % 3];
      want.push_back(op == "elementwise_add"   ? a + b
                     : op == "elementwise_sub" ? a - b
                     : op == "elementwise_mul" ? a * b
                                               : a / b);
    }
    for (const bool single : {true, false}) {
      const DenseTensor xt =
          single ? MakeComplexTensor<float>({2, 3}, xv) : MakeComplexTensor<double>({2, 3}, xv);
      const DenseTensor yt =
          single ? MakeComplexTensor<float>({3}, yv) : MakeComplexTensor<double>({3}, yv);
      const DenseTensor out =
          RunOp(op, {{"X", {xt}}, {"Y", {yt}}}, {{"Out", 1}}, {{"axis", -1}}).outputs.at("Out")[0];
      ASSERT_EQ(out.dtype(), xt.dtype());
      ExpectClose(ToDoubles(out), Interleaved(want), single, op + " of complex values");
    }
    GradCheck broadcast;
    broadcast.op_type = op;
    broadcast.inputs = {{"X", {MakeComplexTensor<double>({2, 3}, xv)}},
                        {"Y", {MakeComplexTensor<double>({3}, yv)}}};
    broadcast.outputs = {{"Out", 1}};
    broadcast.attrs = {{"axis", -1}};
    CheckGradients(broadcast);
    // Same shapes: the backward is elementwise ops and conj only, differentiable again.
    GradCheck twice = broadcast;
    twice.inputs = {{"X", {MakeComplexTensor<double>({3}, RandomValues(6, -1, 1, 23))}},
                    {"Y", {MakeComplexTensor<double>({3}, yv)}}};
    twice.max_order = 2;
    CheckGradients(twice);
  }
}

TEST(ComplexTensors, CastToAndFromRealValues) {
  operators::RegisterAllOps();
  const auto cast = [](const DenseTensor& x, DataType from, DataType to) {
    return RunOp("cast", {{"X", {x}}}, {{"Out", 1}},
                 {{"in_dtype", static_cast<int>(from)}, {"out_dtype", static_cast<int>(to)}})
        .outputs.at("Out")[0];
  };
  const DenseTensor real = MakeTensor<float>({3}, {1.5, -2, 0.25});
  const DenseTensor widened = cast(real, DataType::FLOAT32, DataType::COMPLEX64);
  ASSERT_EQ(widened.dtype(), DataType::COMPLEX64);
  EXPECT_EQ(ToDoubles(widened), std::vector<double>({1.5, 0, -2, 0, 0.25, 0}));
  const DenseTensor z = MakeComplexTensor<double>({2}, {0.5, -1, 3, 2});
  const DenseTensor part = cast(z, DataType::COMPLEX128, DataType::INT32);
  ASSERT_EQ(part.dtype(), DataType::INT32);
  EXPECT_EQ(ToDoubles(part), std::vector<double>({0, 3}));  // Real parts, truncated.
  const DenseTensor narrowed = cast(z, DataType::COMPLEX128, DataType::COMPLEX64);
  ASSERT_EQ(narrowed.dtype(), DataType::COMPLEX64);
  EXPECT_EQ(ToDoubles(narrowed), ToDoubles(z));
  for (const bool to_complex : {true, false}) {
    GradCheck check;
    check.op_type = "cast";
    check.inputs = {{"X",
                     {to_complex ? MakeTensor<double>({3}, {0.5, -1, 2})
                                 : MakeComplexTensor<double>({3}, RandomValues(6, -1, 1))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {
        {"in_dtype", static_cast<int>(to_complex ? DataType::FLOAT64 : DataType::COMPLEX128)},
        {"out_dtype", static_cast<int>(to_complex ? DataType::COMPLEX128 : DataType::FLOAT64)}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(ComplexTensors, MoveThroughDataOpsAndNpyFiles) {
  operators::RegisterAllOps();
  const std::vector<double> v = RandomValues(2 * 6, -1, 1, 21);
  const std::vector<Cd> c = Pairs(v);
  const DenseTensor x = MakeComplexTensor<float>({2, 3}, v);
  const DenseTensor t = RunOp("transpose2", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}},
                              {{"axis", std::vector<int>{1, 0}}})
                            .outputs.at("Out")[0];
  ASSERT_EQ(t.dtype(), DataType::COMPLEX64);
  std::vector<Cd> want;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 2; ++i) want.push_back(c[i * 3 + j]);
  }
  ExpectNear(ToDoubles(t), Interleaved(want), 0, 1e-7, "transpose2 of complex64");
  const DenseTensor cat =
      RunOp("concat", {{"X", {x, x}}}, {{"Out", 1}}, {{"axis", 0}}).outputs.at("Out")[0];
  ASSERT_EQ(cat.dims(), DDim({4, 3}));
  std::vector<double> twice = ToDoubles(x);
  const std::vector<double> once = twice;
  twice.insert(twice.end(), once.begin(), once.end());
  EXPECT_EQ(ToDoubles(cat), twice);
  // fftshift (roll by half of each dim), flip, tile.
  const DenseTensor rolled =
      RunOp("roll", {{"X", {x}}}, {{"Out", 1}},
            {{"shifts", std::vector<int64_t>{1}}, {"axis", std::vector<int64_t>{1}}})
          .outputs.at("Out")[0];
  std::vector<Cd> want_rolled;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) want_rolled.push_back(c[i * 3 + (j + 2) % 3]);
  }
  ExpectNear(ToDoubles(rolled), Interleaved(want_rolled), 0, 1e-7, "roll of complex64");
  const DenseTensor flipped =
      RunOp("flip", {{"X", {x}}}, {{"Out", 1}}, {{"axis", std::vector<int>{0}}})
          .outputs.at("Out")[0];
  std::vector<Cd> want_flipped(c.begin() + 3, c.end());
  want_flipped.insert(want_flipped.end(), c.begin(), c.begin() + 3);
  ExpectNear(ToDoubles(flipped), Interleaved(want_flipped), 0, 1e-7, "flip of complex64");
  const DenseTensor tiled =
      RunOp("tile", {{"X", {x}}}, {{"Out", 1}}, {{"repeat_times", std::vector<int>{2, 1}}})
          .outputs.at("Out")[0];
  ASSERT_EQ(tiled.dims(), DDim({4, 3}));
  EXPECT_EQ(
      ToDoubles(tiled),
      ToDoubles(
          RunOp("concat", {{"X", {x, x}}}, {{"Out", 1}}, {{"axis", 0}}).outputs.at("Out")[0]));
  const DenseTensor row = MakeComplexTensor<double>({1, 3}, {1, 2, 3, 4, 5, 6});
  const DenseTensor expanded =
      RunOp("expand_v2", {{"X", {row}}}, {{"Out", 1}}, {{"shape", std::vector<int>{2, 3}}})
          .outputs.at("Out")[0];
  EXPECT_EQ(ToDoubles(expanded), std::vector<double>({1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  const DenseTensor r = RunOp("reshape2", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}},
                              {{"shape", std::vector<int>{3, 2}}})
                            .outputs.at("Out")[0];
  EXPECT_EQ(r.dims(), DDim({3, 2}));
  EXPECT_EQ(ToDoubles(r), ToDoubles(x));
  for (const bool single : {true, false}) {
    const DenseTensor z = single ? x : MakeComplexTensor<double>({2, 3}, v);
    const DenseTensor read = framework::ParseNpy(framework::SerializeNpy(z), "complex.npy");
    EXPECT_EQ(read.dtype(), z.dtype());
    EXPECT_EQ(read.dims(), z.dims());
    EXPECT_EQ(ToDoubles(read), ToDoubles(z));
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
