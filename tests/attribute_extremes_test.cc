// Integer attributes (and the integer tensors that stand in for them) at their extremes:
// INT_MAX, INT_MIN, INT64_MAX, INT64_MIN, huge and mismatched lists. A saved program is data a
// user downloaded, so every op must answer such values with a typed error that names the op
// and the attribute (or give the correct result), at build time (shape inference on VarDescs)
// and at run time, never with a crash, an out-of-bounds access or an overflow.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr int kIntMin = std::numeric_limits<int>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

using InvalidArgument = platform::InvalidArgumentError;

// An int64 tensor holding `values` exactly (MakeTensor goes through double).
DenseTensor Int64Tensor(const DDim& dims, const std::vector<int64_t>& values) {
  DenseTensor t(dims, DataType::INT64);
  int64_t* p = t.mutable_data<int64_t>(platform::CPUPlace());
  EXPECT_EQ(static_cast<int64_t>(values.size()), dims.numel());
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

DenseTensor Floats(const DDim& dims) {
  return MakeTensor<float>(dims, RandomValues(dims.numel(), 0.1, 1.0));
}

// Runs `type` on `inputs` with `attrs` and expects an InvalidArgumentError naming the op and
// every string of `parts`.
void ExpectRunError(const std::string& type, const SlotTensors& inputs,
                    const std::map<std::string, int>& outputs, const AttributeMap& attrs,
                    const std::vector<std::string>& parts) {
  SCOPED_TRACE(type);
  std::vector<std::string> all = {"op `" + type + "`"};
  all.insert(all.end(), parts.begin(), parts.end());
  ExpectError<InvalidArgument>([&] { RunOp(type, inputs, outputs, attrs); }, all);
}

// One variable of a one-op block for build-time inference.
struct BuildVar {
  std::string slot, name;
  DataType dtype;
  std::vector<int64_t> shape;
};

// Infers the op's outputs on VarDescs (build time); returns the shape of `outputs[0]`.
std::vector<int64_t> InferAtBuildTime(const std::string& type, const std::vector<BuildVar>& inputs,
                                      const std::vector<std::string>& outputs,
                                      const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  std::map<std::string, std::vector<std::string>> slots;
  for (const BuildVar& in : inputs) {
    framework::VarDesc* v = b.Var(in.name);
    v->SetDataType(in.dtype);
    v->SetShape(in.shape);
    slots[in.slot].push_back(in.name);
  }
  for (const auto& kv : slots) op->SetInput(kv.first, kv.second);
  for (const auto& s : outputs) op->SetOutput(s, {"out_" + s});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  return b.FindVar("out_" + outputs[0])->GetShape();
}

void ExpectBuildError(const std::string& type, const std::vector<BuildVar>& inputs,
                      const std::vector<std::string>& outputs, const AttributeMap& attrs,
                      const std::vector<std::string>& parts) {
  SCOPED_TRACE(type + " (build time)");
  std::vector<std::string> all = {"op `" + type + "`"};
  all.insert(all.end(), parts.begin(), parts.end());
  ExpectError<InvalidArgument>([&] { InferAtBuildTime(type, inputs, outputs, attrs); }, all);
}

// ---------------------------------------------------------------- reshape2

TEST(AttributeExtremes, Reshape2ShapeWhoseProductOverflows) {
  const DenseTensor x = Floats({2, 3});
  const std::vector<int> huge = {kIntMax, kIntMax, kIntMax};
  ExpectRunError("reshape2", {{"X", {x}}}, {{"Out", 1}}, {{"shape", huge}},
                 {"attribute `shape`", "fits in int64"});
  // At build time the input's dims may be unknown: the overflow is still caught.
  ExpectBuildError("reshape2", {{"X", "x", DataType::FLOAT32, {-1, 3}}}, {"Out"},
                   {{"shape", huge}}, {"attribute `shape`", "fits in int64"});
  // With a -1 to infer and the rest overflowing.
  ExpectRunError("reshape2", {{"X", {x}}}, {{"Out", 1}},
                 {{"shape", std::vector<int>{-1, kIntMax, kIntMax, kIntMax}}},
                 {"attribute `shape`", "fits in int64"});
}

TEST(AttributeExtremes, Reshape2NegativeAndHugeShapes) {
  const DenseTensor x = Floats({2, 3});
  ExpectRunError("reshape2", {{"X", {x}}}, {{"Out", 1}}, {{"shape", std::vector<int>{kIntMin}}},
                 {"attribute `shape`", "expected dims > 0, 0 or -1"});
  ExpectRunError("reshape2", {{"X", {x}}}, {{"Out", 1}},
                 {{"shape", std::vector<int>(1000, 1)}},
                 {"attribute `shape`", "at most 9 dims", "1000"});
  ExpectRunError("reshape2", {{"X", {x}}}, {{"Out", 1}}, {{"shape", std::vector<int>{kIntMax}}},
                 {"attribute `shape`", "expected 6 elements"});
}

TEST(AttributeExtremes, Reshape2ShapeTensorWhoseProductOverflows) {
  const DenseTensor x = Floats({2, 3});
  ExpectRunError("reshape2", {{"X", {x}}, {"Shape", {Int64Tensor({2}, {kI64Max, kI64Max})}}},
                 {{"Out", 1}}, {}, {"input `Shape`", "fits in int64"});
  ExpectRunError("reshape2", {{"X", {x}}, {"Shape", {Int64Tensor({1}, {kI64Min})}}}, {{"Out", 1}},
                 {}, {"input `Shape`", "expected dims > 0, 0 or -1"});
}

TEST(AttributeExtremes, Reshape2KeepsUnknownDimsAtBuildTime) {
  EXPECT_EQ(InferAtBuildTime("reshape2", {{"X", "x", DataType::FLOAT32, {-1, 6}}}, {"Out"},
                             {{"shape", std::vector<int>{-1, 3}}}),
            (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(InferAtBuildTime("reshape2", {{"X", "x", DataType::FLOAT32, {-1, 6}}}, {"Out"},
                             {{"shape", std::vector<int>{0, 2, 3}}}),
            (std::vector<int64_t>{-1, 2, 3}));
}

TEST(AttributeExtremes, Reshape2InPlaceWithShapeTensorReshapes) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const NamedOpRun r = RunNamedOp("reshape2", {{"X", {"x"}}, {"Shape", {"s"}}}, {{"Out", {"x"}}},
                                  {{"x", x}, {"s", MakeTensor<int32_t>({2}, {3, 2})}});
  EXPECT_EQ(r.vars.at("x").dims(), DDim({3, 2}));
  ExpectNear(ToDoubles(r.vars.at("x")), {1, 2, 3, 4, 5, 6}, 0, 0, "reshape2 in place");
}

// ---------------------------------------------------------------- fill_constant, random ops

TEST(AttributeExtremes, FillConstantShapeExtremes) {
  ExpectRunError("fill_constant", {}, {{"Out", 1}},
                 {{"shape", std::vector<int64_t>{kI64Max, 2}}},
                 {"attribute `shape`", "fits in int64"});
  ExpectRunError("fill_constant", {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>{kI64Min}}},
                 {"attribute `shape`", "expected dims >= 0"});
  ExpectRunError("fill_constant", {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>(100, 1)}},
                 {"attribute `shape`", "at most 9 dims"});
  ExpectBuildError("fill_constant", {}, {"Out"},
                   {{"shape", std::vector<int64_t>{kI64Max, kI64Max}}},
                   {"attribute `shape`", "fits in int64"});
  // Zero dims stay fine.
  const auto r = RunOp("fill_constant", {}, {{"Out", 1}},
                       {{"shape", std::vector<int64_t>{0, kI64Max}}, {"value", 1.0f}});
  EXPECT_EQ(r.outputs.at("Out")[0].numel(), 0);
}

