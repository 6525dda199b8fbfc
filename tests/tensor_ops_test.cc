// Tensor ops: fill_constant, assign, cast, reshape2, transpose2, print. Forward values against
// references written here, dtypes, zero-size tensors, build-time inference and errors; what
// print writes, how often and in which phase.
#include <cmath>
#include <limits>

#include "framework/backward.h"
#include "framework/executor.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

// A one-op block for build-time inference; `inputs` maps slot -> (var, dtype, shape).
struct BuildTimeVar {
  std::string slot, name;
  DataType dtype;
  std::vector<int64_t> shape;
};

framework::VarDesc* InferAtBuildTime(framework::ProgramDesc* p, const std::string& type,
                                     const std::vector<BuildTimeVar>& inputs,
                                     const std::vector<std::string>& output_slots,
                                     const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = p->Block(0);
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  std::map<std::string, std::vector<std::string>> slots;
  for (const auto& in : inputs) {
    framework::VarDesc* v = b.Var(in.name);
    v->SetDataType(in.dtype);
    v->SetShape(in.shape);
    slots[in.slot].push_back(in.name);
  }
  for (const auto& kv : slots) op->SetInput(kv.first, kv.second);
  for (const auto& s : output_slots) op->SetOutput(s, {"out_" + s});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  return b.FindVar("out_" + output_slots[0]);
}

// ---------------------------------------------------------------- fill_constant

