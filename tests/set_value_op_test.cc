// set_value against assignments written here with index lists (PaddlePaddle's bound rules: for
// a positive step, negative bounds count from the end and clamp to [0, n]; for a negative one
// an end of -1 reaches element 0), values from the attributes (scalars and the typed lists of
// earlier programs) and from ValueTensor with broadcasting, decrease_axes and none_axes, bounds
// from tensor lists; the gradients against finite differences; the errors.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/attribute.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// The indices one axis of size n takes, written from the rules above.
std::vector<int64_t> Taken(int64_t n, int64_t s, int64_t e, int64_t t) {
  std::vector<int64_t> idx;
  if (t > 0) {
    if (s < 0) s += n;
    if (e < 0) e += n;
    for (int64_t i = std::max<int64_t>(s, 0); i < std::min(e, n); i += t) idx.push_back(i);
  } else {
    if (s < 0) s += n;
    if (e < -1) e += n;
    for (int64_t i = std::min(s, n - 1); i > std::max<int64_t>(e, -1); i += t) idx.push_back(i);
  }
  return idx;
}

std::vector<framework::Scalar> Scalars(const std::vector<double>& v) {
  std::vector<framework::Scalar> out;
  for (double x : v) {
    framework::Scalar s;
    s.type = framework::Scalar::Type::FLOAT64;
    s.r = x;
    out.push_back(s);
  }
  return out;
}

struct Slice {
  std::vector<int64_t> axes, starts, ends, steps;
};

// X of shape [4, 5, 6] with the slice set to `value` (shape `vdims`, broadcast over the
// slice's dims [a, b, c], right-aligned).
std::vector<double> Expected(const std::vector<double>& x, const Slice& s,
                             const std::vector<double>& value, const std::vector<int64_t>& vdims) {
  const int64_t shape[3] = {4, 5, 6};
  std::vector<std::vector<int64_t>> taken(3);
  for (int d = 0; d < 3; ++d) {
    for (int64_t i = 0; i < shape[d]; ++i) taken[d].push_back(i);
  }
  for (size_t k = 0; k < s.axes.size(); ++k) {
    const int64_t t = s.steps.empty() ? 1 : s.steps[k];
    taken[s.axes[k]] = Taken(shape[s.axes[k]], s.starts[k], s.ends[k], t);
  }
  std::vector<int64_t> v3(3, 1);  // The value's dims right-aligned to 3.
  for (size_t i = 0; i < vdims.size(); ++i) v3[3 - vdims.size() + i] = vdims[i];
  std::vector<double> out = x;
  for (size_t a = 0; a < taken[0].size(); ++a) {
    for (size_t b = 0; b < taken[1].size(); ++b) {
      for (size_t c = 0; c < taken[2].size(); ++c) {
        const int64_t va = v3[0] == 1 ? 0 : a, vb = v3[1] == 1 ? 0 : b, vc = v3[2] == 1 ? 0 : c;
        out[(taken[0][a] * 5 + taken[1][b]) * 6 + taken[2][c]] =
            value[(va * v3[1] + vb) * v3[2] + vc];
      }
    }
  }
  return out;
}

TEST(SetValueOp, AssignsAttributeValuesToStridedSlices) {
  operators::RegisterAllOps();
  const DDim dims({4, 5, 6});
  const auto x = RandomValues(dims.numel(), -1, 1, 3);
  const std::vector<Slice> slices = {
      {{1, 2}, {0, 1}, {5, 6}, {2, 2}},
      {{0}, {3}, {-5}, {-1}},   // 3, 2, 1, 0 (end -5 < -1 becomes -1).
      {{0}, {-1}, {-1}, {-1}},  // From the last element through element 0.
      {{0}, {-2}, {-3}, {-1}},  // Element 2 only.
      {{0, 1, 2}, {-10, 3, -1}, {100, -100, -5}, {3, -1, -1}},
      {{2}, {1}, {4}, {}},   // No steps: all 1.
      {{1}, {2}, {2}, {1}},  // Empty.
  };
  for (const Slice& s : slices) {
    for (bool scalar_value : {true, false}) {
      AttributeMap attrs = {{"axes", s.axes}, {"starts", s.starts}, {"ends", s.ends}};
      if (!s.steps.empty()) attrs["steps"] = s.steps;
      std::vector<double> value = {2.5};
      std::vector<int64_t> vdims = {1};
      if (!scalar_value) {  // A row over the last dim, broadcast over the others.
        const int64_t n = s.axes.back() == 2
                              ? static_cast<int64_t>(Taken(6, s.starts.back(), s.ends.back(),
                                                           s.steps.empty() ? 1 : s.steps.back())
                                                         .size())
                              : 6;
        if (n == 0) continue;
        value = RandomValues(n, -3, 3, 11);
        vdims = {n};
      }
      attrs["shape"] = vdims;
      attrs["values"] = Scalars(value);
      const OpRunResult r =
          RunOp("set_value", {{"Input", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}}, attrs);
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), dims);
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), Expected(x, s, value, vdims), 0, 0,
                 "set_value");
    }
  }
}

