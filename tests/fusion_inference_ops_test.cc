// The fused ops of PaddlePaddle's CPU inference passes that are not recurrences
// (fusion_repeated_fc_relu, fusion_squared_mat_sub, fusion_seqpool_concat,
// fusion_seqpool_cvm_concat, fusion_seqconv_eltadd_relu) against references written here in double
// with naive loops, in float and double, and their typed errors. PaddlePaddle's own outputs are
// checked by the fixture test (tests/fixtures/ops/fusion_*). fusion_gru and fusion_lstm are in
// gru_op_test.cc and lstm_op_test.cc.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using LoD = framework::LoD;

// C[m, n] = A[m, k] B[k, n].
std::vector<double> NaiveMatMul(const std::vector<double>& a, const std::vector<double>& b,
                                int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
  return c;
}

TEST(FusionRepeatedFcRelu, EveryLayerIsFcThenRelu) {
  const std::vector<int64_t> widths = {4, 5, 3, 2};
  const int64_t rows = 3;
  const std::vector<double> x = RandomValues(rows * widths[0], -1, 1, 1);
  std::vector<std::vector<double>> ws, bs;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    ws.push_back(RandomValues(widths[i] * widths[i + 1], -0.8, 0.8, 10 + i));
    bs.push_back(RandomValues(widths[i + 1], -0.3, 0.3, 20 + i));
  }
  std::vector<std::vector<double>> layers;  // Y_1 ... Y_n.
  std::vector<double> y = x;
  for (size_t i = 0; i < ws.size(); ++i) {
    y = NaiveMatMul(y, ws[i], rows, widths[i + 1], widths[i]);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < widths[i + 1]; ++j) {
        y[r * widths[i + 1] + j] = std::max(0.0, y[r * widths[i + 1] + j] + bs[i][j]);
      }
    }
    layers.push_back(y);
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    SlotTensors in = {{"X", {MakeTensor<T>({rows, widths[0]}, x)}}};
    for (size_t i = 0; i < ws.size(); ++i) {
      in["W"].push_back(MakeTensor<T>({widths[i], widths[i + 1]}, ws[i]));
      in["Bias"].push_back(MakeTensor<T>({1, widths[i + 1]}, bs[i]));
    }
    return RunOp("fusion_repeated_fc_relu", in, {{"ReluOut", 2}, {"Out", 1}});
  };
  const auto r = run(double());
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({rows, 2}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), layers[2], 1e-13, 1e-14, "Out");
  ExpectNear(ToDoubles(r.outputs.at("ReluOut")[0]), layers[0], 1e-13, 1e-14, "ReluOut 0");
  ExpectNear(ToDoubles(r.outputs.at("ReluOut")[1]), layers[1], 1e-13, 1e-14, "ReluOut 1");
  ExpectNear(ToDoubles(run(float()).outputs.at("Out")[0]), layers[2], 1e-5, 1e-6, "float");
}

TEST(FusionRepeatedFcRelu, BadLayersAreTypedErrors) {
  SlotTensors one_layer = {{"X", {MakeTensor<double>({2, 3}, std::vector<double>(6))}},
                           {"W", {MakeTensor<double>({3, 2}, std::vector<double>(6))}},
                           {"Bias", {MakeTensor<double>({1, 2}, std::vector<double>(2))}}};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_repeated_fc_relu", one_layer, {{"Out", 1}});
      },
      {"op `fusion_repeated_fc_relu` inputs `W` and `Bias`", "at least two layers"});
  SlotTensors mismatch = one_layer;
  mismatch["W"].push_back(MakeTensor<double>({4, 2}, std::vector<double>(8)));
  mismatch["Bias"].push_back(MakeTensor<double>({1, 2}, std::vector<double>(2)));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_repeated_fc_relu", mismatch, {{"Out", 1}});
      },
      {"op `fusion_repeated_fc_relu` input `W` #1", "expected [2, K]", "[4, 2]"});
}

