// dist, bilinear_tensor_product, spectral_norm and lp_pool2d against direct loops in double
// (written here), their gradients against finite differences, and their shape errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using Values = std::vector<double>;
const double kInf = std::numeric_limits<double>::infinity();

DenseTensor Make(DataType t, const DDim& dims, const Values& v) {
  return t == DataType::FLOAT64 ? MakeTensor<double>(dims, v) : MakeTensor<float>(dims, v);
}

std::vector<DataType> BothTypes() { return {DataType::FLOAT32, DataType::FLOAT64}; }

// ------------------------------------------------------------------------------- dist

double PNorm(const Values& v, double p) {
  if (std::isinf(p)) {
    double m = p > 0 ? 0 : kInf;
    for (double x : v) m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
    return m;
  }
  double s = 0;
  for (double x : v) s += p == 0 ? (x != 0) : std::pow(std::fabs(x), p);
  return p == 0 ? s : std::pow(s, 1 / p);
}

TEST(DistOp, NormOfTheBroadcastDifference) {
  operators::RegisterAllOps();
  Values x = RandomValues(24, -2, 2, 11);       // [2, 3, 4]
  const Values y = RandomValues(3, -2, 2, 12);  // [3, 1]
  x[5] = y[1];                                  // One zero difference, which p = 0 does not count.
  Values z;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) z.push_back(x[(i * 3 + j) * 4 + k] - y[j]);
    }
  }
  for (const double p : {2.0, 1.0, 3.5, 0.5, 0.0, kInf, -kInf}) {
    for (DataType t : BothTypes()) {
      const DenseTensor out =
          RunOp("dist", {{"X", {Make(t, DDim({2, 3, 4}), x)}}, {"Y", {Make(t, DDim({3, 1}), y)}}},
                {{"Out", 1}}, {{"p", static_cast<float>(p)}})
              .outputs.at("Out")[0];
      EXPECT_EQ(out.dims(), DDim({}));
      ExpectNear(ToDoubles(out), {PNorm(z, p)}, RelTol(t) * 10, AbsTol(t),
                 "dist p " + std::to_string(p));
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("dist",
              {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}},
               {"Y", {MakeTensor<double>({4}, RandomValues(4, -1, 1))}}},
              {{"Out", 1}});
      },
      {"dist", "[2, 3]", "[4]"});
}

TEST(DistOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  for (const float p : {2.0f, 1.5f, 3.0f, static_cast<float>(kInf), static_cast<float>(-kInf)}) {
    SCOPED_TRACE("p " + std::to_string(p));
    GradCheck check;
    check.op_type = "dist";
    // Differences kept away from 0 and from each other (no ties for +-inf).
    check.inputs = {{"X", {MakeTensor<double>({2, 3}, {0.5, -1.3, 2.2, 3.1, -0.4, 1.7})}},
                    {"Y", {MakeTensor<double>({3}, {-0.2, 0.45, 0.1})}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"p", p}};
    CheckGradients(check);
  }
}

// -------------------------------------------------------------- bilinear_tensor_product