TEST(FillConstantOp, FloatValueAndShape) {
  auto r = RunOp("fill_constant", {}, {{"Out", 1}},
                 {{"shape", std::vector<int64_t>{2, 3}}, {"value", 1.5f}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim({2, 3}));
  EXPECT_EQ(out.dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(out), std::vector<double>(6, 1.5), 0, 0, "fill float");
}

TEST(FillConstantOp, EveryDtype) {
  const std::vector<std::pair<DataType, double>> cases = {{DataType::FLOAT32, -2.25},
                                                          {DataType::FLOAT64, 0.1},
                                                          {DataType::INT32, -7},
                                                          {DataType::INT64, 123456},
                                                          {DataType::BOOL, 1}};
  for (const auto& c : cases) {
    auto r = RunOp("fill_constant", {}, {{"Out", 1}},
                   {{"shape", std::vector<int64_t>{4}},
                    {"dtype", static_cast<int>(c.first)},
                    {"value", static_cast<float>(c.second)}});
    const DenseTensor& out = r.outputs["Out"][0];
    EXPECT_EQ(out.dtype(), c.first);
    EXPECT_EQ(r.kernel->key.dtype, c.first);
    const double expected = c.first == DataType::FLOAT32 || c.first == DataType::FLOAT64
                                ? static_cast<double>(static_cast<float>(c.second))
                                : c.second;
    ExpectNear(ToDoubles(out), std::vector<double>(4, expected), 0, 0,
               platform::DataTypeName(c.first));
  }
}

TEST(FillConstantOp, StrValueOverridesValueAndKeepsInt64Exact) {
  const int64_t big = (int64_t{1} << 53) + 1;  // Not representable as a double or float.
  auto r = RunOp("fill_constant", {}, {{"Out", 1}},
                 {{"shape", std::vector<int64_t>{2}},
                  {"dtype", static_cast<int>(DataType::INT64)},
                  {"value", 3.0f},
                  {"str_value", std::to_string(big)}});
  const int64_t* p = r.outputs["Out"][0].data<int64_t>();
  EXPECT_EQ(p[0], big);
  EXPECT_EQ(p[1], big);
}

TEST(FillConstantOp, StrValueInfAndNan) {
  for (const std::string s : {"inf", "-inf", "nan", "1e-3"}) {
    auto r = RunOp("fill_constant", {}, {{"Out", 1}},
                   {{"shape", std::vector<int64_t>{3}}, {"str_value", s}});
    const float v = r.outputs["Out"][0].data<float>()[2];
    if (s == "nan") {
      EXPECT_TRUE(std::isnan(v));
    } else {
      const float expected = s == "inf"    ? std::numeric_limits<float>::infinity()
                             : s == "-inf" ? -std::numeric_limits<float>::infinity()
                                           : 1e-3f;
      EXPECT_EQ(v, expected) << s;
    }
  }
}

TEST(FillConstantOp, ValueTensorOverridesAttributes) {
  auto r =
      RunOp("fill_constant", {{"ValueTensor", {MakeTensor<double>({1}, {3.75})}}}, {{"Out", 1}},
            {{"shape", std::vector<int64_t>{2, 2}},
             {"dtype", static_cast<int>(DataType::INT32)},
             {"value", 9.0f},
             {"str_value", std::string("8")}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dtype(), DataType::INT32);
  ExpectNear(ToDoubles(out), {3, 3, 3, 3}, 0, 0, "ValueTensor truncated to int32");

  auto r2 =
      RunOp("fill_constant", {{"ValueTensor", {MakeTensor<int64_t>({}, {-5})}}}, {{"Out", 1}},
            {{"shape", std::vector<int64_t>{3}}, {"dtype", static_cast<int>(DataType::FLOAT64)}});
  ExpectNear(ToDoubles(r2.outputs["Out"][0]), {-5, -5, -5}, 0, 0, "int64 ValueTensor");
}

TEST(FillConstantOp, ShapeFromTensors) {
  // ShapeTensor wins over ShapeTensorList, which wins over the attribute.
  auto r =
      RunOp("fill_constant",
            {{"ShapeTensor", {MakeTensor<int64_t>({2}, {2, 4})}},
             {"ShapeTensorList", {MakeTensor<int32_t>({1}, {7}), MakeTensor<int32_t>({1}, {1})}}},
            {{"Out", 1}}, {{"shape", std::vector<int64_t>{5}}, {"value", 2.0f}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({2, 4}));
  ExpectNear(ToDoubles(r.outputs["Out"][0]), std::vector<double>(8, 2), 0, 0, "ShapeTensor");

  auto r2 =
      RunOp("fill_constant",
            {{"ShapeTensorList", {MakeTensor<int32_t>({1}, {3}), MakeTensor<int64_t>({1}, {2})}}},
            {{"Out", 1}}, {{"shape", std::vector<int64_t>{5}}});
  EXPECT_EQ(r2.outputs["Out"][0].dims(), DDim({3, 2}));
}

TEST(FillConstantOp, ZeroSizeAndScalar) {
  auto r = RunOp("fill_constant", {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>{0, 3}}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({0, 3}));
  EXPECT_EQ(r.outputs["Out"][0].numel(), 0);
  auto s = RunOp("fill_constant", {}, {{"Out", 1}}, {{"value", 4.0f}});
  EXPECT_EQ(s.outputs["Out"][0].dims(), DDim({}));
  ExpectNear(ToDoubles(s.outputs["Out"][0]), {4}, 0, 0, "scalar");
}

TEST(FillConstantOp, BuildTimeTypeAndShape) {
  framework::ProgramDesc p;
  auto* out = InferAtBuildTime(
      &p, "fill_constant", {}, {"Out"},
      {{"shape", std::vector<int64_t>{2, 5}}, {"dtype", static_cast<int>(DataType::INT64)}});
  EXPECT_EQ(out->GetDataType(), DataType::INT64);
  EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{2, 5}));

  // Attributes left out take their defaults (float32); a ShapeTensor of 3 values gives rank 3.
  framework::ProgramDesc p2;
  auto* out2 = InferAtBuildTime(&p2, "fill_constant", {{"ShapeTensor", "s", DataType::INT32, {3}}},
                                {"Out"}, {});
  EXPECT_EQ(out2->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(out2->GetShape(), (std::vector<int64_t>{-1, -1, -1}));
}

TEST(FillConstantOp, VersionIsTwo) {
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("fill_constant").version(), 2);
}

TEST(FillConstantOp, Errors) {
  auto fill = [](AttributeMap attrs) {
    if (!attrs.count("shape")) attrs["shape"] = std::vector<int64_t>{2};
    return RunOp("fill_constant", {}, {{"Out", 1}}, attrs);
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        fill({{"dtype", 7}});
      },
      {"op `fill_constant`", "attribute `dtype`", "7"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        fill({{"str_value", std::string("abc")}});
      },
      {"op `fill_constant`", "attribute `str_value`", "abc"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        fill({{"str_value", std::string("inf")}, {"dtype", 2}});
      },
      {"op `fill_constant`", "attribute `str_value`", "int32"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        fill({{"value", 3e9f}, {"dtype", 2}});
      },
      {"op `fill_constant`", "attribute `value`", "int32"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        fill({{"shape", std::vector<int64_t>{2, -1}}});
      },
      {"op `fill_constant`", "attribute `shape`", "[2, -1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fill_constant", {{"ValueTensor", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}},
              {{"shape", std::vector<int64_t>{2}}});
      },
      {"op `fill_constant`", "input `ValueTensor`", "[2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fill_constant", {{"ShapeTensor", {MakeTensor<float>({1}, {2})}}}, {{"Out", 1}});
      },
      {"op `fill_constant`", "input `ShapeTensor`", "float32"});
}