TEST(FusionSquaredMatSub, SquareOfProductLessProductOfSquares) {
  const int64_t m = 3, k = 4, n = 5;
  const std::vector<double> x = RandomValues(m * k, -1, 1, 1), y = RandomValues(k * n, -1, 1, 2);
  std::vector<double> x2(x.size()), y2(y.size());
  for (size_t i = 0; i < x.size(); ++i) x2[i] = x[i] * x[i];
  for (size_t i = 0; i < y.size(); ++i) y2[i] = y[i] * y[i];
  const std::vector<double> xy = NaiveMatMul(x, y, m, n, k), x2y2 = NaiveMatMul(x2, y2, m, n, k);
  std::vector<double> expected(m * n);
  for (int64_t i = 0; i < m * n; ++i) expected[i] = 0.25 * (xy[i] * xy[i] - x2y2[i]);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    return RunOp("fusion_squared_mat_sub",
                 {{"X", {MakeTensor<T>({m, k}, x)}}, {"Y", {MakeTensor<T>({k, n}, y)}}},
                 {{"SquaredX", 1}, {"SquaredY", 1}, {"SquaredXY", 1}, {"Out", 1}},
                 {{"scalar", 0.25f}});
  };
  const auto r = run(double());
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, 1e-13, 1e-14, "Out");
  ExpectNear(ToDoubles(r.outputs.at("SquaredX")[0]), x2, 0, 0, "SquaredX");
  ExpectNear(ToDoubles(run(float()).outputs.at("Out")[0]), expected, 1e-5, 1e-6, "float");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_squared_mat_sub",
              {{"X", {MakeTensor<double>({m, k}, x)}}, {"Y", {MakeTensor<double>({n, k}, y)}}},
              {{"Out", 1}});
      },
      {"op `fusion_squared_mat_sub` inputs `X` and `Y`", "[3, 4] and [5, 4]"});
}

TEST(FusionSeqPoolConcat, PoolsEachInputThenConcatenates) {
  const LoD lod = {{0, 2, 2, 5}};  // An empty sequence in the middle pools to zeros.
  const std::vector<int64_t> widths = {3, 2};
  std::vector<std::vector<double>> xs;
  for (size_t i = 0; i < widths.size(); ++i) xs.push_back(RandomValues(5 * widths[i], -1, 1, i));
  for (const char* pooltype : {"SUM", "AVERAGE", "SQRT"}) {
    std::vector<double> expected;
    for (size_t n = 0; n + 1 < lod[0].size(); ++n) {
      const size_t len = lod[0][n + 1] - lod[0][n];
      for (size_t i = 0; i < widths.size(); ++i) {
        for (int64_t k = 0; k < widths[i]; ++k) {
          double sum = 0;
          for (size_t r = lod[0][n]; r < lod[0][n + 1]; ++r) sum += xs[i][r * widths[i] + k];
          const std::string p = pooltype;
          const double div = len == 0 ? 1 : p == "SUM" ? 1 : p == "AVERAGE" ? len : std::sqrt(len);
          expected.push_back(sum / div);
        }
      }
    }
    auto run = [&](auto tag) {
      using T = decltype(tag);
      SlotTensors in;
      for (size_t i = 0; i < widths.size(); ++i) {
        DenseTensor x = MakeTensor<T>({5, widths[i]}, xs[i]);
        x.set_lod(lod);
        in["X"].push_back(x);
      }
      return RunOp("fusion_seqpool_concat", in, {{"Out", 1}},
                   {{"pooltype", std::string(pooltype)}, {"axis", 1}});
    };
    const auto r = run(double());
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dims(), DDim({3, 5})) << pooltype;
    EXPECT_EQ(out.lod(), LoD({{0, 1, 2, 3}})) << pooltype;
    ExpectNear(ToDoubles(out), expected, 1e-14, 1e-15, pooltype);
    ExpectNear(ToDoubles(run(float()).outputs.at("Out")[0]), expected, 1e-6, 1e-6,
               std::string(pooltype) + " float");
  }
}

