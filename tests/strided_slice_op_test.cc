// strided_slice against index lists built here (PaddlePaddle's rules: negative bounds count
// from the end, positive strides clamp to [0, n), negative ones to (-1, n - 1]), from
// attributes and from tensor inputs; decrease_axis; the gradient and its gradient against
// finite differences; the errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// The indices one axis of size n takes.
std::vector<int64_t> Taken(int64_t n, int64_t s, int64_t e, int64_t t) {
  if (s < 0) s += n;
  if (e < 0) e += n;
  std::vector<int64_t> idx;
  if (t > 0) {
    for (int64_t i = std::max<int64_t>(s, 0); i < std::min(e, n); i += t) idx.push_back(i);
  } else {
    for (int64_t i = std::min(s, n - 1); i > std::max<int64_t>(e, -1); i += t) idx.push_back(i);
  }
  return idx;
}

struct Case {
  std::vector<int> axes, starts, ends, strides;
};

TEST(StridedSliceOp, TakesTheIndicesOfEachAxis) {
  operators::RegisterAllOps();
  const std::vector<int64_t> shape = {4, 5, 6};
  const DDim dims(shape);
  const auto x = RandomValues(dims.numel(), -1, 1, 3);
  const int kMax = 2147483647, kMin = -2147483647 - 1;
  const std::vector<Case> cases = {
      {{1, 2}, {0, 1}, {5, 6}, {2, 2}},
      {{0}, {kMax}, {kMin}, {-1}},
      {{2}, {5, 1}, {0, 0}, {-2, 1}},
      {{0, 1, 2}, {-10, 3, -1}, {100, -100, -5}, {3, -1, -1}},
      {{-1}, {1}, {kMax}, {4}},
      {{1}, {-1}, {-1}, {-1}},
      {{0}, {2}, {2}, {1}},
  };
  for (Case c : cases) {
    c.starts.resize(c.axes.size());
    c.ends.resize(c.axes.size());
    c.strides.resize(c.axes.size(), 1);
    std::vector<std::vector<int64_t>> taken;
    for (int d = 0; d < 3; ++d) {
      std::vector<int64_t> all(static_cast<size_t>(shape[d]));
      for (int64_t i = 0; i < shape[d]; ++i) all[i] = i;
      taken.push_back(all);
    }
    for (size_t k = 0; k < c.axes.size(); ++k) {
      const int a = c.axes[k] < 0 ? c.axes[k] + 3 : c.axes[k];
      taken[a] = Taken(shape[a], c.starts[k], c.ends[k], c.strides[k]);
    }
    std::vector<double> want;
    for (int64_t i : taken[0]) {
      for (int64_t j : taken[1]) {
        for (int64_t k : taken[2]) want.push_back(x[(i * 5 + j) * 6 + k]);
      }
    }
    const DDim want_dims({static_cast<int64_t>(taken[0].size()),
                          static_cast<int64_t>(taken[1].size()),
                          static_cast<int64_t>(taken[2].size())});
    for (bool tensors : {false, true}) {
      SlotTensors in = {{"Input", {MakeTensor<double>(dims, x)}}};
      AttributeMap attrs = {{"axes", c.axes}};
      if (tensors) {
        const auto as_tensor = [](const std::vector<int>& v) {
          return MakeTensor<int64_t>(DDim({static_cast<int64_t>(v.size())}),
                                     std::vector<double>(v.begin(), v.end()));
        };
        in["StartsTensor"] = {as_tensor(c.starts)};
        in["EndsTensor"] = {as_tensor(c.ends)};
        in["StridesTensor"] = {as_tensor(c.strides)};
      } else {
        attrs["starts"] = c.starts;
        attrs["ends"] = c.ends;
        attrs["strides"] = c.strides;
      }
      const OpRunResult r = RunOp("strided_slice", in, {{"Out", 1}}, attrs);
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), want_dims);
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 0, 0, "strided_slice");
    }
  }
}

TEST(StridedSliceOp, DecreaseAxisDropsUnitDims) {
  operators::RegisterAllOps();
  const auto x = RandomValues(20, -1, 1, 4);
  const OpRunResult r =
      RunOp("strided_slice", {{"Input", {MakeTensor<double>({4, 5}, x)}}}, {{"Out", 1}},
            {{"axes", std::vector<int>{0, 1}},
             {"starts", std::vector<int>{2, 0}},
             {"ends", std::vector<int>{3, 5}},
             {"strides", std::vector<int>{1, 2}},
             {"decrease_axis", std::vector<int>{0}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{x[10], x[12], x[14]}));
}

TEST(StridedSliceOp, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "strided_slice";
  check.inputs = {{"Input", {MakeTensor<double>({4, 5}, RandomValues(20, -1, 1, 5))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"axes", std::vector<int>{0, 1}},
                 {"starts", std::vector<int>{3, 0}},
                 {"ends", std::vector<int>{-10, 5}},
                 {"strides", std::vector<int>{-2, 2}}};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(StridedSliceOp, BadSlicesAreErrors) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({4, 5}, RandomValues(20, -1, 1, 6));
  const auto run = [&](const std::vector<int>& starts, const std::vector<int>& ends,
                       const std::vector<int>& strides, const std::vector<int>& decrease) {
    RunOp("strided_slice", {{"Input", {x}}}, {{"Out", 1}},
          {{"axes", std::vector<int>{1}},
           {"starts", starts},
           {"ends", ends},
           {"strides", strides},
           {"decrease_axis", decrease}});
  };
  ExpectError<platform::InvalidArgumentError>([&] { run({0}, {5}, {0}, {}); },
                                              {"op `strided_slice`", "non-zero", "axis 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({4}, {1}, {1}, {}); }, {"op `strided_slice` axis 1", "from 4 to 1", "stride 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({0}, {4}, {2}, {1}); },
      {"op `strided_slice` attribute `decrease_axis`", "size 2", "expected 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({0, 1}, {4}, {2}, {});
      },
      {"op `strided_slice`", "as many starts", "received 2, 1 and 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
