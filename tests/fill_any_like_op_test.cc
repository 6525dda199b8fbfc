// fill_any_like: values, dtypes and shapes against references, build-time dtype inference,
// errors, and that no gradient flows through it.
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

const DDim kShapes[] = {DDim({2, 3}), DDim({}), DDim({0, 4}), DDim({1, 5, 1})};

DenseTensor FillLike(const DenseTensor& x, const AttributeMap& attrs,
                     const framework::KernelInfo** kernel = nullptr) {
  auto r = RunOp("fill_any_like", {{"X", {x}}}, {{"Out", 1}}, attrs);
  if (kernel != nullptr) *kernel = r.kernel;
  return r.outputs["Out"][0];
}

template <typename T>
void CheckTakesXsDtype() {
  for (const DDim& dims : kShapes) {
    const std::string what = "fill_any_like " + dims.ToString();
    const DenseTensor x = MakeTensor<T>(dims, RandomValues(dims.numel(), -3, 3));
    const framework::KernelInfo* kernel = nullptr;
    const DenseTensor out = FillLike(x, {{"value", 2.5f}}, &kernel);
    EXPECT_EQ(out.dims(), dims) << what;
    EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->key.dtype, platform::ToDataType<T>()) << what;
    ExpectNear(ToDoubles(out), std::vector<double>(dims.numel(), 2.5), 0, 0, what);
  }
}

TEST(FillAnyLikeOp, DefaultDtypeIsXsDtype) {
  CheckTakesXsDtype<float>();
  CheckTakesXsDtype<double>();
}

TEST(FillAnyLikeOp, DefaultValueIsZero) {
  const DenseTensor out = FillLike(MakeTensor<double>({3}, {1, 2, 3}), {});
  ExpectNear(ToDoubles(out), {0, 0, 0}, 0, 0, "default value");
}

TEST(FillAnyLikeOp, DtypeAttributeSelectsOutputAndKernel) {
  const DenseTensor x = MakeTensor<float>({2, 2}, {1, -2, 3, -4});
  struct Case {
    int dtype;
    float value;
    DataType expected_dtype;
    double expected_value;
  };
  const Case kCases[] = {
      {6, 0.1f, DataType::FLOAT64, static_cast<double>(0.1f)},
      {5, -1.5f, DataType::FLOAT32, -1.5},
      {3, 7.0f, DataType::INT64, 7},
      {2, -3.9f, DataType::INT32, -3},  // Truncated toward zero.
      {0, 2.0f, DataType::BOOL, 1},
      {0, 0.0f, DataType::BOOL, 0},
  };
  for (const auto& c : kCases) {
    const std::string what = "dtype " + std::to_string(c.dtype);
    const framework::KernelInfo* kernel = nullptr;
    const DenseTensor out = FillLike(x, {{"dtype", c.dtype}, {"value", c.value}}, &kernel);
    EXPECT_EQ(out.dtype(), c.expected_dtype) << what;
    EXPECT_EQ(out.dims(), x.dims()) << what;
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->key.dtype, c.expected_dtype) << what;
    ExpectNear(ToDoubles(out), std::vector<double>(4, c.expected_value), 0, 0, what);
  }
  // An integer X with dtype = -1 gives an integer Out.
  const DenseTensor ints = MakeTensor<int64_t>({3}, {1, 2, 3});
  const DenseTensor out = FillLike(ints, {{"value", 5.0f}});
  EXPECT_EQ(out.dtype(), DataType::INT64);
  ExpectNear(ToDoubles(out), {5, 5, 5}, 0, 0, "int64 like");
}

