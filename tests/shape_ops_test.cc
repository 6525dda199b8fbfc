// Forward of the shape ops the gradients are built from: reduce_as, expand_as_v2, size,
// unsqueeze2, squeeze2. Values against naive references, dtypes, build-time inference and
// errors naming the op, slot or attribute.
#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// For each element of `big` (row-major), the flat index of the element of `aligned`
// (same rank, dims equal or 1) that broadcasts to it.
std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& big,
                                    const std::vector<int64_t>& aligned) {
  int64_t n = 1;
  for (int64_t d : big) n *= d;
  std::vector<int64_t> index(static_cast<size_t>(n));
  const int rank = static_cast<int>(big.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, src = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % big[d];
      rest /= big[d];
      if (aligned[d] != 1) src += c * stride;
      stride *= aligned[d];
    }
    index[i] = src;
  }
  return index;
}

std::vector<double> ReduceAsReference(const std::vector<double>& x, const std::vector<int64_t>& big,
                                      const std::vector<int64_t>& aligned) {
  int64_t m = 1;
  for (int64_t d : aligned) m *= d;
  std::vector<double> out(static_cast<size_t>(m), 0.0);
  const auto index = BroadcastIndex(big, aligned);
  for (size_t i = 0; i < index.size(); ++i) out[index[i]] += x[i];
  return out;
}

std::vector<double> ExpandReference(const std::vector<double>& x, const std::vector<int64_t>& big,
                                    const std::vector<int64_t>& aligned) {
  std::vector<double> out;
  for (int64_t k : BroadcastIndex(big, aligned)) out.push_back(x[k]);
  return out;
}

// ---------------------------------------------------------------- reduce_as

struct ReduceAsCase {
  std::vector<int64_t> x, target;
  int axis;
  std::vector<int64_t> aligned;  // target inside x's rank
};

TEST(ReduceAsOp, SumsOverBroadcastDims) {
  const std::vector<ReduceAsCase> cases = {
      {{2, 3, 4}, {3, 4}, -1, {1, 3, 4}},
      {{2, 3, 4}, {4}, -1, {1, 1, 4}},
      {{2, 3, 4}, {3}, 1, {1, 3, 1}},
      {{2, 3, 4}, {3, 1}, 1, {1, 3, 1}},  // Trailing 1 dropped: [3] at dim 1.
      {{2, 3, 4}, {2, 1, 4}, -1, {2, 1, 4}},
      {{2, 3, 4}, {1, 1, 1}, -1, {1, 1, 1}},
      {{2, 3}, {}, -1, {1, 1}},
      {{2, 3}, {2, 3}, -1, {2, 3}},  // Equal shapes: a copy.
      {{2, 1, 3}, {1, 3}, -1, {1, 1, 3}},
  };
  for (const auto& c : cases) {
    const DDim xd(c.x);
    const auto values = RandomValues(xd.numel(), -2, 2, 3);
    const auto expected = ReduceAsReference(values, c.x, c.aligned);
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
      const DenseTensor x =
          t == DataType::FLOAT32 ? MakeTensor<float>(xd, values) : MakeTensor<double>(xd, values);
      const DDim td(c.target);
      auto r = RunOp(
          "reduce_as",
          {{"X", {x}}, {"Target", {MakeTensor<float>(td, std::vector<double>(td.numel(), 0))}}},
          {{"Out", 1}}, {{"axis", c.axis}});
      const DenseTensor& out = r.outputs["Out"][0];
      const std::string what = "reduce_as " + xd.ToString() + " -> " + td.ToString();
      EXPECT_EQ(out.dims(), td) << what;
      EXPECT_EQ(out.dtype(), t) << what;
      ExpectNear(ToDoubles(out), expected, RelTol(t), AbsTol(t) * 10, what);
    }
  }
}

TEST(ReduceAsOp, EmptyInputGivesZeros) {
  auto r = RunOp(
      "reduce_as",
      {{"X", {MakeTensor<double>({0, 3}, {})}}, {"Target", {MakeTensor<double>({3}, {0, 0, 0})}}},
      {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({3}));
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {0, 0, 0}, 0, 0, "empty");
}

