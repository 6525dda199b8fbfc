// lrn against a direct double loop over each channel window (NCHW and NHWC, several n), its
// gradient against finite differences, and its errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(LrnOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  const int64_t N = 2, C = 6, H = 2, W = 3;
  const auto x = RandomValues(N * C * H * W, -2, 2, 3);
  for (const std::string layout : {"NCHW", "NHWC"}) {
    for (const int n : {1, 3, 5, 7}) {
      const float k = 1.5f, alpha = 0.25f, beta = 0.75f;
      const bool last = layout == "NHWC";
      const auto at = [&](int64_t b, int64_t c, int64_t h, int64_t w) {
        return last ? ((b * H + h) * W + w) * C + c : ((b * C + c) * H + h) * W + w;
      };
      std::vector<double> want(x.size());
      for (int64_t b = 0; b < N; ++b) {
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t h = 0; h < H; ++h) {
            for (int64_t w = 0; w < W; ++w) {
              double sum = 0;
              for (int64_t d = c - (n - 1) / 2; d < c - (n - 1) / 2 + n; ++d) {
                if (d >= 0 && d < C) sum += x[at(b, d, h, w)] * x[at(b, d, h, w)];
              }
              want[at(b, c, h, w)] = x[at(b, c, h, w)] / std::pow(k + alpha * sum, beta);
            }
          }
        }
      }
      const DDim dims = last ? DDim({N, H, W, C}) : DDim({N, C, H, W});
      const OpRunResult r =
          RunOp("lrn", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}, {"MidOut", 1}},
                {{"n", n}, {"k", k}, {"alpha", alpha}, {"beta", beta}, {"data_format", layout}});
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-12, 1e-12,
                 "lrn " + layout + " n " + std::to_string(n));
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("lrn", {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}}},
              {{"Out", 1}, {"MidOut", 1}});
      },
      {"op `lrn` input `X`", "rank 4", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("lrn", {{"X", {MakeTensor<double>({1, 4, 1, 1}, RandomValues(4, -1, 1))}}},
              {{"Out", 1}, {"MidOut", 1}}, {{"n", 4}});
      },
      {"op `lrn` attribute `n`", "odd", "received 4"});
}

TEST(LrnOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  for (const std::string layout : {"NCHW", "NHWC"}) {
    for (const int n : {3, 5}) {
      SCOPED_TRACE(layout + " n " + std::to_string(n));
      GradCheck check;
      check.op_type = "lrn";
      check.inputs = {{"X", {MakeTensor<double>({1, 5, 2, 2}, RandomValues(20, -2, 2, 4))}}};
      check.outputs = {{"Out", 1}, {"MidOut", 1}};
      check.loss_outputs = {"Out"};
      check.attrs = {
          {"n", n}, {"k", 1.0f}, {"alpha", 0.3f}, {"beta", 0.75f}, {"data_format", layout}};
      CheckGradients(check);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