TEST(BilinearTensorProductOp, OneBilinearFormPerFeature) {
  operators::RegisterAllOps();
  const int64_t b = 3, m = 4, n = 2, s = 5;
  const Values x = RandomValues(b * m, -1, 1, 21), y = RandomValues(b * n, -1, 1, 22),
               w = RandomValues(s * m * n, -1, 1, 23), bias = RandomValues(s, -1, 1, 24);
  for (const bool with_bias : {false, true}) {
    Values want;
    for (int64_t r = 0; r < b; ++r) {
      for (int64_t k = 0; k < s; ++k) {
        double acc = with_bias ? bias[k] : 0.0;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j)
            acc += x[r * m + i] * w[(k * m + i) * n + j] * y[r * n + j];
        }
        want.push_back(acc);
      }
    }
    for (DataType t : BothTypes()) {
      SlotTensors in = {{"X", {Make(t, DDim({b, m}), x)}},
                        {"Y", {Make(t, DDim({b, n}), y)}},
                        {"Weight", {Make(t, DDim({s, m, n}), w)}}};
      if (with_bias) in["Bias"] = {Make(t, DDim({1, s}), bias)};
      const DenseTensor out =
          RunOp("bilinear_tensor_product", in, {{"Out", 1}}).outputs.at("Out")[0];
      EXPECT_EQ(out.dims(), DDim({b, s}));
      ExpectNear(ToDoubles(out), want, RelTol(t) * 10, AbsTol(t), "bilinear_tensor_product");
    }
    GradCheck check;
    check.op_type = "bilinear_tensor_product";
    check.inputs = {{"X", {MakeTensor<double>({b, m}, x)}},
                    {"Y", {MakeTensor<double>({b, n}, y)}},
                    {"Weight", {MakeTensor<double>({s, m, n}, w)}}};
    if (with_bias) check.inputs["Bias"] = {MakeTensor<double>({1, s}, bias)};
    check.outputs = {{"Out", 1}};
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bilinear_tensor_product",
              {{"X", {MakeTensor<double>({b, m}, x)}},
               {"Y", {MakeTensor<double>({b, n}, y)}},
               {"Weight", {MakeTensor<double>({s, n, m}, w)}}},
              {{"Out", 1}});
      },
      {"bilinear_tensor_product", "`Weight`", "dim 1 (X's columns) of 4", "received 2"});
}

// -------------------------------------------------------------------------- spectral_norm

// W as the h x w matrix of spectral_norm (dim `dim` first).
struct Matrix2 {
  int64_t h, w;
  Values a;  // row-major h x w
};

Matrix2 AsMatrix(const Values& weight, const std::vector<int64_t>& shape, int dim) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t h = shape[dim];
  Matrix2 m{h, outer * inner, Values(weight.size())};
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t b = 0; b < inner; ++b) {
        m.a[i * m.w + a * inner + b] = weight[(a * h + i) * inner + b];
      }
    }
  }
  return m;
}

double SpectralSigma(const Matrix2& m, Values u, Values v, int iters, double eps) {
  const auto normalize = [eps](Values x) {
    double n = 0;
    for (double e : x) n += e * e;
    for (double& e : x) e /= std::sqrt(n) + eps;
    return x;
  };
  for (int it = 0; it < iters; ++it) {
    Values nv(m.w, 0.0), nu(m.h, 0.0);
    for (int64_t i = 0; i < m.h; ++i) {
      for (int64_t j = 0; j < m.w; ++j) nv[j] += m.a[i * m.w + j] * u[i];
    }
    v = normalize(nv);
    for (int64_t i = 0; i < m.h; ++i) {
      for (int64_t j = 0; j < m.w; ++j) nu[i] += m.a[i * m.w + j] * v[j];
    }
    u = normalize(nu);
  }
  double sigma = 0;
  for (int64_t i = 0; i < m.h; ++i) {
    for (int64_t j = 0; j < m.w; ++j) sigma += u[i] * m.a[i * m.w + j] * v[j];
  }
  return sigma;
}

