// Tensors in a library's own layout (DenseTensor::opaque_layout), independent of any
// library: a test layout that stores the elements in reverse order stands in for oneDNN's
// blocked formats. Typed access refuses such data, and every reader that needs row-major
// data gets it converted: PlainTensor, casts, copies (which keep the layout), saved records
// and .npy files, fetches, and plain kernels (a planned, counted transform).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "framework/executor.h"
#include "framework/npy_io.h"
#include "framework/op_registry.h"
#include "framework/tensor_io.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExecutionProfile;
using framework::OpaqueLayout;
using framework::PlainTensor;

// float32 elements stored last to first.
class ReversedLayout final : public OpaqueLayout {
 public:
  explicit ReversedLayout(int64_t n) : n_(n) {}
  std::string ToString() const override { return "test-reversed"; }
  size_t bytes() const override { return static_cast<size_t>(n_) * sizeof(float); }
  void ToPlain(const void* src, void* dst) const override {
    const float* s = static_cast<const float*>(src);
    float* d = static_cast<float*>(dst);
    for (int64_t i = 0; i < n_; ++i) d[i] = s[n_ - 1 - i];
  }

 private:
  int64_t n_;
};

// A float32 tensor of `dims` holding `values` (row-major order) in the reversed layout.
DenseTensor Reversed(const DDim& dims, const std::vector<double>& values) {
  DenseTensor t(dims, DataType::FLOAT32);
  t.set_opaque_layout(std::make_shared<ReversedLayout>(dims.numel()));
  float* p = static_cast<float*>(t.mutable_data(platform::CPUPlace(), DataType::FLOAT32));
  const size_t n = values.size();
  for (size_t i = 0; i < n; ++i) p[n - 1 - i] = static_cast<float>(values[i]);
  return t;
}

const DDim kDims({2, 3});
const std::vector<double> kValues = {1, -2, 3.5, 4, -5, 6};

TEST(OpaqueLayoutTest, TypedAccessRefusesAndPlainTensorConverts) {
  const DenseTensor t = Reversed(kDims, kValues);
  EXPECT_FALSE(t.is_plain());
  EXPECT_EQ(t.data_bytes(), 6 * sizeof(float));
  ExpectError<platform::PreconditionNotMetError>([&] { t.data<float>(); },
                                               {"test-reversed", "row-major", "[2, 3]"});
  const DenseTensor plain = PlainTensor(t);
  EXPECT_TRUE(plain.is_plain());
  EXPECT_EQ(plain.dims(), kDims);
  EXPECT_EQ(ToDoubles(plain), kValues);
  // The source is untouched; a plain tensor converts to itself (a shared buffer).
  EXPECT_FALSE(t.is_plain());
  EXPECT_EQ(PlainTensor(plain).raw_data(), plain.raw_data());
}

TEST(OpaqueLayoutTest, CopiesKeepTheLayoutCastsAndResizesDropIt) {
  const DenseTensor t = Reversed(kDims, kValues);
  DenseTensor copy;
  framework::CopyTensor(t, platform::CPUPlace(), &copy);
  EXPECT_FALSE(copy.is_plain());
  EXPECT_NE(copy.raw_data(), t.raw_data());
  EXPECT_EQ(ToDoubles(PlainTensor(copy)), kValues);

  DenseTensor cast;
  framework::CastTensor(t, DataType::FLOAT64, &cast);
  EXPECT_TRUE(cast.is_plain());
  EXPECT_EQ(ToDoubles(cast), kValues);

  DenseTensor resized = t;
  resized.Resize(DDim({6}));
  EXPECT_TRUE(resized.is_plain());  // A layout describes the data of one shape.
  DenseTensor cleared = t;
  cleared.clear();
  EXPECT_TRUE(cleared.is_plain());
}

TEST(OpaqueLayoutTest, TransformsConvertToRowMajorOnceAndCount) {
  const DenseTensor t = Reversed(kDims, kValues);
  const int64_t before = framework::DataTransformCount();
  DenseTensor same_type, cast;
  framework::TransformTensor(t, DataType::FLOAT32, platform::CPUPlace(), &same_type);
  framework::TransformTensor(t, DataType::FLOAT64, platform::CPUPlace(), &cast);
  EXPECT_EQ(framework::DataTransformCount() - before, 2);
  EXPECT_EQ(ToDoubles(same_type), kValues);
  EXPECT_EQ(cast.dtype(), DataType::FLOAT64);
  EXPECT_EQ(ToDoubles(cast), kValues);
}

TEST(OpaqueLayoutTest, SavedRecordsAndNpyFilesHoldRowMajorData) {
  const DenseTensor opaque = Reversed(kDims, kValues);
  const DenseTensor plain = MakeTensor<float>(kDims, kValues);
  std::string from_opaque, from_plain;
  framework::AppendTensorRecord(opaque, &from_opaque);
  framework::AppendTensorRecord(plain, &from_plain);
  EXPECT_EQ(from_opaque, from_plain);
  EXPECT_EQ(framework::SerializeNpy(opaque), framework::SerializeNpy(plain));
}

class OpaqueLayoutExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// A program whose input arrives in the test layout: `scale` (a plain kernel) gets a planned
// row-major copy, recorded in the profile; fetching the input itself gives row-major data.
TEST_F(OpaqueLayoutExecutorTest, PlainKernelsAndFetchesGetRowMajorData) {
  framework::ProgramDesc program;
  program.Block(0).Var("x");
  framework::OpDesc* op = program.Block(0).AppendOp();
  op->SetType("scale");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  op->SetAttr("scale", 2.0f);
  framework::Scope scope;
  ExecutionProfile profile;
  framework::Executor::RunOptions options;
  options.profile = &profile;
  const int64_t before = framework::DataTransformCount();
  const auto fetched = framework::Executor(platform::CPUPlace())
                           .Run(program, &scope, {{"x", Reversed(kDims, kValues)}}, {"x", "y"},
                                options);
  ASSERT_EQ(fetched.size(), 2u);
  EXPECT_TRUE(fetched[0].is_plain());
  EXPECT_EQ(ToDoubles(fetched[0]), kValues);
  std::vector<double> doubled;
  for (double v : kValues) doubled.push_back(2 * v);
  EXPECT_EQ(ToDoubles(fetched[1]), doubled);
  EXPECT_EQ(framework::DataTransformCount() - before, 1);
  ASSERT_FALSE(profile.ops.empty());
  EXPECT_EQ(profile.ops[0].type, "scale");
  ASSERT_EQ(profile.ops[0].transforms.size(), 1u);
  EXPECT_EQ(profile.ops[0].transforms[0].kind, "reorder test-reversed->row-major");
  EXPECT_EQ(profile.ops[0].transforms[0].variable, "x");
  EXPECT_EQ(profile.ops[0].transforms[0].bytes, 6 * sizeof(float));
  EXPECT_TRUE(profile.ops[0].opaque_outputs.empty());
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
