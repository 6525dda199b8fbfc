// channel_shuffle (NCHW and NHWC) and shuffle_channel against the permutation written here,
// the example of the op doc, gradients by finite differences, typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// x [n, c, pixels] (or [n, pixels, c]) with channel j g + i taken from i (c / g) + j.
std::vector<double> NaiveShuffle(const std::vector<double>& x, int64_t n, int64_t c, int64_t pixels,
                                 int64_t g, bool nhwc) {
  std::vector<double> out(x.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t to = 0; to < c; ++to) {
      const int64_t from = (to % g) * (c / g) + to / g;
      for (int64_t p = 0; p < pixels; ++p) {
        const int64_t dst = nhwc ? (b * pixels + p) * c + to : (b * c + to) * pixels + p;
        const int64_t src = nhwc ? (b * pixels + p) * c + from : (b * c + from) * pixels + p;
        out[dst] = x[src];
      }
    }
  }
  return out;
}

TEST(ChannelShuffleOp, InterleavesTheGroups) {
  operators::RegisterAllOps();
  // The doc's example: channels [0 .. 5], two groups.
  const auto ex =
      RunOp("channel_shuffle", {{"X", {MakeTensor<float>({1, 6, 1, 1}, {0, 1, 2, 3, 4, 5})}}},
            {{"Out", 1}}, {{"groups", 2}});
  EXPECT_EQ(ToDoubles(ex.outputs.at("Out")[0]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  const std::vector<double> x = RandomValues(2 * 12 * 6, -1, 1, 3);
  for (int groups : {1, 2, 3, 4, 12}) {
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE("groups " + std::to_string(groups) + (nhwc ? " NHWC" : " NCHW"));
      const DDim dims = nhwc ? DDim{2, 2, 3, 12} : DDim{2, 12, 2, 3};
      const auto r =
          RunOp("channel_shuffle", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}},
                {{"groups", groups}, {"data_format", std::string(nhwc ? "NHWC" : "NCHW")}});
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), NaiveShuffle(x, 2, 12, 6, groups, nhwc));
    }
    const auto old = RunOp("shuffle_channel", {{"X", {MakeTensor<float>({2, 12, 2, 3}, x)}}},
                           {{"Out", 1}}, {{"group", groups}});
    ExpectNear(ToDoubles(old.outputs.at("Out")[0]),
               ToDoubles(MakeTensor<float>({144}, NaiveShuffle(x, 2, 12, 6, groups, false))), 0, 0,
               "shuffle_channel");
  }
}

TEST(ChannelShuffleOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const char* op : {"channel_shuffle", "shuffle_channel"}) {
    SCOPED_TRACE(op);
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeTensor<double>({1, 6, 2, 2}, RandomValues(24, -1, 1, 5))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{std::string(op) == "channel_shuffle" ? "groups" : "group", 3}};
    CheckGradients(check);
  }
}

TEST(ChannelShuffleOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("channel_shuffle", {{"X", {MakeTensor<float>({1, 6, 1, 1}, RandomValues(6, 0, 1))}}},
              {{"Out", 1}}, {{"groups", 4}});
      },
      {"op `channel_shuffle` attribute `groups`", "divisor of the 6 channels", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("shuffle_channel", {{"X", {MakeTensor<float>({6, 2}, RandomValues(12, 0, 1))}}},
              {{"Out", 1}}, {{"group", 2}});
      },
      {"op `shuffle_channel` input `X`", "rank 4"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