TEST(FusionSeqPoolCvmConcat, CvmOnEachPooledRow) {
  const LoD lod = {{0, 2, 3}};
  const std::vector<double> a = {1, 2, 0.5, 3, 4, 1, 2, 0, 5, 6, 7, -1};  // [3, 4].
  const std::vector<double> b = {0, 1, 2, 3, 4, 5};                       // [3, 2].
  for (bool use_cvm : {true, false}) {
    std::vector<double> expected;
    for (size_t n = 0; n < 2; ++n) {
      for (const auto& [x, w] : {std::make_pair(&a, 4), std::make_pair(&b, 2)}) {
        std::vector<double> p(w, 0.0);
        for (size_t r = lod[0][n]; r < lod[0][n + 1]; ++r) {
          for (int k = 0; k < w; ++k) p[k] += (*x)[r * w + k];
        }
        if (use_cvm) {
          expected.push_back(std::log(p[0] + 1));
          expected.push_back(std::log(p[1] + 1) - std::log(p[0] + 1));
        }
        for (int k = 2; k < w; ++k) expected.push_back(p[k]);
      }
    }
    DenseTensor at = MakeTensor<double>({3, 4}, a), bt = MakeTensor<double>({3, 2}, b);
    at.set_lod(lod);
    bt.set_lod(lod);
    const auto r = RunOp("fusion_seqpool_cvm_concat",
                         {{"X", {at, bt}}, {"CVM", {MakeTensor<double>({2, 2}, {1, 1, 1, 1})}}},
                         {{"Out", 1}}, {{"use_cvm", use_cvm}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, use_cvm ? 6 : 2}));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, 1e-15, 0,
               use_cvm ? "use_cvm" : "drop counts");
  }
}

TEST(FusionSeqPoolConcat, MismatchedSequencesAreTypedErrors) {
  DenseTensor a = MakeTensor<double>({4, 2}, std::vector<double>(8));
  a.set_lod({{0, 1, 4}});
  DenseTensor b = MakeTensor<double>({4, 2}, std::vector<double>(8));
  b.set_lod({{0, 1, 2, 4}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_seqpool_concat", {{"X", {a, b}}}, {{"Out", 1}});
      },
      {"op `fusion_seqpool_concat` input `X` #1", "expected 2 sequences", "received 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_seqpool_concat", {{"X", {a, a}}}, {{"Out", 1}}, {{"axis", 0}});
      },
      {"op `fusion_seqpool_concat` attribute `axis`", "expected 1, received 0"});
}

TEST(FusionSeqConvEltAddRelu, WindowsWithinSequencesThenBiasAndRelu) {
  const LoD lod = {{0, 3, 4, 7}};
  const int64_t rows = 7, d = 2, m = 3;
  const std::vector<double> x = RandomValues(rows * d, -1, 1, 1);
  const std::vector<double> b = RandomValues(m, -0.3, 0.3, 3);
  for (int start : {-1, 0, -2}) {
    const int length = 3;
    const std::vector<double> f = RandomValues(length * d * m, -0.8, 0.8, 2 + start);
    std::vector<double> expected(rows * m);
    for (size_t q = 0; q + 1 < lod[0].size(); ++q) {
      const int64_t begin = lod[0][q], end = lod[0][q + 1];
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t j = 0; j < m; ++j) {
          double acc = b[j];
          for (int w = 0; w < length; ++w) {
            const int64_t src = r + start + w;
            if (src < begin || src >= end) continue;  // Zero padding.
            for (int64_t c = 0; c < d; ++c) acc += x[src * d + c] * f[(w * d + c) * m + j];
          }
          expected[r * m + j] = std::max(0.0, acc);
        }
      }
    }
    auto run = [&](auto tag) {
      using T = decltype(tag);
      DenseTensor xt = MakeTensor<T>({rows, d}, x);
      xt.set_lod(lod);
      return RunOp("fusion_seqconv_eltadd_relu",
                   {{"X", {xt}},
                    {"Filter", {MakeTensor<T>({length * d, m}, f)}},
                    {"Bias", {MakeTensor<T>({1, m}, b)}}},
                   {{"Out", 1}, {"ColMat", 1}},
                   {{"contextLength", length}, {"contextStart", start}, {"contextStride", 1}});
    };
    const std::string what = "contextStart " + std::to_string(start);
    const auto r = run(double());
    EXPECT_EQ(r.outputs.at("Out")[0].lod(), lod) << what;
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, 1e-13, 1e-14, what);
    ExpectNear(ToDoubles(run(float()).outputs.at("Out")[0]), expected, 1e-5, 1e-6, what + " float");
  }
  DenseTensor xt = MakeTensor<double>({rows, d}, x);
  xt.set_lod(lod);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_seqconv_eltadd_relu",
              {{"X", {xt}},
               {"Filter", {MakeTensor<double>({3 * d, m}, std::vector<double>(3 * d * m))}},
               {"Bias", {MakeTensor<double>({1, m}, b)}}},
              {{"Out", 1}}, {{"contextLength", 3}, {"contextStride", 2}});
      },
      {"op `fusion_seqconv_eltadd_relu` attribute `contextStride`", "expected 1, received 2"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