// ---------------------------------------------------------------- assign

TEST(AssignOp, DeepCopiesEveryDtype) {
  const std::vector<double> v = {1, 0, -3, 4, 2, 7};
  const SlotTensors inputs[] = {
      {{"X", {MakeTensor<float>({2, 3}, v)}}},
      {{"X", {MakeTensor<double>({3, 2}, v)}}},
      {{"X", {MakeTensor<int32_t>({6}, v)}}},
      {{"X", {MakeTensor<int64_t>({1, 6}, v)}}},
      {{"X", {MakeTensor<bool>({6}, {1, 0, 1, 1, 0, 1})}}},
      {{"X", {MakeTensor<platform::float16>({6}, v)}}},
  };
  for (const auto& in : inputs) {
    const DenseTensor& x = in.at("X")[0];
    auto r = RunOp("assign", in, {{"Out", 1}});
    const DenseTensor& out = r.outputs["Out"][0];
    EXPECT_EQ(out.dims(), x.dims());
    EXPECT_EQ(out.dtype(), x.dtype());
    EXPECT_EQ(r.kernel->key.dtype, x.dtype());
    EXPECT_NE(out.raw_data(), x.raw_data()) << "assign must copy";
    ExpectNear(ToDoubles(out), ToDoubles(x), 0, 0, platform::DataTypeName(x.dtype()));
  }
}

