// A DenseNet-style block on the oneDNN kernels (inference):
//   c0 = conv3x3(x); cat1 = concat(c0, x); r1 = relu(batch_norm(cat1))
//   c2 = conv3x3(conv1x1(r1)); cat2 = concat(cat1, c2); y = pool(batch_norm+relu(cat2))
// The concats read the convolutions' outputs in their oneDNN layouts and write channel-last,
// the batch norms normalise that layout in place of a row-major copy, and the whole block
// runs without a reorder to row-major between ops. Results match the plain kernels, and the
// same oneDNN kernels with every temporary fetched (row-major outputs: a concat of blocked
// inputs into a row-major Out, a batch norm of channel-last X into a row-major Y).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/var_type_inference.h"
#include "platform/flags.h"
#include "tests/op_test_util.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExecutionProfile;
using framework::ProgramDesc;
using framework::Scope;

class DenseBlock {
 public:
  // `growth`: the channels the second 3x3 convolution adds (not a multiple of 16 when odd
  // blocks are wanted); `concat_axis` 1 concatenates channels, 0 the batch.
  explicit DenseBlock(int64_t growth = 8, int concat_axis = 1) {
    const int64_t c = 16;
    Var("x", {2, c, 10, 10}, false);
    x_ = MakeTensor<float>({2, c, 10, 10}, RandomValues(2 * c * 100, -1, 1, 3));
    Var("w0", {c, c, 3, 3}, true);
    Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}}, {{"Output", {"c0"}}},
       {{"paddings", std::vector<int>{1, 1}}});
    Op("concat", {{"X", {"c0", "x"}}}, {{"Out", {"cat1"}}}, {{"axis", concat_axis}});
    const int64_t c1 = concat_axis == 1 ? 2 * c : c;
    BatchNorm("cat1", "bn1", c1, false);
    Op("relu", {{"X", {"bn1"}}}, {{"Out", {"r1"}}}, {});
    Var("w1", {24, c1, 1, 1}, true);
    Var("w2", {growth, 24, 3, 3}, true);
    Op("conv2d", {{"Input", {"r1"}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}}, {});
    Op("conv2d", {{"Input", {"c1"}}, {"Filter", {"w2"}}}, {{"Output", {"c2"}}},
       {{"paddings", std::vector<int>{1, 1}}});
    if (concat_axis == 1) {
      Op("concat", {{"X", {"cat1", "c2"}}}, {{"Out", {"cat2"}}}, {{"axis", 1}});
      BatchNorm("cat2", "bn2", c1 + growth, true);
    } else {
      BatchNorm("c2", "bn2", growth, true);
    }
    Op("pool2d", {{"X", {"bn2"}}}, {{"Out", {"y"}}},
       {{"pooling_type", std::string("avg")},
        {"ksize", std::vector<int>{2, 2}},
        {"strides", std::vector<int>{2, 2}}});
  }

  std::vector<std::vector<double>> Run(bool onednn, ExecutionProfile* profile,
                                       const std::vector<std::string>& fetches) const {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    Scope scope;
    p_.Fill(&scope);
    framework::Executor::RunOptions options;
    options.profile = profile;
    options.repeat = 2;  // The profile describes a steady-state run.
    const auto values = framework::Executor(platform::CPUPlace())
                            .Run(p_.program, &scope, {{"x", x_}}, fetches, options);
    std::vector<std::vector<double>> out;
    for (const auto& v : values) {
      EXPECT_TRUE(v.is_plain());
      out.push_back(ToDoubles(v));
    }
    return out;
  }

 private:
  void Var(const std::string& name, const std::vector<int64_t>& dims, bool param, double low = -0.3,
           double high = 0.3) {
    if (param) {
      p_.Param(name, dims, low, high);
    } else {
      p_.Declare(name, dims, false);
    }
  }
  // Inference batch norm with running statistics away from 0 and 1.
  void BatchNorm(const std::string& x, const std::string& y, int64_t c, bool fuse_relu) {
    Var(y + "_scale", {c}, true, 0.5, 1.5);
    Var(y + "_bias", {c}, true, -0.5, 0.5);
    Var(y + "_mean", {c}, true, -0.2, 0.2);
    Var(y + "_var", {c}, true, 0.5, 1.5);
    Op("batch_norm",
       {{"X", {x}},
        {"Scale", {y + "_scale"}},
        {"Bias", {y + "_bias"}},
        {"Mean", {y + "_mean"}},
        {"Variance", {y + "_var"}}},
       {{"Y", {y}},
        {"MeanOut", {y + "_mean"}},
        {"VarianceOut", {y + "_var"}},
        {"SavedMean", {y + "_saved_mean"}},
        {"SavedVariance", {y + "_saved_var"}}},
       {{"is_test", true}, {"epsilon", 1e-5f}, {"fuse_with_relu", fuse_relu}});
  }
  void Op(const std::string& type, const framework::VariableNameMap& in,
          const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::InferVarTypeAndShape(p_.Op(type, in, out, attrs), &p_.program.Block(0));
  }

  ProgramWithParams p_{framework::ProgramDesc(), {}, 21};
  DenseTensor x_;
};