TEST(ReduceAsOp, Deterministic) {
  const auto values = RandomValues(4 * 300 * 7, -1, 1, 5);
  auto run = [&] {
    return ToDoubles(RunOp("reduce_as",
                           {{"X", {MakeTensor<float>({4, 300, 7}, values)}},
                            {"Target", {MakeTensor<float>({300, 1}, std::vector<double>(300, 0))}}},
                           {{"Out", 1}}, {{"axis", 1}})
                         .outputs["Out"][0]);
  };
  EXPECT_EQ(run(), run());
}

TEST(ReduceAsOp, ErrorsNameOpSlotsAndAxis) {
  auto run = [](const DDim& x, const DDim& t, int axis) {
    RunOp("reduce_as",
          {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}},
           {"Target", {MakeTensor<float>(t, std::vector<double>(t.numel(), 1))}}},
          {{"Out", 1}}, {{"axis", axis}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {4}, -1);
      },
      {"op `reduce_as`", "input `Target` shape [4]", "input `X` shape [2, 3]", "aligned dim 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {2, 3, 1, 5}, -1);
      },
      {"op `reduce_as`", "input `Target` shape [2, 3, 1, 5]", "higher rank"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3, 4}, {3}, 3);
      },
      {"op `reduce_as` attribute `axis`", "received 3"});
  // Target broadcasting into X is one-sided: X may not be the broadcast side.
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 3}, {2, 3}, -1);
      },
      {"op `reduce_as`", "does not broadcast"});
}

// ---------------------------------------------------------------- expand_as_v2

TEST(ExpandAsV2Op, BroadcastsToY) {
  const std::vector<ReduceAsCase> cases = {
      // (x = target big shape, target = the expanded input, aligned)
      {{2, 3}, {3}, -1, {1, 3}},
      {{2, 3, 4}, {3, 1}, 1, {1, 3, 1}},
      {{2, 3, 4}, {3}, 1, {1, 3, 1}},
      {{2, 3, 4}, {2, 1, 4}, -1, {2, 1, 4}},
      {{2, 2}, {}, -1, {1, 1}},
      {{2, 3}, {2, 3}, -1, {2, 3}},
      {{3, 1, 2}, {1, 1, 2}, -1, {1, 1, 2}},
  };
  for (const auto& c : cases) {
    const DDim yd(c.x), xd(c.target);
    const auto values = RandomValues(xd.numel(), -5, 5, 9);
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
      const DenseTensor x =
          t == DataType::FLOAT32 ? MakeTensor<float>(xd, values) : MakeTensor<double>(xd, values);
      auto r =
          RunOp("expand_as_v2",
                {{"X", {x}}, {"Y", {MakeTensor<float>(yd, std::vector<double>(yd.numel(), 0))}}},
                {{"Out", 1}}, {{"axis", c.axis}});
      const DenseTensor& out = r.outputs["Out"][0];
      const std::string what = "expand_as_v2 " + xd.ToString() + " -> " + yd.ToString();
      EXPECT_EQ(out.dims(), yd) << what;
      EXPECT_EQ(out.dtype(), t) << what;
      // A copy: exact up to the rounding of the input to its dtype.
      ExpectNear(ToDoubles(out), ExpandReference(ToDoubles(x), c.x, c.aligned), 0, 0, what);
    }
  }
}

TEST(ExpandAsV2Op, IntegerAndBoolKernels) {
  const std::vector<double> values = {1, 0, 7};
  const std::vector<double> expected = {1, 0, 7, 1, 0, 7};
  const DenseTensor y = MakeTensor<float>({2, 3}, std::vector<double>(6, 0));
  for (const DenseTensor& x :
       {MakeTensor<int32_t>({3}, values), MakeTensor<int64_t>({3}, values)}) {
    auto r = RunOp("expand_as_v2", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}});
    EXPECT_EQ(r.outputs["Out"][0].dtype(), x.dtype());
    ExpectNear(ToDoubles(r.outputs["Out"][0]), expected, 0, 0, "int expand");
  }
  auto r =
      RunOp("expand_as_v2", {{"X", {MakeTensor<bool>({3}, values)}}, {"Y", {y}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].dtype(), DataType::BOOL);
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {1, 0, 1, 1, 0, 1}, 0, 0, "bool expand");
}