TEST(SetValueOp, ReadsTheTypedListsOfEarlierProgramsAndBoundTensorLists) {
  operators::RegisterAllOps();
  const DDim dims({4, 5, 6});
  const auto x = RandomValues(dims.numel(), -5, 5, 4);
  const Slice s = {{0, 2}, {1, 5}, {3, 0}, {1, -2}};
  const auto one = [](int64_t v) { return MakeTensor<int32_t>(DDim({1}), {double(v)}); };
  SlotTensors in = {{"Input", {MakeTensor<float>(dims, x)}},
                    {"StartsTensorList", {one(1), one(5)}},
                    {"EndsTensorList", {one(3), one(0)}},
                    {"StepsTensorList", {one(1), one(-2)}}};
  const OpRunResult r = RunOp("set_value", in, {{"Out", 1}},
                              {{"axes", std::vector<int64_t>{0, 2}},
                               {"shape", std::vector<int64_t>{1}},
                               {"fp32_values", std::vector<float>{-7.0f}}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
             Expected(ToDoubles(MakeTensor<float>(dims, x)), s, {-7.0}, {1}), 0, 0,
             "set_value fp32_values");

  // int64 tensor, int64_values with a 2-element value broadcast over rows.
  std::vector<double> xi(static_cast<size_t>(dims.numel()));
  for (size_t i = 0; i < xi.size(); ++i) xi[i] = static_cast<double>(i);
  const Slice t = {{2}, {0}, {6}, {3}};
  const OpRunResult ri =
      RunOp("set_value", {{"Input", {MakeTensor<int64_t>(dims, xi)}}}, {{"Out", 1}},
            {{"axes", t.axes},
             {"starts", t.starts},
             {"ends", t.ends},
             {"steps", t.steps},
             {"shape", std::vector<int64_t>{2}},
             {"int64_values", std::vector<int64_t>{-1, -2}}});
  EXPECT_EQ(ri.outputs.at("Out")[0].dtype(), DataType::INT64);
  ExpectNear(ToDoubles(ri.outputs.at("Out")[0]), Expected(xi, t, {-1, -2}, {2}), 0, 0,
             "set_value int64");
}

TEST(SetValueOp, ValueTensorWithDecreaseAndNoneAxes) {
  operators::RegisterAllOps();
  const DDim dims({4, 5, 6});
  const auto x = RandomValues(dims.numel(), -1, 1, 5);
  // x[2, 1:4] = v with v of shape [3, 6]: axis 0 is indexed by an integer (decreased).
  const Slice s = {{0, 1}, {2, 1}, {3, 4}, {1, 1}};
  const auto v = RandomValues(18, -1, 1, 6);
  const OpRunResult r = RunOp(
      "set_value",
      {{"Input", {MakeTensor<double>(dims, x)}}, {"ValueTensor", {MakeTensor<double>({3, 6}, v)}}},
      {{"Out", 1}},
      {{"axes", s.axes},
       {"starts", s.starts},
       {"ends", s.ends},
       {"steps", s.steps},
       {"decrease_axes", std::vector<int64_t>{0}}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), Expected(x, s, v, {1, 3, 6}), 0, 0,
             "set_value decrease_axes");

  // x[None, 2, :, 0:1] = v with v of shape [1, 5, 1]: the None adds a unit dim in front, axis
  // 0 is decreased, so the value's target is [1, 5, 1].
  const Slice n = {{0, 2}, {2, 0}, {3, 1}, {1, 1}};
  const auto w = RandomValues(5, -1, 1, 7);
  const OpRunResult rn = RunOp("set_value",
                               {{"Input", {MakeTensor<double>(dims, x)}},
                                {"ValueTensor", {MakeTensor<double>({1, 5, 1}, w)}}},
                               {{"Out", 1}},
                               {{"axes", n.axes},
                                {"starts", n.starts},
                                {"ends", n.ends},
                                {"steps", n.steps},
                                {"decrease_axes", std::vector<int64_t>{0}},
                                {"none_axes", std::vector<int64_t>{0}}});
  ExpectNear(ToDoubles(rn.outputs.at("Out")[0]), Expected(x, n, w, {1, 5, 1}), 0, 0,
             "set_value none_axes");
}

TEST(SetValueOp, GradientsOfInputAndValue) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "set_value";
  check.inputs = {{"Input", {MakeTensor<double>({4, 5, 6}, RandomValues(120, -1, 1, 8))}},
                  {"ValueTensor", {MakeTensor<double>({3, 1}, RandomValues(3, -1, 1, 9))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"axes", std::vector<int64_t>{1, 2}},
                 {"starts", std::vector<int64_t>{4, 0}},
                 {"ends", std::vector<int64_t>{-10, 6}},
                 {"steps", std::vector<int64_t>{-2, 2}}};
  CheckGradients(check);

  GradCheck attr_value;
  attr_value.op_type = "set_value";
  attr_value.inputs = {{"Input", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 10))}}};
  attr_value.outputs = {{"Out", 1}};
  attr_value.attrs = {{"axes", std::vector<int64_t>{0}},
                      {"starts", std::vector<int64_t>{1}},
                      {"ends", std::vector<int64_t>{2}},
                      {"shape", std::vector<int64_t>{1}},
                      {"fp64_values", std::vector<double>{3.0}}};
  CheckGradients(attr_value);
}

