// maxout (NCHW and NHWC, several group sizes) against group maxima taken by hand, the doc's
// example, gradients by finite differences, typed errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(MaxoutOp, TakesTheLargestOfEachGroup) {
  operators::RegisterAllOps();
  const auto ex = RunOp("maxout", {{"X", {MakeTensor<float>({1, 4, 1, 1}, {1, 5, 3, 2})}}},
                        {{"Out", 1}}, {{"groups", 2}});
  EXPECT_EQ(ToDoubles(ex.outputs.at("Out")[0]), (std::vector<double>{5, 3}));
  const int64_t n = 2, c = 12, h = 2, w = 3;
  const std::vector<double> x = RandomValues(n * c * h * w, -1, 1, 4);
  for (int groups : {1, 2, 3, 4, 12}) {
    for (int axis : {1, 3, -1}) {
      SCOPED_TRACE("groups " + std::to_string(groups) + " axis " + std::to_string(axis));
      const bool nhwc = axis != 1;
      const DDim dims = nhwc ? DDim{n, h, w, c} : DDim{n, c, h, w};
      const auto r = RunOp("maxout", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}},
                           {{"groups", groups}, {"axis", axis}});
      const int64_t oc = c / groups;
      std::vector<double> want;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < (nhwc ? h * w : oc); ++i) {
          for (int64_t j = 0; j < (nhwc ? oc : h * w); ++j) {
            const int64_t ch = nhwc ? j : i, pix = nhwc ? i : j;
            double best = -1e300;
            for (int64_t g = 0; g < groups; ++g) {
              const int64_t from = ch * groups + g;
              best = std::max(
                  best, nhwc ? x[(b * h * w + pix) * c + from] : x[(b * c + from) * h * w + pix]);
            }
            want.push_back(best);
          }
        }
      }
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), nhwc ? DDim({n, h, w, oc}) : DDim({n, oc, h, w}));
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
    }
  }
}

TEST(MaxoutOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (int axis : {1, -1}) {
    GradCheck check;
    check.op_type = "maxout";
    check.inputs = {{"X",
                     {MakeTensor<double>(axis == 1 ? DDim{2, 6, 2, 2} : DDim{2, 2, 2, 6},
                                         RandomValues(48, -1, 1, 6))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"groups", 3}, {"axis", axis}};
    CheckGradients(check);
  }
}

TEST(MaxoutOp, GradientGoesToTheFirstMaximum) {
  operators::RegisterAllOps();
  const auto r = RunNamedOp("maxout_grad", {{"X", {"x"}}, {"Out", {"out"}}, {"Out@GRAD", {"dout"}}},
                            {{"X@GRAD", {"dx"}}},
                            {{"x", MakeTensor<float>({1, 4, 1, 1}, {2, 2, 1, 3})},
                             {"out", MakeTensor<float>({1, 2, 1, 1}, {2, 3})},
                             {"dout", MakeTensor<float>({1, 2, 1, 1}, {5, 7})}},
                            {{"groups", 2}});
  EXPECT_EQ(ToDoubles(r.vars.at("dx")), (std::vector<double>{5, 0, 0, 7}));
}

TEST(MaxoutOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("maxout", {{"X", {MakeTensor<float>({1, 6, 1, 1}, RandomValues(6, 0, 1))}}},
              {{"Out", 1}}, {{"groups", 4}});
      },
      {"op `maxout` attribute `groups`", "divisor of X's 6 channels", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("maxout", {{"X", {MakeTensor<float>({6, 2}, RandomValues(12, 0, 1))}}}, {{"Out", 1}},
              {{"groups", 2}});
      },
      {"op `maxout` input `X`", "rank 4"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("maxout", {{"X", {MakeTensor<float>({1, 4, 1, 1}, RandomValues(4, 0, 1))}}},
              {{"Out", 1}}, {{"groups", 2}, {"axis", 2}});
      },
      {"maxout", "axis"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
