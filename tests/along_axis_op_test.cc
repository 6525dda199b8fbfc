// take_along_axis and put_along_axis against references written here by unravelling every
// index position into coordinates: each axis of a 3-D input, negative axes and indices, an
// Index smaller than Input at the other dims, every Reduce with and without Include_self
// (repeated targets included), float, double and int64; gradients (first and second order)
// by finite differences; typed errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

const std::vector<int64_t> kInput = {3, 4, 5};

std::vector<int64_t> Unravel(int64_t p, const std::vector<int64_t>& dims) {
  std::vector<int64_t> c(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    c[d] = p % dims[d];
    p /= dims[d];
  }
  return c;
}

int64_t Ravel(const std::vector<int64_t>& c, const std::vector<int64_t>& dims) {
  int64_t p = 0;
  for (size_t d = 0; d < dims.size(); ++d) p = p * dims[d] + c[d];
  return p;
}

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The Input offset that index position p targets.
int64_t Target(int64_t p, const std::vector<int64_t>& index_dims, const std::vector<double>& ids,
               int axis) {
  std::vector<int64_t> c = Unravel(p, index_dims);
  int64_t i = static_cast<int64_t>(ids[p]);
  if (i < 0) i += kInput[axis];
  c[axis] = i;
  return Ravel(c, kInput);
}

std::vector<double> NaiveTake(const std::vector<double>& x, const std::vector<int64_t>& index_dims,
                              const std::vector<double>& ids, int axis) {
  std::vector<double> out(ids.size());
  for (size_t p = 0; p < ids.size(); ++p) out[p] = x[Target(p, index_dims, ids, axis)];
  return out;
}

std::vector<double> NaivePut(const std::vector<double>& x, const std::vector<int64_t>& index_dims,
                             const std::vector<double>& ids, const std::vector<double>& v,
                             int axis, const std::string& reduce, bool include_self) {
  std::vector<double> out = x;
  std::vector<std::vector<double>> received(x.size());
  for (size_t p = 0; p < ids.size(); ++p) {
    received[Target(p, index_dims, ids, axis)].push_back(v.size() == 1 ? v[0] : v[p]);
  }
  for (size_t t = 0; t < x.size(); ++t) {
    std::vector<double> vals = received[t];
    if (vals.empty()) continue;
    if (reduce == "assign") {
      out[t] = vals.back();
      continue;
    }
    if (include_self) vals.insert(vals.begin(), x[t]);
    double r = vals[0];
    for (size_t k = 1; k < vals.size(); ++k) {
      if (reduce == "add" || reduce == "mean") r += vals[k];
      if (reduce == "mul" || reduce == "multiply") r *= vals[k];
      if (reduce == "amin") r = std::min(r, vals[k]);
      if (reduce == "amax") r = std::max(r, vals[k]);
    }
    out[t] = reduce == "mean" ? r / static_cast<double>(vals.size()) : r;
  }
  return out;
}

// Index dims for `axis`: 2 positions along the axis, Input's dims (minus one at dim 0) else.
std::vector<int64_t> IndexDims(int axis) {
  std::vector<int64_t> d = kInput;
  d[axis] = 2;
  if (axis != 0) d[0] -= 1;
  return d;
}

// Indices in [-n, n) with repeats.
std::vector<double> Ids(int axis, int64_t count, uint64_t seed) {
  std::vector<double> ids = RandomValues(count, 0, 1, seed);
  const int64_t n = kInput[axis];
  for (double& i : ids) i = std::floor(i * 2 * n) - n;
  return ids;
}

TEST(AlongAxisOp, TakeMatchesTheReferenceOnEveryAxis) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(Numel(kInput), -1, 1, 3);
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    const std::vector<int64_t> idims = IndexDims(a);
    const std::vector<double> ids = Ids(a, Numel(idims), 5 + a);
    const std::vector<double> want = NaiveTake(x, idims, ids, a);
    SCOPED_TRACE("axis " + std::to_string(axis));
    for (bool i32 : {false, true}) {
      const DenseTensor index = i32 ? MakeTensor<int32_t>(DDim(idims), ids)
                                    : MakeTensor<int64_t>(DDim(idims), ids);
      const auto f = RunOp("take_along_axis",
                           {{"Input", {MakeTensor<float>(DDim(kInput), x)}}, {"Index", {index}}},
                           {{"Result", 1}}, {{"Axis", axis}});
      EXPECT_EQ(f.outputs.at("Result")[0].dims(), DDim(idims));
      ExpectNear(ToDoubles(f.outputs.at("Result")[0]), want, 1e-6, 1e-6, "float");
      const auto d = RunOp("take_along_axis",
                           {{"Input", {MakeTensor<double>(DDim(kInput), x)}}, {"Index", {index}}},
                           {{"Result", 1}}, {{"Axis", axis}});
      ExpectNear(ToDoubles(d.outputs.at("Result")[0]), want, 0, 0, "double");
    }
  }
}

