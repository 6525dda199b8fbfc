// scale: forward against a double reference over attrs x shapes x dtypes, the ScaleTensor
// override, build-time dtype, declarations and errors.
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct ScaleCase {
  float scale, bias;
  bool bias_after_scale;
};

const ScaleCase kCases[] = {
    {1.0f, 0.0f, true}, {2.5f, -1.25f, true}, {2.5f, -1.25f, false}, {-0.5f, 3.0f, false},
    {0.0f, 7.0f, true},
};

const DDim kShapes[] = {DDim({3, 5}), DDim({1, 1, 7}), DDim({0, 4}), DDim({}), DDim({40000})};

template <typename T>
void CheckCase(const ScaleCase& c, const DDim& dims) {
  const std::string what = "scale " + dims.ToString() + " scale=" + std::to_string(c.scale) +
                           " bias=" + std::to_string(c.bias) +
                           (c.bias_after_scale ? " after" : " before");
  const auto x = RandomValues(dims.numel(), -3, 3, 17);
  auto r = RunOp("scale", {{"X", {MakeTensor<T>(dims, x)}}}, {{"Out", 1}},
                 {{"scale", c.scale}, {"bias", c.bias}, {"bias_after_scale", c.bias_after_scale}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), dims) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  std::vector<double> expected;
  for (double v : x) {
    const double xv = static_cast<double>(static_cast<T>(v));
    expected.push_back(c.bias_after_scale ? c.scale * xv + c.bias : c.scale * (xv + c.bias));
  }
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), expected, RelTol(t), AbsTol(t) * 10, what);
}

TEST(ScaleOp, ForwardMatchesReference) {
  for (const auto& c : kCases) {
    for (const DDim& d : kShapes) {
      CheckCase<float>(c, d);
      CheckCase<double>(c, d);
    }
  }
}

// Integer tensors: factor and bias are cast to the element type first (2.5 -> 2, -1.25 -> -1).
TEST(ScaleOp, IntegerTensorsCastScaleAndBiasFirst) {
  const framework::AttributeMap attrs = {{"scale", 2.5f}, {"bias", -1.25f}};
  const auto i64 = RunOp("scale", {{"X", {MakeTensor<int64_t>({4}, {0, 1, -3, 7})}}}, {{"Out", 1}},
                         attrs);
  EXPECT_EQ(i64.outputs.at("Out")[0].dtype(), DataType::INT64);
  ExpectNear(ToDoubles(i64.outputs.at("Out")[0]), {-1, 1, -7, 13}, 0, 0, "int64");
  const auto i32 = RunOp("scale", {{"X", {MakeTensor<int32_t>({2}, {5, -2})}}}, {{"Out", 1}},
                         {{"scale", 1.0f}, {"bias", 3.0f}, {"bias_after_scale", false}});
  ExpectNear(ToDoubles(i32.outputs.at("Out")[0]), {8, 1}, 0, 0, "int32");
  const auto u8 = RunOp("scale", {{"X", {MakeTensor<uint8_t>({2}, {4, 10})}}}, {{"Out", 1}},
                        {{"scale", 3.0f}});
  ExpectNear(ToDoubles(u8.outputs.at("Out")[0]), {12, 30}, 0, 0, "uint8");
}