// Output name -> its layout's name, for the outputs a run left in a oneDNN layout.
std::map<std::string, std::string> OpaqueOutputs(const ExecutionProfile& profile) {
  std::map<std::string, std::string> names;
  for (const auto& op : profile.ops) {
    for (const auto& o : op.opaque_outputs) {
      names[o.substr(0, o.find(':'))] = o.substr(o.find(':') + 2);
    }
  }
  return names;
}

size_t Transforms(const ExecutionProfile& profile) {
  size_t n = 0;
  for (const auto& op : profile.ops) n += op.transforms.size();
  return n;
}

void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 const std::string& what) {
  double scale = 0;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  ExpectNear(actual, expected, 1e-4, 1e-4 * scale, what);
}

class OneDNNDenseBlockTest : public OneDNNKernelTestBase {};

const std::vector<std::string> kTemporaries = {"c0", "cat1", "bn1", "r1", "c1",
                                               "c2", "cat2", "bn2", "y"};

TEST_F(OneDNNDenseBlockTest, ConcatAndBatchNormStayInOneDNNLayouts) {
  for (const int64_t growth : {16, 8, 5}) {
    SCOPED_TRACE("growth " + std::to_string(growth));
    const DenseBlock block(growth);
    ExecutionProfile profile;
    const auto y = block.Run(true, &profile, {"y"});
    const auto plain = block.Run(false, nullptr, kTemporaries);
    ExpectClose(y[0], plain.back(), "oneDNN vs plain kernels");
    // Every temporary fetched: the same kernels write row-major outputs.
    const auto row_major = block.Run(true, nullptr, kTemporaries);
    for (size_t i = 0; i < kTemporaries.size(); ++i) {
      ExpectClose(row_major[i], plain[i], "row-major oneDNN vs plain: " + kTemporaries[i]);
    }
    const auto opaque = OpaqueOutputs(profile);
    for (const char* name : {"cat1", "bn1", "r1", "cat2", "bn2"}) {
      ASSERT_EQ(opaque.count(name), 1u) << name << " should stay in a oneDNN layout";
      EXPECT_EQ(opaque.at(name), "oneDNN acdb") << name;
    }
    EXPECT_EQ(Transforms(profile), 0u) << "no input needed converting between the ops";
  }
}

// Along the batch the concat writes row-major Out from blocked inputs; the batch norm after
// it normalises row-major data; a batch norm whose X stays in a convolution's layout (c2)
// fuses its relu in the primitive.
TEST_F(OneDNNDenseBlockTest, ConcatAlongTheBatchWritesRowMajor) {
  const DenseBlock block(16, 0);
  ExecutionProfile profile;
  const auto y = block.Run(true, &profile, {"y"});
  const auto plain = block.Run(false, nullptr, {"cat1", "y"});
  ExpectClose(y[0], plain[1], "y");
  const auto opaque = OpaqueOutputs(profile);
  EXPECT_EQ(opaque.count("cat1"), 0u);
  EXPECT_EQ(opaque.count("c2"), 1u) << "the batch norm reads the convolution's layout";
  const auto row_major = block.Run(true, nullptr, {"cat1", "y"});
  ExpectClose(row_major[0], plain[0], "cat1");
  ExpectClose(row_major[1], plain[1], "y");
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