TEST(SetValueOp, BadSlicesAndValuesAreErrors) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({4, 5}, RandomValues(20, -1, 1, 6));
  const auto run = [&](AttributeMap attrs, SlotTensors extra = {}) {
    SlotTensors in = {{"Input", {x}}};
    for (auto& kv : extra) in[kv.first] = kv.second;
    if (!attrs.count("shape")) attrs["shape"] = std::vector<int64_t>{1};
    if (!attrs.count("fp32_values")) attrs["fp32_values"] = std::vector<float>{1};
    RunOp("set_value", in, {{"Out", 1}}, attrs);
  };
  const AttributeMap col = {{"axes", std::vector<int64_t>{1}},
                            {"starts", std::vector<int64_t>{0}},
                            {"ends", std::vector<int64_t>{5}}};
  auto with = [&](const std::string& k, const framework::Attribute& v) {
    AttributeMap a = col;
    a[k] = v;
    return a;
  };
  ExpectError<platform::InvalidArgumentError>([&] { run(with("steps", std::vector<int64_t>{0})); },
                                              {"op `set_value`", "non-zero", "axis 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        AttributeMap a = with("starts", std::vector<int64_t>{4});
        a["ends"] = std::vector<int64_t>{1};
        run(a);
      },
      {"op `set_value` axis 1", "from 4 to 1", "step 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(with("axes", std::vector<int64_t>{2})); },
      {"op `set_value` attribute `axes`", "[0, 2)", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(with("decrease_axes", std::vector<int64_t>{1})); },
      {"op `set_value` attribute `decrease_axes`", "size 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        AttributeMap a = col;
        a["shape"] = std::vector<int64_t>{3};
        run(a);
      },
      {"op `set_value` attribute `fp32_values`", "expected 3 values", "received 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        AttributeMap a = col;
        a["fp32_values"] = std::vector<float>{};
        run(a);
      },
      {"op `set_value`", "no value", "ValueTensor"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(col, {{"ValueTensor", {MakeTensor<float>({3}, {1, 2, 3})}}});
      },
      {"op `set_value`", "shape [3]", "slice's shape [4, 5]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