TEST(AttributeExtremes, FillConstantShapeTensorExtremes) {
  ExpectRunError("fill_constant", {{"ShapeTensor", {Int64Tensor({2}, {kI64Max, kI64Max})}}},
                 {{"Out", 1}}, {}, {"input `ShapeTensor`", "fits in int64"});
  ExpectRunError("fill_constant",
                 {{"ShapeTensorList", {Int64Tensor({1}, {kI64Min}), Int64Tensor({1}, {2})}}},
                 {{"Out", 1}}, {}, {"input `ShapeTensorList`", "expected dims >= 0"});
  // Build time: a ShapeTensor of 2^40 values declares a rank no tensor has; the error comes
  // before a vector of that many dims is built.
  ExpectBuildError("fill_constant", {{"ShapeTensor", "s", DataType::INT64, {int64_t{1} << 40}}},
                   {"Out"}, {}, {"input `ShapeTensor`", "at most 9 dims"});
}

TEST(AttributeExtremes, RandomOpsShapeExtremes) {
  for (const char* op : {"uniform_random", "gaussian_random"}) {
    ExpectRunError(op, {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>{kI64Max, kI64Max}}},
                   {"attribute `shape`", "fits in int64"});
    ExpectRunError(op, {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>{kI64Min}}},
                   {"attribute `shape`", "expected dims >= 0"});
    ExpectRunError(op, {{"ShapeTensor", {Int64Tensor({2}, {kI64Max, 3})}}}, {{"Out", 1}}, {},
                   {"input `ShapeTensor`", "fits in int64"});
    ExpectBuildError(op, {{"ShapeTensor", "s", DataType::INT64, {int64_t{1} << 40}}}, {"Out"}, {},
                     {"input `ShapeTensor`", "at most 9 dims"});
  }
  ExpectRunError("truncated_gaussian_random", {}, {{"Out", 1}},
                 {{"shape", std::vector<int>{kIntMax, kIntMax, kIntMax}}},
                 {"attribute `shape`", "fits in int64"});
}