TEST(ExpandAsV2Op, TargetShapeAttributeWithoutY) {
  auto r = RunOp("expand_as_v2", {{"X", {MakeTensor<double>({2, 1}, {3, 4})}}}, {{"Out", 1}},
                 {{"target_shape", std::vector<int>{2, 2}}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({2, 2}));
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {3, 3, 4, 4}, 0, 0, "target_shape");
}

TEST(ExpandAsV2Op, ErrorsNameOpSlotsAndAttributes) {
  auto run = [](const DDim& x, const DDim& y, int axis) {
    RunOp("expand_as_v2",
          {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}},
           {"Y", {MakeTensor<float>(y, std::vector<double>(y.numel(), 1))}}},
          {{"Out", 1}}, {{"axis", axis}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({4}, {2, 3}, -1);
      },
      {"op `expand_as_v2`", "input `X` shape [4]", "input `Y` shape [2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {3}, -1);
      },
      {"op `expand_as_v2`", "higher rank"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({3}, {2, 3}, 5);
      },
      {"op `expand_as_v2` attribute `axis`"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("expand_as_v2", {{"X", {MakeTensor<float>({1}, {1})}}}, {{"Out", 1}},
              {{"target_shape", std::vector<int>{-1, 2}}});
      },
      {"op `expand_as_v2` attribute `target_shape`", "[-1, 2]"});
}

// ---------------------------------------------------------------- build time

framework::VarDesc* InferOne(framework::ProgramDesc* p, const std::string& type,
                             const std::map<std::string, std::vector<int64_t>>& inputs,
                             const AttributeMap& attrs, DataType dtype = DataType::FLOAT64) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = p->Block(0);
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  for (const auto& kv : inputs) {
    framework::VarDesc* v = b.Var("in_" + kv.first);
    v->SetDataType(dtype);
    v->SetShape(kv.second);
    op->SetInput(kv.first, {"in_" + kv.first});
  }
  op->SetOutput("Out", {"out"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  return b.FindVar("out");
}

TEST(ShapeOps, BuildTimeInference) {
  {
    framework::ProgramDesc p;
    auto* out = InferOne(&p, "reduce_as", {{"X", {-1, 3, 4}}, {"Target", {3, 1}}}, {{"axis", 1}});
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(out->GetDataType(), DataType::FLOAT64);
  }
  {
    framework::ProgramDesc p;
    auto* out = InferOne(&p, "expand_as_v2", {{"X", {3}}, {"Y", {-1, 3}}}, {});
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{-1, 3}));
  }
  {
    framework::ProgramDesc p;
    auto* out = InferOne(&p, "size", {{"Input", {-1, 3}}}, {}, DataType::FLOAT32);
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{}));
    EXPECT_EQ(out->GetDataType(), DataType::INT64);
  }
  {
    framework::ProgramDesc p;
    auto* out = InferOne(&p, "unsqueeze2", {{"X", {-1, 4}}}, {{"axes", std::vector<int>{0, -1}}});
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{1, -1, 4, 1}));
  }
  {
    framework::ProgramDesc p;
    auto* out = InferOne(&p, "squeeze2", {{"X", {1, -1, 3}}}, {{"axes", std::vector<int>{1}}});
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{1, 3}));
  }
}

// ---------------------------------------------------------------- size

