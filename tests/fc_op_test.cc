// fc (operators/matmul/fc_op.cc) against loops in double with closed-form activations, its
// shape rules and errors; fc_fuse_pass on mul / matmul_v2 / matmul programs with the same
// numbers before and after, and the cases it must leave alone.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/ir/pass.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;

// act(x w + b) row by row, in double.
std::vector<double> ReferenceFc(const std::vector<double>& x, const std::vector<double>& w,
                                const std::vector<double>* b, int64_t m, int64_t k, int64_t n,
                                const std::string& act) {
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = b != nullptr ? (*b)[j] : 0.0;
      for (int64_t t = 0; t < k; ++t) s += x[i * k + t] * w[t * n + j];
      if (act == "relu") s = std::max(s, 0.0);
      if (act == "sigmoid") s = 1 / (1 + std::exp(-s));
      if (act == "tanh") s = std::tanh(s);
      out[i * n + j] = s;
    }
  }
  return out;
}

template <typename T>
void CheckFc(const DDim& input, int in_num_col_dims, int64_t n, bool with_bias,
             const std::string& act, unsigned seed) {
  const int64_t m = Product(input, 0, in_num_col_dims), k = Product(input, in_num_col_dims, input.size());
  const std::vector<double> x = RandomValues(input.numel(), -1, 1, seed);
  const std::vector<double> w = RandomValues(k * n, -1, 1, seed + 1);
  const std::vector<double> b = RandomValues(n, -1, 1, seed + 2);
  SlotTensors in = {{"Input", {MakeTensor<T>(input, x)}}, {"W", {MakeTensor<T>(DDim{k, n}, w)}}};
  if (with_bias) in["Bias"] = {MakeTensor<T>(DDim{n}, b)};
  auto r = RunOp("fc", in, {{"Out", 1}},
                 {{"in_num_col_dims", in_num_col_dims}, {"activation_type", act}});
  std::vector<int64_t> dims(input.data(), input.data() + in_num_col_dims);
  dims.push_back(n);
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim(dims));
  const DataType dtype = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), ReferenceFc(x, w, with_bias ? &b : nullptr, m, k, n, act),
             RelTol(dtype), AbsTol(dtype) * static_cast<double>(k),
             "fc " + input.ToString() + " act `" + act + "`");
}

TEST(FcOp, MatchesLoopsInDouble) {
  for (const std::string act : {"", "relu", "sigmoid", "tanh"}) {
    CheckFc<float>(DDim{3, 5}, 1, 4, true, act, 1);
    CheckFc<double>(DDim{3, 5}, 1, 4, true, act, 2);
  }
  CheckFc<float>(DDim{2, 3, 4}, 2, 5, true, "relu", 3);   // Rows over the first two dims.
  CheckFc<float>(DDim{2, 3, 4}, 1, 5, false, "", 4);      // [2, 12] x [12, 5], no bias.
  CheckFc<double>(DDim{1, 64}, 1, 10, true, "", 5);
  CheckFc<float>(DDim{0, 4}, 1, 3, true, "relu", 6);      // No rows.
  // Large enough for the oneDNN kernel (a matmul with the bias and the activation as its
  // own bias and post-ops), float only.
  for (const std::string act : {"", "relu", "sigmoid", "tanh"}) {
    CheckFc<float>(DDim{40, 96}, 1, 64, true, act, 7);
  }
  CheckFc<float>(DDim{4, 10, 96}, 2, 64, false, "relu", 8);
  CheckFc<double>(DDim{40, 96}, 1, 64, true, "tanh", 9);
}

TEST(FcOp, Errors) {
  const SlotTensors base = {{"Input", {MakeTensor<float>(DDim{2, 3}, RandomValues(6, -1, 1))}},
                            {"W", {MakeTensor<float>(DDim{3, 4}, RandomValues(12, -1, 1))}}};
  SlotTensors bad_w = base;
  bad_w["W"] = {MakeTensor<float>(DDim{4, 4}, RandomValues(16, -1, 1))};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("fc", bad_w, {{"Out", 1}}); },
                                              {"fc", "equal K", "[2, 3]", "[4, 4]"});
  SlotTensors bad_bias = base;
  bad_bias["Bias"] = {MakeTensor<float>(DDim{3}, RandomValues(3, -1, 1))};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("fc", bad_bias, {{"Out", 1}}); },
                                              {"fc", "Bias", "[4]", "[3]"});
  ExpectError<platform::UnimplementedError>(
      [&] { RunOp("fc", base, {{"Out", 1}}, {{"activation_type", std::string("softsign")}}); },
      {"fc", "softsign"});
  SlotTensors w3 = base;
  w3["W"] = {MakeTensor<float>(DDim{3, 2, 2}, RandomValues(12, -1, 1))};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("fc", w3, {{"Out", 1}}); },
                                              {"fc", "W", "rank 2"});
}

// Parameters from a fixed seed per name order: each test declares them in the same order.
using Model = ProgramWithParams;

class FcFusePassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    inference::RegisterInferencePasses();
  }
  // Applies fc_fuse_pass to a copy of `m`; checks the op types after and the numbers.
  void Check(const Model& m, const DenseTensor& x, int rewrites,
             const std::vector<std::string>& types_after) {
    Scope s1, s2;
    m.Fill(&s1);
    m.Fill(&s2);
    const std::vector<double> before = RunProgram(m.program, &s1, x);
    ProgramDesc p = m.program;
    EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("fc_fuse_pass"), &p, &s2),
              rewrites);
    EXPECT_EQ(OpTypes(p), types_after);
    ExpectNear(RunProgram(p, &s2, x), before, 1e-6, 1e-6, "fc_fuse_pass");
  }
};

// mnist_mlp-like: mul + add + relu, twice, then softmax.
TEST_F(FcFusePassTest, MulAddReluBecomesFc) {
  Model m;
  m.Declare("x", {-1, 6}, false);
  m.Param("w1", {6, 5});
  m.Param("b1", {5});
  m.Param("w2", {5, 3});
  m.Param("b2", {3});
  for (const char* v : {"h1", "a1", "r1", "h2", "a2"}) m.Declare(v, {-1, 5}, false);
  m.Declare("out", {-1, 3}, false);
  m.Op("mul", {{"X", {"x"}}, {"Y", {"w1"}}}, {{"Out", {"h1"}}});
  m.Op("elementwise_add", {{"X", {"h1"}}, {"Y", {"b1"}}}, {{"Out", {"a1"}}}, {{"axis", 1}});
  m.Op("relu", {{"X", {"a1"}}}, {{"Out", {"r1"}}});
  m.Op("mul", {{"X", {"r1"}}, {"Y", {"w2"}}}, {{"Out", {"h2"}}});
  m.Op("elementwise_add", {{"X", {"h2"}}, {"Y", {"b2"}}}, {{"Out", {"a2"}}}, {{"axis", 1}});
  m.Op("softmax", {{"X", {"a2"}}}, {{"Out", {"out"}}});
  Check(m, MakeTensor<float>(DDim{4, 6}, RandomValues(24, -1, 1, 9)), 3,
        {"fc", "fc", "softmax"});
}

// matmul_v2 with a 3-D input: rows over the first two dims; matmul v1 likewise.
TEST_F(FcFusePassTest, MatmulWithBatchedInputBecomesFc) {
  for (const char* type : {"matmul_v2", "matmul"}) {
    Model m;
    m.Declare("x", {-1, 3, 4}, false);
    m.Param("w", {4, 6});
    m.Param("b", {6});
    m.Declare("h", {-1, 3, 6}, false);
    m.Declare("a", {-1, 3, 6}, false);
    m.Declare("out", {-1, 3, 6}, false);
    m.Op(type, {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"h"}}});
    m.Op("elementwise_add", {{"X", {"h"}}, {"Y", {"b"}}}, {{"Out", {"a"}}}, {{"axis", -1}});
    m.Op("tanh", {{"X", {"a"}}}, {{"Out", {"out"}}});
    SCOPED_TRACE(type);
    Check(m, MakeTensor<float>(DDim{2, 3, 4}, RandomValues(24, -1, 1, 5)), 2, {"fc"});
  }
}

TEST_F(FcFusePassTest, LeavesAloneTransposesActivationsWeightsAndOtherBiases) {
  Model m;
  m.Declare("x", {-1, 4}, false);
  m.Param("w", {4, 4});
  m.Param("b", {4});
  m.Param("b_cols", {4, 1});
  for (const char* v : {"t", "ta", "y", "ya", "z", "out"}) m.Declare(v, {-1, 4}, false);
  // A transposed weight is not fc's.
  m.Op("matmul_v2", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"t"}}}, {{"trans_y", true}});
  m.Op("elementwise_add", {{"X", {"t"}}, {"Y", {"b"}}}, {{"Out", {"ta"}}}, {{"axis", -1}});
  // The right operand is an activation, not a parameter.
  m.Op("matmul_v2", {{"X", {"x"}}, {"Y", {"ta"}}}, {{"Out", {"y"}}});
  m.Op("elementwise_add", {{"X", {"y"}}, {"Y", {"b"}}}, {{"Out", {"ya"}}}, {{"axis", -1}});
  // A bias along the rows ([4, 1]) is not a row bias.
  m.Op("mul", {{"X", {"ya"}}, {"Y", {"w"}}}, {{"Out", {"z"}}});
  m.Op("elementwise_add", {{"X", {"z"}}, {"Y", {"b_cols"}}}, {{"Out", {"out"}}}, {{"axis", -1}});
  Check(m, MakeTensor<float>(DDim{4, 4}, RandomValues(16, -1, 1, 7)), 0,
        {"matmul_v2", "elementwise_add", "matmul_v2", "elementwise_add", "mul",
         "elementwise_add"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