TEST(AssignOp, KeepsLoDAndZeroSize) {
  DenseTensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  x.set_lod(LoD{{0, 1, 3}});
  auto r = RunOp("assign", {{"X", {x}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].lod(), x.lod());
  auto z = RunOp("assign", {{"X", {MakeTensor<double>({0, 5}, {})}}}, {{"Out", 1}});
  EXPECT_EQ(z.outputs["Out"][0].dims(), DDim({0, 5}));
}

// ---------------------------------------------------------------- cast

template <typename From>
void CheckCast(const std::vector<double>& in, DataType to, const std::vector<double>& expected) {
  const DataType from = platform::ToDataType<From>();
  auto r = RunOp("cast", {{"X", {MakeTensor<From>({static_cast<int64_t>(in.size())}, in)}}},
                 {{"Out", 1}},
                 {{"in_dtype", static_cast<int>(from)}, {"out_dtype", static_cast<int>(to)}});
  const DenseTensor& out = r.outputs["Out"][0];
  const std::string what = platform::DataTypeName(from) + " -> " + platform::DataTypeName(to);
  EXPECT_EQ(out.dtype(), to) << what;
  // Chosen by the input's dtype, no cast of the input first.
  EXPECT_EQ(r.kernel->key.dtype, from) << what;
  ExpectNear(ToDoubles(out), expected, 0, 0, what);
}

TEST(CastOp, Conversions) {
  CheckCast<float>({1.7, -0.2, 0, -2.9}, DataType::INT64, {1, 0, 0, -2});
  CheckCast<float>({1.5, -0.25}, DataType::FLOAT64, {1.5, -0.25});
  CheckCast<double>({0.5, 0, -3}, DataType::BOOL, {1, 0, 1});
  CheckCast<double>({0.1}, DataType::FLOAT32, {static_cast<double>(0.1f)});
  CheckCast<int32_t>({3, -4, 2048}, DataType::FLOAT16, {3, -4, 2048});
  CheckCast<int64_t>({5, -6}, DataType::INT32, {5, -6});
  CheckCast<bool>({1, 0}, DataType::FLOAT32, {1, 0});
  CheckCast<uint8_t>({200, 7}, DataType::INT32, {200, 7});
  CheckCast<int8_t>({-100, 7}, DataType::FLOAT64, {-100, 7});
  CheckCast<platform::float16>({0.5, -1.25}, DataType::FLOAT64, {0.5, -1.25});
  CheckCast<float>({2.0, 200.0}, DataType::UINT8, {2, 200});
  CheckCast<float>({65504.0}, DataType::FLOAT16, {65504.0});
}

TEST(CastOp, ZeroSizeAndShape) {
  auto r = RunOp("cast", {{"X", {MakeTensor<float>({2, 0, 3}, {})}}}, {{"Out", 1}},
                 {{"in_dtype", 5}, {"out_dtype", 3}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({2, 0, 3}));
  EXPECT_EQ(r.outputs["Out"][0].dtype(), DataType::INT64);
}

TEST(CastOp, BuildTimeOutDtype) {
  framework::ProgramDesc p;
  auto* out = InferAtBuildTime(&p, "cast", {{"X", "x", DataType::FLOAT32, {-1, 4}}}, {"Out"},
                               {{"in_dtype", 5}, {"out_dtype", 0}});
  EXPECT_EQ(out->GetDataType(), DataType::BOOL);
  EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{-1, 4}));
}

TEST(CastOp, Errors) {
  const SlotTensors in = {{"X", {MakeTensor<float>({2}, {1, 2})}}};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cast", in, {{"Out", 1}}, {{"in_dtype", 5}, {"out_dtype", 7}});
      },
      {"op `cast`", "attribute `out_dtype`", "7"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cast", in, {{"Out", 1}}, {{"in_dtype", 5}});
      },
      {"op `cast`", "attribute `out_dtype`", "required"});
}

// ---------------------------------------------------------------- reshape2

TEST(Reshape2Op, AttributeShapeWithZeroAndMinusOne) {
  const auto v = RandomValues(24, -1, 1);
  auto r = RunOp("reshape2", {{"X", {MakeTensor<float>({2, 3, 4}, v)}}},
                 {{"Out", 1}, {"XShape", 1}}, {{"shape", std::vector<int>{0, -1, 2}}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim({2, 6, 2}));
  ExpectNear(ToDoubles(out), ToDoubles(MakeTensor<float>({24}, v)), 0, 0, "reshape values");
  const DenseTensor& xshape = r.outputs["XShape"][0];
  EXPECT_EQ(xshape.dims(), DDim({0, 2, 3, 4}));
  EXPECT_EQ(xshape.numel(), 0);
}

TEST(Reshape2Op, EveryDtypeCopiesData) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};
  const SlotTensors inputs[] = {
      {{"X", {MakeTensor<float>({6}, v)}}},
      {{"X", {MakeTensor<double>({6}, v)}}},
      {{"X", {MakeTensor<int32_t>({6}, v)}}},
      {{"X", {MakeTensor<int64_t>({6}, v)}}},
  };
  for (const auto& in : inputs) {
    const DenseTensor& x = in.at("X")[0];
    auto r =
        RunOp("reshape2", in, {{"Out", 1}, {"XShape", 1}}, {{"shape", std::vector<int>{3, 2}}});
    EXPECT_EQ(r.kernel->key.dtype, x.dtype());
    EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({3, 2}));
    EXPECT_NE(r.outputs["Out"][0].raw_data(), x.raw_data());
    ExpectNear(ToDoubles(r.outputs["Out"][0]), v, 0, 0, platform::DataTypeName(x.dtype()));
  }
}

