// bmm and affine_channel against direct loops in double, their gradients against finite
// differences up to second order (both are written with differentiable ops), and their
// errors.
#include <array>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(BmmOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  for (const auto& [b, m, k, n] : std::vector<std::array<int64_t, 4>>{
           {1, 1, 1, 1}, {2, 3, 4, 5}, {3, 1, 7, 2}, {2, 5, 3, 1}, {0, 2, 3, 4}}) {
    const auto x = RandomValues(b * m * k, -1, 1, 3);
    const auto y = RandomValues(b * k * n, -1, 1, 4);
    std::vector<double> want(static_cast<size_t>(b * m * n), 0.0);
    for (int64_t p = 0; p < b; ++p) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t q = 0; q < k; ++q) {
            want[(p * m + i) * n + j] += x[(p * m + i) * k + q] * y[(p * k + q) * n + j];
          }
        }
      }
    }
    for (DataType t : {DataType::FLOAT64, DataType::FLOAT32}) {
      const auto make = [t](const DDim& d, const std::vector<double>& v) {
        return t == DataType::FLOAT64 ? MakeTensor<double>(d, v) : MakeTensor<float>(d, v);
      };
      const OpRunResult r =
          RunOp("bmm", {{"X", {make(DDim({b, m, k}), x)}}, {"Y", {make(DDim({b, k, n}), y)}}},
                {{"Out", 1}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({b, m, n}));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, RelTol(t), 1e-6, "bmm");
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("bmm",
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}},
               {"Y", {MakeTensor<float>({3, 2}, RandomValues(6, -1, 1))}}},
              {{"Out", 1}});
      },
      {"op `bmm` inputs `X` and `Y`", "rank 3 each", "[2, 3] and [3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("bmm",
              {{"X", {MakeTensor<float>({2, 1, 3}, RandomValues(6, -1, 1))}},
               {"Y", {MakeTensor<float>({1, 3, 2}, RandomValues(6, -1, 1))}}},
              {{"Out", 1}});
      },
      {"op `bmm` inputs `X` and `Y`", "the same batch", "[2, 1, 3] and [1, 3, 2]"});
}

TEST(BmmOp, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "bmm";
  check.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -1, 1, 5))}},
                  {"Y", {MakeTensor<double>({2, 4, 2}, RandomValues(16, -1, 1, 6))}}};
  check.outputs = {{"Out", 1}};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(AffineChannelOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  for (const std::string layout : {"NCHW", "AnyLayout", "NHWC"}) {
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{2, 3, 4, 5}, {4, 3}, {2, 3, 5}}) {
      const DDim dims(shape);
      const bool last = layout == "NHWC";
      const int64_t c = last ? shape.back() : shape[1];
      const auto x = RandomValues(dims.numel(), -2, 2, 7);
      const auto s = RandomValues(c, 0.5, 1.5, 8);
      const auto b = RandomValues(c, -1, 1, 9);
      // The channel of each element from its multi-index.
      std::vector<double> want(x.size());
      for (int64_t e = 0; e < dims.numel(); ++e) {
        int64_t rest = e, ch = 0;
        for (int d = dims.size() - 1; d >= 0; --d) {
          if (d == (last ? dims.size() - 1 : 1)) ch = rest % shape[d];
          rest /= shape[d];
        }
        want[e] = x[e] * s[ch] + b[ch];
      }
      const OpRunResult r = RunOp("affine_channel",
                                  {{"X", {MakeTensor<double>(dims, x)}},
                                   {"Scale", {MakeTensor<double>(DDim({c}), s)}},
                                   {"Bias", {MakeTensor<double>(DDim({c}), b)}}},
                                  {{"Out", 1}}, {{"data_layout", layout}});
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-12, 1e-12,
                 "affine_channel " + layout + " " + dims.ToString());
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("affine_channel",
              {{"X", {MakeTensor<float>({2, 3, 2}, RandomValues(12, -1, 1))}},
               {"Scale", {MakeTensor<float>({2}, {1, 1})}},
               {"Bias", {MakeTensor<float>({3}, {0, 0, 0})}}},
              {{"Out", 1}});
      },
      {"op `affine_channel` input `Scale`", "[3]", "received [2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("affine_channel",
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}},
               {"Scale", {MakeTensor<float>({3}, {1, 1, 1})}},
               {"Bias", {MakeTensor<float>({3}, {0, 0, 0})}}},
              {{"Out", 1}}, {{"data_layout", std::string("NCDHW")}});
      },
      {"op `affine_channel` attribute `data_layout`", "NCDHW"});
}

TEST(AffineChannelOp, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  for (const std::string layout : {"NCHW", "NHWC"}) {
    SCOPED_TRACE(layout);
    GradCheck check;
    check.op_type = "affine_channel";
    check.inputs = {{"X", {MakeTensor<double>({2, 3, 2, 3}, RandomValues(36, -1, 1, 10))}},
                    {"Scale", {MakeTensor<double>({layout == "NHWC" ? 3 : 3}, {0.5, 1.5, -1})}},
                    {"Bias", {MakeTensor<double>({3}, {0.1, -0.2, 0.3})}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"data_layout", layout}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