TEST(SpectralNormOp, DividesByThePowerIterationsSigma) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> shape;
    int dim, iters;
  };
  for (const Case& c :
       {Case{{5, 4}, 0, 1}, Case{{3, 4, 2, 2}, 1, 2}, Case{{4, 6}, 1, 0}, Case{{2, 3, 4}, 2, 30}}) {
    const int64_t numel = DDim(c.shape).numel(), h = c.shape[c.dim], w = numel / h;
    const Values weight = RandomValues(numel, -1, 1, 31), u = RandomValues(h, -1, 1, 32),
                 v = RandomValues(w, -1, 1, 33);
    const double sigma = SpectralSigma(AsMatrix(weight, c.shape, c.dim), u, v, c.iters, 1e-12);
    Values want;
    for (double e : weight) want.push_back(e / sigma);
    for (DataType t : BothTypes()) {
      const DenseTensor out = RunOp("spectral_norm",
                                    {{"Weight", {Make(t, DDim(c.shape), weight)}},
                                     {"U", {Make(t, DDim({h}), u)}},
                                     {"V", {Make(t, DDim({w}), v)}}},
                                    {{"Out", 1}}, {{"dim", c.dim}, {"power_iters", c.iters}})
                                  .outputs.at("Out")[0];
      EXPECT_EQ(out.dims(), DDim(c.shape));
      ExpectNear(ToDoubles(out), want, RelTol(t) * 10, AbsTol(t) * 10,
                 "spectral_norm " + DDim(c.shape).ToString());
    }
    if (c.iters == 30) {  // Converged: sigma is the largest singular value, Out's is 1.
      const DenseTensor out = RunOp("spectral_norm",
                                    {{"Weight", {MakeTensor<double>(DDim(c.shape), weight)}},
                                     {"U", {MakeTensor<double>(DDim({h}), u)}},
                                     {"V", {MakeTensor<double>(DDim({w}), v)}}},
                                    {{"Out", 1}}, {{"dim", c.dim}, {"power_iters", 60}})
                                  .outputs.at("Out")[0];
      const Matrix2 normed = AsMatrix(ToDoubles(out), c.shape, c.dim);
      Values x(normed.w, 1.0);  // Power iteration on normed^T normed, independently.
      double lambda = 0;
      for (int it = 0; it < 500; ++it) {
        Values y(normed.h, 0.0), z(normed.w, 0.0);
        for (int64_t i = 0; i < normed.h; ++i) {
          for (int64_t j = 0; j < normed.w; ++j) y[i] += normed.a[i * normed.w + j] * x[j];
        }
        for (int64_t i = 0; i < normed.h; ++i) {
          for (int64_t j = 0; j < normed.w; ++j) z[j] += normed.a[i * normed.w + j] * y[i];
        }
        lambda = PNorm(z, 2) / PNorm(x, 2);
        const double n = PNorm(z, 2);
        for (int64_t j = 0; j < normed.w; ++j) x[j] = z[j] / n;
      }
      EXPECT_NEAR(std::sqrt(lambda), 1.0, 1e-9);
    }
  }
}

// With no iterations, sigma = u^T W v of the given vectors: the gradient with u and v held
// constant is the exact one.
TEST(SpectralNormOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  for (const int dim : {0, 1}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const std::vector<int64_t> shape = {3, 4, 2};
    const int64_t h = shape[dim], w = 24 / h;
    GradCheck check;
    check.op_type = "spectral_norm";
    check.inputs = {{"Weight", {MakeTensor<double>(DDim(shape), RandomValues(24, 0.2, 1, 41))}},
                    {"U", {MakeTensor<double>({h}, RandomValues(h, 0.5, 1, 42))}},
                    {"V", {MakeTensor<double>({w}, RandomValues(w, 0.5, 1, 43))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"dim", dim}, {"power_iters", 0}};
    check.wrt = {"Weight"};
    CheckGradients(check);
  }
}

TEST(SpectralNormOp, RefusesVectorsOfTheWrongSize) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("spectral_norm",
              {{"Weight", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1))}},
               {"U", {MakeTensor<double>({3}, RandomValues(3, -1, 1))}},
               {"V", {MakeTensor<double>({3}, RandomValues(3, -1, 1))}}},
              {{"Out", 1}});
      },
      {"spectral_norm", "`V`", "expected shape [4]", "received [3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("spectral_norm",
              {{"Weight", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1))}},
               {"U", {MakeTensor<double>({3}, RandomValues(3, -1, 1))}},
               {"V", {MakeTensor<double>({4}, RandomValues(4, -1, 1))}}},
              {{"Out", 1}}, {{"dim", 2}});
      },
      {"spectral_norm", "attribute `dim`", "[0, 2)", "received 2"});
}

// ------------------------------------------------------------------------------ lp_pool2d