TEST(Reshape2Op, ShapeInputsOverrideAttribute) {
  const auto v = RandomValues(12, -1, 1);
  // Shape (int32) overrides the attribute; the kernel still follows X's dtype (int64 here).
  auto r = RunOp(
      "reshape2",
      {{"X", {MakeTensor<int64_t>({3, 4}, v)}}, {"Shape", {MakeTensor<int32_t>({3}, {2, -1, 3})}}},
      {{"Out", 1}, {"XShape", 1}}, {{"shape", std::vector<int>{12}}});
  EXPECT_EQ(r.kernel->key.dtype, DataType::INT64);
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({2, 2, 3}));
  // ShapeTensor overrides Shape.
  auto r2 = RunOp("reshape2",
                  {{"X", {MakeTensor<double>({3, 4}, v)}},
                   {"Shape", {MakeTensor<int32_t>({1}, {12})}},
                   {"ShapeTensor", {MakeTensor<int64_t>({1}, {3}), MakeTensor<int32_t>({1}, {0})}}},
                  {{"Out", 1}, {"XShape", 1}});
  EXPECT_EQ(r2.outputs["Out"][0].dims(), DDim({3, 4}));  // 0 copies dim 1 of X.
}

TEST(Reshape2Op, ZeroSizeAndScalar) {
  auto r = RunOp("reshape2", {{"X", {MakeTensor<float>({0, 4}, {})}}}, {{"Out", 1}, {"XShape", 1}},
                 {{"shape", std::vector<int>{-1, 2}}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({0, 2}));
  auto s = RunOp("reshape2", {{"X", {MakeTensor<float>({1, 1}, {5})}}}, {{"Out", 1}, {"XShape", 1}},
                 {{"shape", std::vector<int>{}}});
  EXPECT_EQ(s.outputs["Out"][0].dims(), DDim({}));
  ExpectNear(ToDoubles(s.outputs["Out"][0]), {5}, 0, 0, "to scalar");
}

TEST(Reshape2Op, BuildTimeInference) {
  framework::ProgramDesc p;
  auto* out = InferAtBuildTime(&p, "reshape2", {{"X", "x", DataType::INT64, {-1, 6}}},
                               {"Out", "XShape"}, {{"shape", std::vector<int>{0, 2, 3}}});
  EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{-1, 2, 3}));
  EXPECT_EQ(out->GetDataType(), DataType::INT64);
  EXPECT_EQ(p.Block(0).FindVar("out_XShape")->GetShape(), (std::vector<int64_t>{0, -1, 6}));

  // An int32 Shape input neither changes Out's dtype nor hides its rank.
  framework::ProgramDesc p2;
  auto* out2 = InferAtBuildTime(
      &p2, "reshape2",
      {{"X", "x", DataType::FLOAT64, {4, 6}}, {"Shape", "s", DataType::INT32, {2}}}, {"Out"}, {});
  EXPECT_EQ(out2->GetDataType(), DataType::FLOAT64);
  EXPECT_EQ(out2->GetShape(), (std::vector<int64_t>{-1, -1}));
}

TEST(Reshape2Op, Errors) {
  const SlotTensors in = {{"X", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}}};
  auto run = [&](std::vector<int> shape) {
    RunOp("reshape2", in, {{"Out", 1}, {"XShape", 1}}, {{"shape", shape}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({4, 2});
      },
      {"op `reshape2`", "attribute `shape`", "expected 6 elements", "received [4, 2] with 8"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({-1, -1});
      },
      {"op `reshape2`", "attribute `shape`", "-1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({-1, 4});
      },
      {"op `reshape2`", "attribute `shape`", "6 elements"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 2, 0});
      },
      {"op `reshape2`", "attribute `shape`", "index 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({-2, 3});
      },
      {"op `reshape2`", "attribute `shape`", "[-2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("reshape2", {{"X", in.at("X")}, {"Shape", {MakeTensor<int32_t>({2}, {5, 5})}}},
              {{"Out", 1}, {"XShape", 1}});
      },
      {"op `reshape2`", "input `Shape`", "expected 6 elements"});
}