TEST(ScaleOp, DefaultsAreIdentity) {
  auto r = RunOp("scale", {{"X", {MakeTensor<float>({3}, {1, -2, 5})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {1, -2, 5}, 0, 0, "defaults");
}

TEST(ScaleOp, DocExample) {
  const framework::AttributeMap after = {{"scale", 2.0f}, {"bias", 1.0f}};
  framework::AttributeMap before = after;
  before["bias_after_scale"] = false;
  auto a = RunOp("scale", {{"X", {MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 1}}, after);
  auto b = RunOp("scale", {{"X", {MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 1}}, before);
  ExpectNear(ToDoubles(a.outputs["Out"][0]), {3, 5}, 0, 0, "after");
  ExpectNear(ToDoubles(b.outputs["Out"][0]), {4, 6}, 0, 0, "before");
}

// ScaleTensor (of any real dtype) replaces the attribute; Out keeps X's dtype.
template <typename T>
void CheckScaleTensor(const DenseTensor& scale_tensor, double scale_value) {
  const std::vector<double> x = {1, -2, 0.5, 4};
  auto r = RunOp("scale",
                 {{"X", {MakeTensor<T>({2, 2}, x)}}, {"ScaleTensor", {scale_tensor}}},
                 {{"Out", 1}}, {{"scale", 100.0f}, {"bias", 0.5f}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>());
  EXPECT_EQ(out.dims(), DDim({2, 2}));
  std::vector<double> expected;
  for (double v : x) expected.push_back(scale_value * v + 0.5);
  ExpectNear(ToDoubles(out), expected, 1e-6, 1e-6, "ScaleTensor");
}

TEST(ScaleOp, ScaleTensorOverridesAttribute) {
  CheckScaleTensor<float>(MakeTensor<float>({1}, {3}), 3);
  CheckScaleTensor<float>(MakeTensor<double>({1}, {-1.5}), -1.5);
  CheckScaleTensor<double>(MakeTensor<float>({1}, {0.25}), 0.25);
  CheckScaleTensor<double>(MakeTensor<double>({}, {2}), 2);
  CheckScaleTensor<float>(MakeTensor<int32_t>({1}, {4}), 4);
  CheckScaleTensor<double>(MakeTensor<int64_t>({1, 1}, {-2}), -2);
}

TEST(ScaleOp, InputIsLeftUnchanged) {
  const std::vector<double> xv = {1, 2, 3};
  DenseTensor x = MakeTensor<double>({3}, xv);
  RunOp("scale", {{"X", {x}}}, {{"Out", 1}}, {{"scale", 3.0f}});
  ExpectNear(ToDoubles(x), xv, 0, 0, "X");
}

TEST(ScaleOp, BuildTimeOutTakesDtypeOfX) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({-1, 4});
  b.Var("x")->SetDataType(DataType::FLOAT32);
  b.Var("s")->SetShape({1});
  b.Var("s")->SetDataType(DataType::FLOAT64);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("scale");
  op->SetInput("X", {"x"});
  op->SetInput("ScaleTensor", {"s"});
  op->SetOutput("Out", {"out"});
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetShape(), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT32);
}

TEST(ScaleOp, Declarations) {
  operators::RegisterAllOps();
  const auto& spec = framework::OpInfoMap::Instance().Get("scale").spec;
  ASSERT_NE(spec.FindInput("ScaleTensor"), nullptr);
  EXPECT_TRUE(spec.FindInput("ScaleTensor")->dispensable);
  EXPECT_EQ(std::get<float>(spec.FindAttr("scale")->default_value), 1.0f);
  EXPECT_EQ(std::get<float>(spec.FindAttr("bias")->default_value), 0.0f);
  EXPECT_EQ(std::get<bool>(spec.FindAttr("bias_after_scale")->default_value), true);
  EXPECT_NE(spec.comment.find("$$Out = scale \\cdot X + bias$$"), std::string::npos);
}

TEST(ScaleOp, ScaleTensorWithSeveralElementsNamesSlot) {
  try {
    RunOp("scale",
          {{"X", {MakeTensor<float>({2}, {1, 2})}},
           {"ScaleTensor", {MakeTensor<float>({2}, {1, 2})}}},
          {{"Out", 1}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `scale` input `ScaleTensor`"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("received shape [2]"), std::string::npos) << e.what();
  }
}

TEST(ScaleOp, WrongAttributeTypeNamesAttribute) {
  try {
    RunOp("scale", {{"X", {MakeTensor<float>({1}, {1})}}}, {{"Out", 1}},
          {{"bias_after_scale", std::string("yes")}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `scale` attribute `bias_after_scale`"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