TEST(AttributeExtremes, UniformRandomDiagonalExtremes) {
  const AttributeMap base = {{"shape", std::vector<int64_t>{4}}, {"seed", 3}};
  AttributeMap attrs = base;
  attrs["diag_num"] = kIntMax;
  attrs["diag_step"] = kIntMax;
  ExpectRunError("uniform_random", {}, {{"Out", 1}}, attrs, {"`diag_num`", "`diag_step`"});
  attrs["diag_num"] = 1;
  attrs["diag_step"] = kIntMin;
  ExpectRunError("uniform_random", {}, {{"Out", 1}}, attrs, {"`diag_num`", "`diag_step`"});
}

// ---------------------------------------------------------------- expand_as_v2 and broadcasting

TEST(AttributeExtremes, ExpandAsV2TargetShapeAndAxis) {
  const DenseTensor x = Floats({1});
  ExpectRunError("expand_as_v2", {{"X", {x}}}, {{"Out", 1}},
                 {{"target_shape", std::vector<int>{kIntMax, kIntMax, kIntMax}}},
                 {"attribute `target_shape`", "fits in int64"});
  ExpectRunError("expand_as_v2", {{"X", {x}}}, {{"Out", 1}},
                 {{"target_shape", std::vector<int>{kIntMin}}}, {"attribute `target_shape`"});
  for (int axis : {kIntMax, kIntMin}) {
    ExpectRunError("expand_as_v2", {{"X", {x}}}, {{"Out", 1}},
                   {{"target_shape", std::vector<int>{2, 3}}, {"axis", axis}},
                   {"attribute `axis`"});
  }
}