// ---------------------------------------------------------------- transpose2

// Reference: Out[i] = X[j] with j[axis[k]] = i[k].
std::vector<double> NaiveTranspose(const std::vector<double>& x, const std::vector<int64_t>& dims,
                                   const std::vector<int>& axis) {
  const size_t r = dims.size();
  std::vector<int64_t> out_dims(r);
  for (size_t k = 0; k < r; ++k) out_dims[k] = dims[axis[k]];
  std::vector<double> out(x.size());
  std::vector<int64_t> i(r, 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t rem = static_cast<int64_t>(flat);
    for (size_t k = r; k-- > 0;) {
      i[k] = rem % out_dims[k];
      rem /= out_dims[k];
    }
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d) {
      int64_t jd = 0;
      for (size_t k = 0; k < r; ++k) {
        if (static_cast<size_t>(axis[k]) == d) jd = i[k];
      }
      src = src * dims[d] + jd;
    }
    out[flat] = x[src];
  }
  return out;
}

template <typename T>
void CheckTranspose(const std::vector<int64_t>& dims, const std::vector<int>& axis) {
  const DDim d(dims);
  const auto x = RandomValues(d.numel(), -100, 100);
  std::vector<double> xv;
  for (double v : x) xv.push_back(static_cast<double>(static_cast<T>(v)));
  auto r = RunOp("transpose2", {{"X", {MakeTensor<T>(d, xv)}}}, {{"Out", 1}, {"XShape", 1}},
                 {{"axis", axis}});
  std::vector<int> resolved = axis;
  for (int& a : resolved) a = a < 0 ? a + static_cast<int>(dims.size()) : a;
  std::vector<int64_t> out_dims;
  for (int a : resolved) out_dims.push_back(dims[a]);
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim(out_dims));
  EXPECT_EQ(r.kernel->key.dtype, platform::ToDataType<T>());
  ExpectNear(ToDoubles(r.outputs["Out"][0]), NaiveTranspose(xv, dims, resolved), 0, 0,
             "transpose " + d.ToString());
  std::vector<int64_t> xshape = dims;
  xshape.insert(xshape.begin(), 0);
  EXPECT_EQ(r.outputs["XShape"][0].dims(), DDim(xshape));
}

TEST(Transpose2Op, PermutationsAndDtypes) {
  CheckTranspose<float>({3, 5}, {1, 0});
  CheckTranspose<double>({2, 3, 4}, {2, 0, 1});
  CheckTranspose<int32_t>({2, 3, 4}, {1, 2, 0});
  CheckTranspose<int64_t>({2, 3, 4, 5}, {3, 1, 0, 2});
  CheckTranspose<float>({2, 3, 4}, {0, 1, 2});
  CheckTranspose<double>({4, 1, 3}, {-1, 0, -2});
  CheckTranspose<float>({7}, {0});
  CheckTranspose<float>({}, {});
  CheckTranspose<float>({2, 0, 3}, {2, 1, 0});
  CheckTranspose<float>({64, 33, 17}, {2, 0, 1});  // Large enough to split over threads.
}

TEST(Transpose2Op, BuildTimeInference) {
  framework::ProgramDesc p;
  auto* out = InferAtBuildTime(&p, "transpose2", {{"X", "x", DataType::INT32, {-1, 3, 5}}},
                               {"Out", "XShape"}, {{"axis", std::vector<int>{2, 0, 1}}});
  EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{5, -1, 3}));
  EXPECT_EQ(out->GetDataType(), DataType::INT32);
}