// NCHW lp pooling by the definition: windows of kh x kw at the strides from -pad, clipped to
// the image, the output size floored or (ceil_mode) ceiled.
Values LpPoolReference(const Values& x, int64_t n, int64_t c, int64_t hgt, int64_t wid, double p,
                       int kh, int kw, int sh, int sw, int pad, bool ceil_mode, int64_t* oh,
                       int64_t* ow) {
  const auto size = [&](int64_t in, int k, int s) {
    const int64_t span = in + 2 * pad - k;
    return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  };
  *oh = size(hgt, kh, sh);
  *ow = size(wid, kw, sw);
  Values out;
  for (int64_t q = 0; q < n * c; ++q) {
    for (int64_t y = 0; y < *oh; ++y) {
      for (int64_t xo = 0; xo < *ow; ++xo) {
        double acc = std::isinf(p) ? -kInf : 0.0;
        bool any = false;
        for (int64_t i = y * sh - pad; i < y * sh - pad + kh; ++i) {
          for (int64_t j = xo * sw - pad; j < xo * sw - pad + kw; ++j) {
            if (i < 0 || j < 0 || i >= hgt || j >= wid) continue;
            const double v = x[(q * hgt + i) * wid + j];
            acc = std::isinf(p) ? std::max(acc, v) : acc + std::pow(v, p);
            any = true;
          }
        }
        out.push_back(!any ? 0.0 : (std::isinf(p) ? acc : std::pow(acc, 1 / p)));
      }
    }
  }
  return out;
}

TEST(LpPool2dOp, PowerSumsOfTheWindows) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, hgt = 5, wid = 6;
  const Values x = RandomValues(n * c * hgt * wid, 0.1, 2, 51);
  struct Case {
    double p;
    int kh, kw, sh, sw, pad;
    bool ceil_mode;
  };
  for (const Case& k : {Case{2, 2, 2, 2, 2, 0, false}, Case{3, 2, 3, 1, 2, 1, true},
                        Case{1.5, 3, 3, 2, 2, 1, false}, Case{-1, 2, 2, 1, 1, 0, false},
                        Case{kInf, 3, 2, 2, 1, 0, true}}) {
    int64_t oh, ow;
    const Values want = LpPoolReference(x, n, c, hgt, wid, k.p, k.kh, k.kw, k.sh, k.sw, k.pad,
                                        k.ceil_mode, &oh, &ow);
    const AttributeMap attrs = {{"norm_type", static_cast<float>(k.p)},
                                {"ksize", std::vector<int>{k.kh, k.kw}},
                                {"strides", std::vector<int>{k.sh, k.sw}},
                                {"paddings", std::vector<int>{k.pad, k.pad}},
                                {"ceil_mode", k.ceil_mode}};
    const std::string what = "lp_pool2d p " + std::to_string(k.p);
    for (DataType t : BothTypes()) {
      const DenseTensor out =
          RunOp("lp_pool2d", {{"X", {Make(t, DDim({n, c, hgt, wid}), x)}}}, {{"Out", 1}}, attrs)
              .outputs.at("Out")[0];
      ASSERT_EQ(out.dims(), DDim({n, c, oh, ow})) << what;
      ExpectNear(ToDoubles(out), want, RelTol(t) * 10, AbsTol(t), what);
    }
    // NHWC gives the same values, channels last.
    Values nhwc(x.size());
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t i = 0; i < hgt * wid; ++i) {
          nhwc[(b * hgt * wid + i) * c + ch] = x[(b * c + ch) * hgt * wid + i];
        }
      }
    }
    AttributeMap channel_last = attrs;
    channel_last["data_format"] = std::string("NHWC");
    const Values got =
        ToDoubles(RunOp("lp_pool2d", {{"X", {MakeTensor<double>({n, hgt, wid, c}, nhwc)}}},
                        {{"Out", 1}}, channel_last)
                      .outputs.at("Out")[0]);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t i = 0; i < oh * ow; ++i) {
          EXPECT_NEAR(got[(b * oh * ow + i) * c + ch], want[(b * c + ch) * oh * ow + i], 1e-12)
              << what << " NHWC";
        }
      }
    }
    if (std::isinf(k.p)) continue;  // The max's gradient is checked by pool2d's tests.
    GradCheck check;
    check.op_type = "lp_pool2d";
    check.inputs = {{"X", {MakeTensor<double>({1, 2, hgt, wid}, RandomValues(60, 0.3, 2, 52))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    check.rtol = 1e-4;
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lp_pool2d", {{"X", {MakeTensor<double>({n, c, hgt, wid}, x)}}}, {{"Out", 1}},
              {{"norm_type", 0.0f}, {"ksize", std::vector<int>{2, 2}}});
      },
      {"lp_pool2d", "attribute `norm_type`", "non-zero", "received 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