TEST(AttributeExtremes, BroadcastingAxisExtremes) {
  const DenseTensor x = Floats({2, 3});
  const DenseTensor y = Floats({3});
  for (int axis : {kIntMax, kIntMin, -2}) {
    ExpectRunError("elementwise_add", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
    ExpectRunError("reduce_as", {{"X", {x}}, {"Target", {y}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
  }
}

// ---------------------------------------------------------------- transpose2

TEST(AttributeExtremes, Transpose2Axis) {
  const DenseTensor x = Floats({2, 3});
  for (const std::vector<int>& axis : std::vector<std::vector<int>>{
           {kIntMax, 0}, {kIntMin, 0}, {0, 0}, {-1, 1}, {0}, {0, 1, 2}, {}}) {
    ExpectRunError("transpose2", {{"X", {x}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
  }
}

TEST(AttributeExtremes, HugeListKeepsTheMessageSmall) {
  operators::RegisterAllOps();
  const DenseTensor x = Floats({2, 3});
  try {
    RunOp("transpose2", {{"X", {x}}}, {{"Out", 1}}, {{"axis", std::vector<int>(100000, 0)}});
    ADD_FAILURE() << "expected an error";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("attribute `axis`"), std::string::npos) << what;
    EXPECT_NE(what.find("(100000 values)"), std::string::npos) << what;
    EXPECT_LT(what.size(), 1000u);
  }
}

// ---------------------------------------------------------------- slice

TEST(AttributeExtremes, SliceAxesAndDecreaseAxis) {
  const DenseTensor x = Floats({3, 4});
  for (int axis : {kIntMax, kIntMin, 2, -3}) {
    ExpectRunError("slice", {{"Input", {x}}}, {{"Out", 1}},
                   {{"axes", std::vector<int>{axis}},
                    {"starts", std::vector<int>{0}},
                    {"ends", std::vector<int>{1}}},
                   {"attribute `axes`"});
  }
  for (int d : {kIntMax, kIntMin, 0}) {
    ExpectRunError("slice", {{"Input", {x}}}, {{"Out", 1}},
                   {{"axes", std::vector<int>{1}},
                    {"starts", std::vector<int>{0}},
                    {"ends", std::vector<int>{1}},
                    {"decrease_axis", std::vector<int>{d}}},
                   {"attribute `decrease_axis`"});
  }
  ExpectRunError("slice", {{"Input", {x}}}, {{"Out", 1}},
                 {{"axes", std::vector<int>{1}},
                  {"starts", std::vector<int>{0, 0}},
                  {"ends", std::vector<int>{1}}},
                 {"`starts`/`ends`"});
}

TEST(AttributeExtremes, SliceBoundsClampAtTheExtremes) {
  const std::vector<double> values = RandomValues(12, -1, 1);
  const DenseTensor x = MakeTensor<float>({3, 4}, values);
  // Like Python: out-of-range bounds clamp.
  auto r = RunOp("slice", {{"Input", {x}}}, {{"Out", 1}},
                 {{"axes", std::vector<int>{1}},
                  {"starts", std::vector<int>{kIntMin}},
                  {"ends", std::vector<int>{kIntMax}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3, 4}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ToDoubles(x), 0, 0, "slice [INT_MIN, INT_MAX)");
  r = RunOp("slice", {{"Input", {x}}}, {{"Out", 1}},
            {{"axes", std::vector<int>{1}},
             {"starts", std::vector<int>{kIntMax}},
             {"ends", std::vector<int>{kIntMin}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3, 0}));
  // int64 bounds from tensors.
  r = RunOp("slice",
            {{"Input", {x}},
             {"StartsTensor", {Int64Tensor({1}, {kI64Min})}},
             {"EndsTensor", {Int64Tensor({1}, {kI64Max})}}},
            {{"Out", 1}}, {{"axes", std::vector<int>{1}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3, 4}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ToDoubles(x), 0, 0, "slice int64 bounds");
}

// ---------------------------------------------------------------- split and concat

TEST(AttributeExtremes, SplitAxisNumSections) {
  const DenseTensor x = Floats({5});
  for (int axis : {kIntMax, kIntMin, 1, -2}) {
    ExpectRunError("split", {{"X", {x}}}, {{"Out", 5}}, {{"axis", axis}, {"num", 5}},
                   {"attribute `axis`"});
  }
  for (int num : {kIntMax, kIntMin, -1}) {
    ExpectRunError("split", {{"X", {x}}}, {{"Out", 2}}, {{"num", num}}, {"attribute `num`"});
  }
  ExpectRunError("split", {{"X", {x}}}, {{"Out", 2}},
                 {{"sections", std::vector<int>{kIntMax, kIntMax}}},
                 {"attribute `sections`", "adding up to the split dim 5"});
  ExpectRunError("split", {{"X", {x}}}, {{"Out", 2}},
                 {{"sections", std::vector<int>{kIntMin, -1}}},
                 {"attribute `sections`", "expected sizes >= 0"});
  ExpectRunError("split", {{"X", {x}}}, {{"Out", 2}},
                 {{"sections", std::vector<int>{kIntMax, -1}}},
                 {"attribute `sections`", "more than the split dim"});
}

TEST(AttributeExtremes, SplitSectionsTensorsWhoseSumOverflows) {
  const DenseTensor x = Floats({5});
  ExpectRunError(
      "split",
      {{"X", {x}},
       {"SectionsTensorList", {Int64Tensor({1}, {kI64Max}), Int64Tensor({1}, {kI64Max})}}},
      {{"Out", 2}}, {}, {"input `SectionsTensorList`", "overflows int64"});
  ExpectRunError(
      "split",
      {{"X", {x}}, {"SectionsTensorList", {Int64Tensor({1}, {kI64Max}), Int64Tensor({1}, {-1})}}},
      {{"Out", 2}}, {}, {"input `SectionsTensorList`", "more than the split dim"});
  ExpectRunError(
      "split",
      {{"X", {x}}, {"SectionsTensorList", {Int64Tensor({1}, {kI64Min}), Int64Tensor({1}, {5})}}},
      {{"Out", 2}}, {}, {"input `SectionsTensorList`", "expected sizes >= 0"});
}

TEST(AttributeExtremes, ConcatAxis) {
  const DenseTensor a = Floats({2, 2});
  for (int axis : {kIntMax, kIntMin, 2, -3}) {
    ExpectRunError("concat", {{"X", {a, a}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
  }
  for (int64_t axis : {kI64Max, kI64Min}) {
    ExpectRunError("concat", {{"X", {a, a}}, {"AxisTensor", {Int64Tensor({1}, {axis})}}},
                   {{"Out", 1}}, {}, {"input `AxisTensor`"});
  }
}

TEST(AttributeExtremes, ConcatSizesWhoseSumOverflows) {
  const int64_t half = int64_t{1} << 62;
  // Build time: each declared shape is valid, their sum along the axis is not.
  ExpectBuildError("concat",
                   {{"X", "a", DataType::FLOAT32, {half}}, {"X", "b", DataType::FLOAT32, {half}}},
                   {"Out"}, {{"axis", 0}}, {"input `X`", "fits in int64"});
  // Run time: tensors with no elements may have any size along the axis.
  const DenseTensor empty = MakeTensor<float>(DDim({0, half}), {});
  ExpectRunError("concat", {{"X", {empty, empty}}}, {{"Out", 1}}, {{"axis", 1}},
                 {"input `X`", "fits in int64"});
}

TEST(AttributeExtremes, ConcatGradientOfSizesBeyondInt) {
  // `split`'s sections are ints: a size above INT_MAX must not be truncated into one.
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  const int64_t big = int64_t{1} << 31;
  b.Var("a")->SetDataType(DataType::FLOAT32);
  b.Var("a")->SetShape({big, 2});
  b.Var("c")->SetDataType(DataType::FLOAT32);
  b.Var("c")->SetShape({1, 2});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("concat");
  op->SetInput("X", {"a", "c"});
  op->SetOutput("Out", {"loss"});
  op->SetAttr("axis", 0);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("loss")->GetShape(), (std::vector<int64_t>{big + 1, 2}));
  const framework::BackwardResult result = framework::AppendBackward(&program, "loss");
  std::vector<std::string> types;
  for (const framework::OpDesc* o : program.Block(0).AllOps()) types.push_back(o->Type());
  EXPECT_NE(std::find(types.begin(), types.end(), "concat_grad"), types.end());
  EXPECT_EQ(std::find(types.begin(), types.end(), "split"), types.end());
  ASSERT_EQ(result.grad_of.count("a"), 1u);
  const framework::VarDesc* da = b.FindVar(result.grad_of.at("a"));
  ASSERT_NE(da, nullptr);
  EXPECT_EQ(da->GetShape(), (std::vector<int64_t>{big, 2}));
}

// ---------------------------------------------------------------- unsqueeze2, squeeze2, flatten

TEST(AttributeExtremes, UnsqueezeSqueezeAxes) {
  const DenseTensor x = Floats({1, 2});
  for (int axis : {kIntMax, kIntMin, 4, -4}) {
    ExpectRunError("unsqueeze2", {{"X", {x}}}, {{"Out", 1}}, {{"axes", std::vector<int>{axis}}},
                   {"attribute `axes`"});
  }
  ExpectRunError("unsqueeze2", {{"X", {x}}}, {{"Out", 1}}, {{"axes", std::vector<int>(8, 0)}},
                 {"attribute `axes`", "maximum rank"});
  ExpectRunError("unsqueeze2", {{"X", {x}}}, {{"Out", 1}},
                 {{"axes", std::vector<int>(100000, 0)}}, {"attribute `axes`", "maximum rank"});
  for (int axis : {kIntMax, kIntMin, 2, -3}) {
    ExpectRunError("squeeze2", {{"X", {x}}}, {{"Out", 1}}, {{"axes", std::vector<int>{axis}}},
                   {"attribute `axes`"});
  }
}

TEST(AttributeExtremes, FlattenAxes) {
  const DenseTensor x = Floats({2, 3, 4});
  for (int v : {kIntMax, kIntMin}) {
    ExpectRunError("flatten_contiguous_range", {{"X", {x}}}, {{"Out", 1}},
                   {{"start_axis", v}, {"stop_axis", -1}}, {"attribute `start_axis`"});
    ExpectRunError("flatten_contiguous_range", {{"X", {x}}}, {{"Out", 1}},
                   {{"start_axis", 0}, {"stop_axis", v}}, {"attribute `stop_axis`"});
  }
}

// ---------------------------------------------------------------- search

TEST(AttributeExtremes, TopKK) {
  const DenseTensor x = Floats({2, 3});
  for (int k : {kIntMax, kIntMin, 0, 4}) {
    ExpectRunError("top_k", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"k", k}},
                   {"attribute `k`"});
  }
  for (int64_t k : {kI64Max, kI64Min}) {
    ExpectRunError("top_k", {{"X", {x}}, {"K", {Int64Tensor({1}, {k})}}},
                   {{"Out", 1}, {"Indices", 1}}, {}, {"input `K`"});
  }
}

TEST(AttributeExtremes, TopKGradIndicesRowsMustMatchX) {
  // Indices with fewer rows than X would be read past its end.
  ExpectRunError("top_k_grad",
                 {{"X", {Floats({4, 3})}},
                  {"Indices", {Int64Tensor({1, 2}, {0, 1})}},
                  {"Out@GRAD", {Floats({1, 2})}}},
                 {{"X@GRAD", 1}}, {}, {"input `Indices`"});
  ExpectRunError("top_k_grad",
                 {{"X", {Floats({2, 3})}},
                  {"Indices", {Int64Tensor({2, 1}, {kI64Max, 0})}},
                  {"Out@GRAD", {Floats({2, 1})}}},
                 {{"X@GRAD", 1}}, {}, {"input `Indices`"});
}

TEST(AttributeExtremes, ArgMaxAxisAndDtype) {
  const DenseTensor x = Floats({2, 3});
  for (int64_t axis : {kI64Max, kI64Min, int64_t{2}, int64_t{-3}}) {
    ExpectRunError("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
  }
  ExpectRunError("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"dtype", kIntMax}},
                 {"attribute `dtype`"});
}

// ---------------------------------------------------------------- softmax, reduce, norm, mul

TEST(AttributeExtremes, SoftmaxAndReduceAxes) {
  const DenseTensor x = Floats({2, 3});
  for (int axis : {kIntMax, kIntMin, 2, -3}) {
    ExpectRunError("softmax", {{"X", {x}}}, {{"Out", 1}}, {{"axis", axis}},
                   {"attribute `axis`"});
    for (const char* op : {"reduce_sum", "reduce_mean"}) {
      ExpectRunError(op, {{"X", {x}}}, {{"Out", 1}}, {{"dim", std::vector<int>{0, axis}}},
                     {"attribute `dim`"});
    }
  }
}

TEST(AttributeExtremes, LayerNormBeginNormAxis) {
  const DenseTensor x = Floats({2, 3});
  for (int axis : {kIntMax, kIntMin, 0, 2}) {
    ExpectRunError("layer_norm", {{"X", {x}}}, {{"Y", 1}, {"Mean", 1}, {"Variance", 1}},
                   {{"begin_norm_axis", axis}}, {"attribute `begin_norm_axis`"});
  }
}

TEST(AttributeExtremes, MulNumColDims) {
  const DenseTensor x = Floats({2, 3});
  const DenseTensor y = Floats({3, 4});
  for (int v : {kIntMax, kIntMin, 0, 2}) {
    ExpectRunError("mul", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"x_num_col_dims", v}},
                   {"attribute `x_num_col_dims`"});
    ExpectRunError("mul", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"y_num_col_dims", v}},
                   {"attribute `y_num_col_dims`"});
  }
  // Valid flattenings whose Out would have rank 16.
  const DDim ones(std::vector<int64_t>(9, 1));
  ExpectRunError("mul", {{"X", {Floats(ones)}}, {"Y", {Floats(ones)}}}, {{"Out", 1}},
                 {{"x_num_col_dims", 8}, {"y_num_col_dims", 1}},
                 {"`x_num_col_dims`", "rank at most 9"});
}

// ---------------------------------------------------------------- embedding, losses

TEST(AttributeExtremes, LookupTablePaddingIdxAndIds) {
  const DenseTensor w = Floats({3, 2});
  const DenseTensor ids = Int64Tensor({2}, {0, 1});
  for (int64_t pad : {kI64Max, kI64Min, int64_t{3}, int64_t{-4}}) {
    ExpectRunError("lookup_table_v2", {{"W", {w}}, {"Ids", {ids}}}, {{"Out", 1}},
                   {{"padding_idx", pad}}, {"attribute `padding_idx`"});
  }
  for (int64_t id : {kI64Max, kI64Min, int64_t{3}, int64_t{-1}}) {
    ExpectRunError("lookup_table_v2", {{"W", {w}}, {"Ids", {Int64Tensor({2}, {0, id})}}},
                   {{"Out", 1}}, {}, {"input `Ids`"});
    ExpectRunError("lookup_table_v2_grad",
                   {{"W", {w}},
                    {"Ids", {Int64Tensor({2}, {0, id})}},
                    {"Out@GRAD", {Floats({2, 2})}}},
                   {{"W@GRAD", 1}}, {}, {"input `Ids`"});
  }
  // Ids of rank 9 leave no room for the embedding dim, in both ops.
  const DenseTensor ids9 = Int64Tensor(DDim(std::vector<int64_t>(9, 1)), {0});
  ExpectRunError("lookup_table_v2", {{"W", {w}}, {"Ids", {ids9}}}, {{"Out", 1}}, {},
                 {"input `Ids`", "no room"});
  ExpectRunError("lookup_table_v2_grad",
                 {{"W", {w}}, {"Ids", {ids9}}, {"Out@GRAD", {Floats({1, 2})}}}, {{"W@GRAD", 1}},
                 {}, {"input `Ids`", "no room"});
  // padding_idx = -1 means none; -V counts from the end (row 0 here).
  const auto r = RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {ids}}}, {{"Out", 1}},
                       {{"padding_idx", int64_t{-3}}});
  const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_NE(out[2], 0.0);
}

TEST(AttributeExtremes, SoftmaxWithCrossEntropyAxisLabelsAndIgnoreIndex) {
  const DenseTensor logits = Floats({2, 3});
  const DenseTensor label = Int64Tensor({2, 1}, {0, 2});
  for (int axis : {kIntMax, kIntMin, 2, -3}) {
    ExpectRunError("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {label}}},
                   {{"Softmax", 1}, {"Loss", 1}}, {{"axis", axis}}, {"attribute `axis`"});
  }
  for (int64_t l : {kI64Max, kI64Min, int64_t{3}}) {
    ExpectRunError("softmax_with_cross_entropy",
                   {{"Logits", {logits}}, {"Label", {Int64Tensor({2, 1}, {0, l})}}},
                   {{"Softmax", 1}, {"Loss", 1}}, {}, {"input `Label`"});
  }
  // ignore_index = INT_MIN ignores exactly the labels equal to it.
  const auto r = RunOp("softmax_with_cross_entropy",
                       {{"Logits", {logits}}, {"Label", {Int64Tensor({2, 1}, {kIntMin, 1})}}},
                       {{"Softmax", 1}, {"Loss", 1}}, {{"ignore_index", kIntMin}});
  const std::vector<double> loss = ToDoubles(r.outputs.at("Loss")[0]);
  ASSERT_EQ(loss.size(), 2u);
  EXPECT_EQ(loss[0], 0.0);
  EXPECT_GT(loss[1], 0.0);
}

TEST(AttributeExtremes, CrossEntropyLabels) {
  const DenseTensor x = Floats({2, 3});
  for (int64_t l : {kI64Max, kI64Min, int64_t{3}}) {
    ExpectRunError("cross_entropy2", {{"X", {x}}, {"Label", {Int64Tensor({2, 1}, {l, 0})}}},
                   {{"Y", 1}, {"XShape", 1}, {"MatchX", 1}}, {{"ignore_index", kIntMax}},
                   {"input `Label`"});
    ExpectRunError("cross_entropy", {{"X", {x}}, {"Label", {Int64Tensor({2, 1}, {l, 0})}}},
                   {{"Y", 1}}, {{"ignore_index", kIntMin}}, {"input `Label`"});
  }
}

// ---------------------------------------------------------------- dtype enumerations

TEST(AttributeExtremes, DtypeAttributes) {
  const DenseTensor x = Floats({2});
  for (int dtype : {kIntMax, kIntMin}) {
    ExpectRunError("cast", {{"X", {x}}}, {{"Out", 1}}, {{"in_dtype", 5}, {"out_dtype", dtype}},
                   {"attribute `out_dtype`"});
    ExpectRunError("fill_constant", {}, {{"Out", 1}},
                   {{"shape", std::vector<int64_t>{2}}, {"dtype", dtype}},
                   {"attribute `dtype`"});
    ExpectRunError("fill_any_like", {{"X", {x}}}, {{"Out", 1}}, {{"dtype", dtype}},
                   {"attribute `dtype`"});
    ExpectRunError("uniform_random", {}, {{"Out", 1}},
                   {{"shape", std::vector<int64_t>{2}}, {"dtype", dtype}},
                   {"attribute `dtype`"});
    ExpectRunError("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, {{"out_dtype", dtype}},
                   {"attribute `out_dtype`"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