TEST(FillAnyLikeOp, BuildTimeInferenceSetsDtypeAndShape) {
  operators::RegisterAllOps();
  for (int dtype : {-1, 3, 6}) {
    framework::ProgramDesc program;
    framework::BlockDesc& b = program.Block(0);
    b.Var("x")->SetDataType(DataType::FLOAT32);
    b.Var("x")->SetShape({-1, 3});
    framework::OpDesc* op = b.AppendOp();
    op->SetType("fill_any_like");
    op->SetInput("X", {"x"});
    op->SetOutput("Out", {"out"});
    op->SetAttr("dtype", dtype);
    framework::InferVarTypeAndShape(op, &b);
    const framework::VarDesc* out = b.FindVar("out");
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->GetDataType(), dtype == -1 ? DataType::FLOAT32 : static_cast<DataType>(dtype))
        << dtype;
    EXPECT_EQ(out->GetShape(), (std::vector<int64_t>{-1, 3})) << dtype;
  }
}

TEST(FillAnyLikeOp, Errors) {
  const DenseTensor x = MakeTensor<float>({2}, {1, 2});
  try {
    FillLike(x, {{"dtype", 2}, {"value", 1e20f}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `fill_any_like` attribute `value`"), std::string::npos)
        << e.what();
  }
  // An unsupported dtype number is rejected by the attribute checker.
  EXPECT_THROW(FillLike(x, {{"dtype", 4}}), platform::InvalidArgumentError);
}

// X is a no-need-buffer input: its dims and dtype suffice (the executor may have freed its
// buffer already).
TEST(FillAnyLikeOp, ReadsOnlyTheMetadataOfX) {
  const DenseTensor no_buffer({2, 3}, DataType::FLOAT64);
  ASSERT_FALSE(no_buffer.initialized());
  const auto r = RunOp("fill_any_like", {{"X", {no_buffer}}}, {{"Out", 1}}, {{"value", 2.5f}});
  const DenseTensor& out = r.outputs.at("Out")[0];
  EXPECT_EQ(out.dims(), DDim({2, 3}));
  EXPECT_EQ(out.dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(out), std::vector<double>(6, 2.5), 0, 0, "Out");
}

TEST(FillAnyLikeOp, NoGradientFlowsToX) {
  GradCheck check;
  check.op_type = "fill_any_like";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"value", 1.0f}};
  CheckGradients(check);
}

// fill_zeros_like: zeros of X's shape and dtype, for each dtype; share_data: X's values in a
// buffer of Out's own.
TEST(FillZerosLikeOp, ZerosOfXsShapeAndDtype) {
  const DenseTensor xs[] = {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1)),
                            MakeTensor<double>({4}, RandomValues(4, -1, 1)),
                            MakeTensor<int32_t>({3, 1}, {1, 2, 3}),
                            MakeTensor<int64_t>({2}, {7, 8}), MakeTensor<bool>({2}, {1, 1})};
  for (const DenseTensor& x : xs) {
    const auto r = RunOp("fill_zeros_like", {{"X", {x}}}, {{"Out", 1}});
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dims(), x.dims());
    EXPECT_EQ(out.dtype(), x.dtype());
    EXPECT_EQ(ToDoubles(out), std::vector<double>(static_cast<size_t>(x.numel()), 0.0));
  }
  GradCheck check;
  check.op_type = "fill_zeros_like";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}}};
  check.outputs = {{"Out", 1}};
  CheckGradients(check);
}

TEST(ShareDataOp, OutHoldsXsValuesInItsOwnBuffer) {
  const DenseTensor x = MakeTensor<int64_t>({2, 2}, {1, -2, 3, -4});
  const auto r = RunOp("share_data", {{"X", {x}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs.at("Out")[0];
  EXPECT_EQ(out.dims(), x.dims());
  EXPECT_EQ(ToDoubles(out), (std::vector<double>{1, -2, 3, -4}));
  EXPECT_NE(out.data<int64_t>(), x.data<int64_t>());
  GradCheck check;
  check.op_type = "share_data";
  check.inputs = {{"X", {MakeTensor<double>({3}, RandomValues(3, -1, 1))}}};
  check.outputs = {{"Out", 1}};
  CheckGradients(check);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
