// squared_l2_norm (forward and its gradient against finite differences) and
// clip_by_global_norm against the closed form, including outputs that are the input
// variables.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/executor.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::Scope;
using framework::VariableNameMap;

template <typename T>
void CheckSquaredL2Norm() {
  const auto x = RandomValues(12, -2, 2, 1);
  auto r = RunOp("squared_l2_norm", {{"X", {MakeTensor<T>({3, 4}, x)}}}, {{"Out", 1}});
  double want = 0;
  for (double v : x) want += static_cast<double>(static_cast<T>(v)) * static_cast<T>(v);
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim({1}));
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>());
  ExpectNear(ToDoubles(out), {static_cast<T>(want)}, 0, 0, "squared_l2_norm");
}

TEST(SquaredL2NormOp, Forward) {
  CheckSquaredL2Norm<float>();
  CheckSquaredL2Norm<double>();
  auto r = RunOp("squared_l2_norm", {{"X", {MakeTensor<float>({0, 3}, {})}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), std::vector<double>{0.0});
}

TEST(SquaredL2NormOp, GradientMatchesFiniteDifferences) {
  GradCheck check;
  check.op_type = "squared_l2_norm";
  check.inputs = {{"X", {MakeTensor<double>({2, 5}, RandomValues(10, -1, 1, 2))}}};
  check.outputs = {{"Out", 1}};
  CheckGradients(check);
  // The closed form d/dx sum(x^2) = 2x, through the backward program.
  const auto x = RandomValues(4, -1, 1, 3);
  const auto grads =
      NthGradient("squared_l2_norm", {{"X", {MakeTensor<double>({4}, x)}}}, {{"Out", 1}}, {}, 1);
  ASSERT_EQ(grads.count("X_0"), 1u);
  std::vector<double> want(4);
  for (size_t i = 0; i < 4; ++i) want[i] = 2 * x[i];
  ExpectNear(ToDoubles(grads.at("X_0")), want, 1e-12, 1e-12, "d sum(x^2) / dx");
}

// Runs one op in a program whose variables all live in `scope`.
void RunOneOp(const std::string& type, const VariableNameMap& inputs,
              const VariableNameMap& outputs, const AttributeMap& attrs, Scope* scope) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  op->SetInput("X", inputs.at("X"));
  op->SetOutput("Out", outputs.at("Out"));
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  for (const auto& slots : {inputs, outputs}) {
    for (const auto& kv : slots) {
      for (const auto& n : kv.second) block.Var(n)->SetPersistable(true);
    }
  }
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, scope, {});
  exec.Run(prepared.get());
}

template <typename T>
void CheckClip(double max_norm, bool aliased) {
  SCOPED_TRACE(::testing::Message() << "max_norm " << max_norm << " aliased " << aliased);
  const auto a = RandomValues(6, -1, 1, 4);
  const auto b = RandomValues(5, -1, 1, 5);
  Scope scope;
  const DenseTensor ta = MakeTensor<T>({2, 3}, a), tb = MakeTensor<T>({5}, b);
  framework::CopyTensor(ta, platform::CPUPlace(), scope.Var("a")->GetMutable<DenseTensor>());
  framework::CopyTensor(tb, platform::CPUPlace(), scope.Var("b")->GetMutable<DenseTensor>());
  const std::vector<std::string> outs =
      aliased ? std::vector<std::string>{"a", "b"} : std::vector<std::string>{"a_out", "b_out"};
  RunOneOp("clip_by_global_norm", {{"X", {"a", "b"}}}, {{"Out", outs}},
           {{"max_global_norm", static_cast<float>(max_norm)}}, &scope);
  double sum = 0;
  for (const auto* v : {&a, &b}) {
    for (double x : *v) sum += static_cast<double>(static_cast<T>(x)) * static_cast<T>(x);
  }
  const double norm = std::sqrt(sum);
  const double scale = max_norm / std::max(norm, max_norm);
  std::vector<double> wa(a.size()), wb(b.size());
  for (size_t i = 0; i < a.size(); ++i) wa[i] = static_cast<T>(static_cast<T>(a[i]) * scale);
  for (size_t i = 0; i < b.size(); ++i) wb[i] = static_cast<T>(static_cast<T>(b[i]) * scale);
  const double tol = std::is_same_v<T, float> ? 1e-7 : 1e-15;
  ExpectNear(ToDoubles(scope.FindVar(outs[0])->Get<DenseTensor>()), wa, tol, 0, "clipped a");
  ExpectNear(ToDoubles(scope.FindVar(outs[1])->Get<DenseTensor>()), wb, tol, 0, "clipped b");
  EXPECT_EQ(scope.FindVar(outs[1])->Get<DenseTensor>().dims(), DDim({5}));
  if (max_norm >= norm) {
    EXPECT_EQ(ToDoubles(scope.FindVar(outs[0])->Get<DenseTensor>()), ToDoubles(ta))
        << "below the limit the values are unchanged";
  }
  if (!aliased) {
    EXPECT_EQ(ToDoubles(scope.FindVar("a")->Get<DenseTensor>()), ToDoubles(ta)) << "X untouched";
  }
}

TEST(ClipByGlobalNormOp, ClosedForm) {
  for (bool aliased : {false, true}) {
    for (double max_norm : {0.5, 100.0}) {
      CheckClip<float>(max_norm, aliased);
      CheckClip<double>(max_norm, aliased);
    }
  }
}

TEST(ClipByGlobalNormOp, Errors) {
  try {
    RunOp("clip_by_global_norm", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}},
          {{"max_global_norm", 0.0f}});
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute `max_global_norm`"), std::string::npos)
        << e.what();
  }
  try {
    RunOp("clip_by_global_norm",
          {{"X", {MakeTensor<float>({2}, {1, 2}), MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 2}},
          {{"max_global_norm", 1.0f}});
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `clip_by_global_norm` input `X`"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(RunOp("clip_by_global_norm", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 2}},
                     {{"max_global_norm", 1.0f}}),
               platform::InvalidArgumentError);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