TEST(SizeOp, CountsElementsOfAnyDtype) {
  const std::vector<std::pair<DDim, int64_t>> shapes = {
      {DDim({2, 3, 2}), 12}, {DDim(), 1}, {DDim({0, 4}), 0}, {DDim({5}), 5}};
  for (const auto& s : shapes) {
    const std::vector<double> v(static_cast<size_t>(s.second), 1.0);
    for (const DenseTensor& x : {MakeTensor<float>(s.first, v), MakeTensor<double>(s.first, v),
                                 MakeTensor<int32_t>(s.first, v), MakeTensor<int64_t>(s.first, v),
                                 MakeTensor<bool>(s.first, v)}) {
      auto r = RunOp("size", {{"Input", {x}}}, {{"Out", 1}});
      const DenseTensor& out = r.outputs["Out"][0];
      EXPECT_EQ(out.dims(), DDim());
      ASSERT_EQ(out.dtype(), DataType::INT64);
      EXPECT_EQ(out.data<int64_t>()[0], s.second) << s.first.ToString();
    }
  }
}

// ---------------------------------------------------------------- unsqueeze2 / squeeze2

struct SqueezeCase {
  std::vector<int64_t> x;
  std::vector<int> axes;
  std::vector<int64_t> out;
};

void CheckSqueezeFamily(const std::string& type, const SqueezeCase& c) {
  const DDim xd(c.x);
  const auto values = RandomValues(xd.numel(), -1, 1, 4);
  std::vector<DenseTensor> inputs = {MakeTensor<float>(xd, values), MakeTensor<double>(xd, values),
                                     MakeTensor<int32_t>(xd, values),
                                     MakeTensor<int64_t>(xd, values)};
  for (const auto& x : inputs) {
    auto r = RunOp(type, {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}}, {{"axes", c.axes}});
    const std::string what = type + " " + xd.ToString();
    const DenseTensor& out = r.outputs["Out"][0];
    EXPECT_EQ(out.dims(), DDim(c.out)) << what;
    EXPECT_EQ(out.dtype(), x.dtype()) << what;
    ExpectNear(ToDoubles(out), ToDoubles(x), 0, 0, what);
    std::vector<int64_t> xshape = c.x;
    xshape.insert(xshape.begin(), 0);
    EXPECT_EQ(r.outputs["XShape"][0].dims(), DDim(xshape)) << what;
  }
}

TEST(Unsqueeze2Op, InsertsDimsInOrder) {
  const std::vector<SqueezeCase> cases = {
      {{3, 4}, {0, 2}, {1, 3, 1, 4}}, {{3, 4}, {-1}, {3, 4, 1}}, {{3}, {1, 0}, {1, 3, 1}},
      {{3}, {0, -1}, {1, 3, 1}},      {{2, 3}, {1}, {2, 1, 3}},  {{}, {0}, {1}},
      {{2, 3}, {}, {2, 3}},
  };
  for (const auto& c : cases) CheckSqueezeFamily("unsqueeze2", c);
}

TEST(Squeeze2Op, RemovesSizeOneDims) {
  const std::vector<SqueezeCase> cases = {
      {{1, 3, 1, 4}, {0, 2}, {3, 4}},
      {{1, 3, 1, 4}, {}, {3, 4}},
      {{1, 3, 1, 4}, {1}, {1, 3, 1, 4}},  // Not 1: kept, as in PaddlePaddle.
      {{1, 3, 1, 4}, {-2}, {1, 3, 4}},
      {{1}, {0}, {}},
      {{}, {0}, {}},
  };
  for (const auto& c : cases) CheckSqueezeFamily("squeeze2", c);
}

TEST(SqueezeFamily, ErrorsNameOpAndAttribute) {
  auto run = [](const std::string& type, const DDim& x, const std::vector<int>& axes) {
    RunOp(type, {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}}}, {{"Out", 1}},
          {{"axes", axes}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("unsqueeze2", {3, 4}, {5});
      },
      {"op `unsqueeze2` attribute `axes`", "[-3, 2]", "received 5"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("squeeze2", {1, 3}, {-3});
      },
      {"op `squeeze2` attribute `axes`", "[-2, 1]", "received -3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("unsqueeze2", {1, 1, 1, 1, 1, 1, 1, 1}, {0, 0});
      },
      {"op `unsqueeze2` attribute `axes`", "maximum rank"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