TEST(Transpose2Op, Errors) {
  const SlotTensors in = {{"X", {MakeTensor<float>({2, 3, 4}, RandomValues(24, 0, 1))}}};
  auto run = [&](std::vector<int> axis) {
    RunOp("transpose2", in, {{"Out", 1}, {"XShape", 1}}, {{"axis", axis}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({0, 0, 1});
      },
      {"op `transpose2`", "attribute `axis`", "permutation of [0, 3)", "[0, 0, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({0, 1, 3});
      },
      {"op `transpose2`", "attribute `axis`", "[0, 1, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 0});
      },
      {"op `transpose2`", "attribute `axis`", "expected 3 entries"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("transpose2", in, {{"Out", 1}});
      },
      {"op `transpose2`", "attribute `axis`", "required"});
}

// print copies its input and describes it on stdout: first_n limits the prints of one prepared
// op, print_phase picks the forward value, the gradient (its backward is a print op) or both.
TEST(PrintOp, CopiesAndPrintsAsAskedInEachPhase) {
  operators::RegisterAllOps();
  for (const std::string phase : {"FORWARD", "BACKWARD", "BOTH"}) {
    SCOPED_TRACE(phase);
    framework::ProgramDesc program;
    framework::BlockDesc& b = program.Block(0);
    for (const char* name : {"x", "y", "loss"}) {
      b.Var(name)->SetDataType(DataType::FLOAT32);
      b.Var(name)->SetShape(name == std::string("loss") ? std::vector<int64_t>{1}
                                                        : std::vector<int64_t>{2, 3});
    }
    b.Var("x")->SetPersistable(true);
    framework::OpDesc* op = b.AppendOp();
    op->SetType("print");
    op->SetInput("In", {"x"});
    op->SetOutput("Out", {"y"});
    op->SetAttr("first_n", 2);
    op->SetAttr("message", std::string("step"));
    op->SetAttr("summarize", 4);
    op->SetAttr("print_phase", phase);
    framework::OpDesc* mean = b.AppendOp();
    mean->SetType("mean");
    mean->SetInput("X", {"y"});
    mean->SetOutput("Out", {"loss"});
    framework::AppendBackward(&program, "loss");
    framework::Scope scope;
    *scope.Var("x")->GetMutable<DenseTensor>() = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    framework::Executor exec{platform::CPUPlace()};
    auto prepared = exec.Prepare(program, 0, &scope, {"y", "x@GRAD"});
    ::testing::internal::CaptureStdout();
    for (int run = 0; run < 3; ++run) exec.Run(prepared.get());
    const std::string printed = ::testing::internal::GetCapturedStdout();
    const framework::Scope& local = *prepared->local_scope();
    EXPECT_EQ(ToDoubles(local.FindVar("y")->Get<DenseTensor>()),
              (std::vector<double>{1, 2, 3, 4, 5, 6}));
    ExpectNear(ToDoubles(local.FindVar("x@GRAD")->Get<DenseTensor>()),
               std::vector<double>(6, 1.0 / 6), 1e-7, 0, "x@GRAD through print's backward");
    // Each print op (the forward one, the one in the backward) prints at most twice.
    size_t prints = 0;
    for (size_t at = printed.find("step\t"); at != std::string::npos;
         at = printed.find("step\t", at + 1)) {
      ++prints;
    }
    EXPECT_EQ(prints, phase == "BOTH" ? 4u : 2u) << printed;
    EXPECT_NE(printed.find("Variable: "), std::string::npos) << printed;
    EXPECT_NE(printed.find("  - shape: [2, 3]"), std::string::npos) << printed;
    EXPECT_NE(printed.find("  - dtype: float32"), std::string::npos) << printed;
    if (phase != "BACKWARD") {
      EXPECT_NE(printed.find("Variable: x\n"), std::string::npos) << printed;
      EXPECT_NE(printed.find("  - data: [1 2 3 4 ...]"), std::string::npos) << printed;
    }
    if (phase != "FORWARD") {
      EXPECT_NE(printed.find("Variable: y@GRAD"), std::string::npos) << printed;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