TEST(AlongAxisOp, PutMatchesTheReferenceForEveryReduce) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(Numel(kInput), -1, 1, 7);
  for (int axis : {0, 2, -2}) {
    const int a = axis < 0 ? axis + 3 : axis;
    const std::vector<int64_t> idims = IndexDims(a);
    const std::vector<double> ids = Ids(a, Numel(idims), 9 + a);
    const std::vector<double> v = RandomValues(Numel(idims), -2, 2, 11);
    for (const char* reduce : {"assign", "add", "mul", "multiply", "mean", "amin", "amax"}) {
      for (bool include_self : {true, false}) {
        for (bool scalar_value : {false, true}) {
          const std::vector<double> values = scalar_value ? std::vector<double>{0.75} : v;
          const std::vector<int64_t> vdims = scalar_value ? std::vector<int64_t>{1} : idims;
          SCOPED_TRACE(std::string(reduce) + " axis " + std::to_string(axis) +
                       (include_self ? " with self" : "") + (scalar_value ? " scalar" : ""));
          const std::vector<double> want =
              NaivePut(x, idims, ids, values, a, reduce, include_self);
          const AttributeMap attrs = {{"Axis", axis},
                                      {"Reduce", std::string(reduce)},
                                      {"Include_self", include_self}};
          const auto d = RunOp("put_along_axis",
                               {{"Input", {MakeTensor<double>(DDim(kInput), x)}},
                                {"Index", {MakeTensor<int64_t>(DDim(idims), ids)}},
                                {"Value", {MakeTensor<double>(DDim(vdims), values)}}},
                               {{"Result", 1}}, attrs);
          ExpectNear(ToDoubles(d.outputs.at("Result")[0]), want, 1e-12, 1e-12, "double");
          const auto f = RunOp("put_along_axis",
                               {{"Input", {MakeTensor<float>(DDim(kInput), x)}},
                                {"Index", {MakeTensor<int32_t>(DDim(idims), ids)}},
                                {"Value", {MakeTensor<float>(DDim(vdims), values)}}},
                               {{"Result", 1}}, attrs);
          ExpectNear(ToDoubles(f.outputs.at("Result")[0]), want, 1e-5, 1e-5, "float");
        }
      }
    }
  }
  // Integers: add on int64.
  const std::vector<double> xi = {1, 2, 3, 4, 5, 6};
  const auto r = RunOp("put_along_axis",
                       {{"Input", {MakeTensor<int64_t>({2, 3}, xi)}},
                        {"Index", {MakeTensor<int64_t>({2, 2}, {0, 0, 2, -1})}},
                        {"Value", {MakeTensor<int64_t>({2, 2}, {10, 20, 30, 40})}}},
                       {{"Result", 1}}, {{"Axis", 1}, {"Reduce", std::string("add")}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Result")[0]), (std::vector<double>{31, 2, 3, 4, 5, 76}));
}

TEST(AlongAxisOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  // Distinct targets, so that assign has a derivative everywhere.
  const std::vector<double> ids = {2, 0, 1, 4, 3, 0};
  {
    SCOPED_TRACE("take_along_axis");
    GradCheck check;
    check.op_type = "take_along_axis";
    check.inputs = {{"Input", {MakeTensor<double>({2, 5}, RandomValues(10, -1, 1, 13))}},
                    {"Index", {MakeTensor<int64_t>({2, 3}, ids)}}};
    check.outputs = {{"Result", 1}};
    check.attrs = {{"Axis", 1}};
    check.wrt = {"Input"};
    check.max_order = 2;
    CheckGradients(check);
  }
  for (const char* reduce : {"assign", "add"}) {
    for (bool include_self : {true, false}) {
      SCOPED_TRACE(std::string("put_along_axis ") + reduce + (include_self ? " with self" : ""));
      GradCheck check;
      check.op_type = "put_along_axis";
      check.inputs = {{"Input", {MakeTensor<double>({2, 5}, RandomValues(10, -1, 1, 15))}},
                      {"Index", {MakeTensor<int64_t>({2, 3}, ids)}},
                      {"Value", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 17))}}};
      check.outputs = {{"Result", 1}};
      check.attrs = {{"Axis", -1}, {"Reduce", std::string(reduce)}, {"Include_self", include_self}};
      check.wrt = {"Input", "Value"};
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(AlongAxisOp, BadInputsNameWhatIsWrong) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("take_along_axis", {{"Input", {x}}, {"Index", {MakeTensor<int64_t>({2}, {0, 1})}}},
              {{"Result", 1}}, {{"Axis", 1}});
      },
      {"op `take_along_axis` input `Index`", "rank of Input [2, 3]", "[2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("take_along_axis",
              {{"Input", {x}}, {"Index", {MakeTensor<int64_t>({1, 2}, {0, 3})}}},
              {{"Result", 1}}, {{"Axis", 1}});
      },
      {"op `take_along_axis` input `Index`", "element 1 is 3", "[-3, 3)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("take_along_axis",
              {{"Input", {x}}, {"Index", {MakeTensor<int64_t>({3, 1}, {0, 1, 0})}}},
              {{"Result", 1}}, {{"Axis", 1}});
      },
      {"op `take_along_axis` input `Index`", "dim 0 is 3", "at most Input's 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("take_along_axis", {{"Input", {x}}, {"Index", {MakeTensor<int64_t>({1, 1}, {0})}}},
              {{"Result", 1}}, {{"Axis", 2}});
      },
      {"op `take_along_axis`", "Axis"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("put_along_axis",
              {{"Input", {x}},
               {"Index", {MakeTensor<int64_t>({1, 2}, {0, 1})}},
               {"Value", {MakeTensor<float>({3}, {1, 2, 3})}}},
              {{"Result", 1}}, {{"Axis", 1}});
      },
      {"op `put_along_axis` input `Value`", "Index's shape [1, 2] or one element", "[3]"});
  GradCheck mul;
  mul.op_type = "put_along_axis";
  mul.inputs = {{"Input", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}},
                {"Index", {MakeTensor<int64_t>({1, 2}, {0, 1})}},
                {"Value", {MakeTensor<double>({1, 2}, {1, 2})}}};
  mul.outputs = {{"Result", 1}};
  mul.attrs = {{"Axis", 1}, {"Reduce", std::string("mul")}};
  ExpectError<platform::UnimplementedError>(
      [&] { NthGradient(mul.op_type, mul.inputs, mul.outputs, mul.attrs, 1); },
      {"op `put_along_axis`", "Reduce \"mul\""});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
