// broadcast_tensors against a reference written here (each output element read from its
// input at the coordinates clamped to size-1 dims), for mixed ranks and dtypes; gradients to
// second order by finite differences; shapes that do not broadcast are refused by name.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "broadcast_tensors";

// x (of dims `in`, right-aligned) read at every position of `out`.
std::vector<double> NaiveBroadcast(const std::vector<double>& x, const std::vector<int64_t>& in,
                                   const std::vector<int64_t>& out) {
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<double> r(static_cast<size_t>(total));
  const size_t shift = out.size() - in.size();
  for (int64_t p = 0; p < total; ++p) {
    int64_t rest = p, offset = 0, stride = 1;
    for (size_t d = out.size(); d-- > 0;) {
      const int64_t c = rest % out[d];
      rest /= out[d];
      if (d >= shift) {
        const int64_t n = in[d - shift];
        offset += (n == 1 ? 0 : c) * stride;
        stride *= n;
      }
    }
    r[p] = x[offset];
  }
  return r;
}

TEST(BroadcastTensorsOp, EveryInputReachesTheCommonShape) {
  operators::RegisterAllOps();
  const std::vector<std::vector<int64_t>> shapes = {{2, 1, 3}, {4, 1}, {3}, {1, 4, 3}};
  const std::vector<int64_t> common = {2, 4, 3};
  for (bool dbl : {false, true}) {
    SlotTensors in;
    std::vector<std::vector<double>> values;
    for (size_t i = 0; i < shapes.size(); ++i) {
      int64_t n = 1;
      for (int64_t d : shapes[i]) n *= d;
      values.push_back(RandomValues(n, -1, 1, 3 + i));
      in["X"].push_back(dbl ? MakeTensor<double>(DDim(shapes[i]), values.back())
                            : MakeTensor<float>(DDim(shapes[i]), values.back()));
    }
    const auto r = RunOp(kOp, in, {{"Out", static_cast<int>(shapes.size())}});
    for (size_t i = 0; i < shapes.size(); ++i) {
      const DenseTensor& out = r.outputs.at("Out")[i];
      EXPECT_EQ(out.dims(), DDim(common)) << i;
      const std::vector<double> want = NaiveBroadcast(values[i], shapes[i], common);
      ExpectNear(ToDoubles(out), dbl ? want : ToDoubles(MakeTensor<float>({24}, want)), 0, 0,
                 "input " + std::to_string(i));
    }
  }
  const auto ints = RunOp(kOp,
                          {{"X",
                            {MakeTensor<int64_t>({2, 1}, {5, 7}),
                             MakeTensor<int64_t>({1, 3}, {1, 2, 3})}}},
                          {{"Out", 2}});
  EXPECT_EQ(ToDoubles(ints.outputs.at("Out")[0]), (std::vector<double>{5, 5, 5, 7, 7, 7}));
  EXPECT_EQ(ToDoubles(ints.outputs.at("Out")[1]), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(BroadcastTensorsOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = kOp;
  check.inputs = {{"X",
                   {MakeTensor<double>({2, 1, 3}, RandomValues(6, -1, 1, 7)),
                    MakeTensor<double>({4, 1}, RandomValues(4, -1, 1, 8)),
                    MakeTensor<double>({2, 4, 3}, RandomValues(24, -1, 1, 9))}}};
  check.outputs = {{"Out", 3}};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(BroadcastTensorsOp, ShapesThatDoNotBroadcastAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp,
              {{"X",
                {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1)),
                 MakeTensor<float>({4}, RandomValues(4, -1, 1))}}},
              {{"Out", 2}});
      },
      {"op `broadcast_tensors`", "[2, 3]", "[4]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
