// sync_batch_norm (operators/nn/batch_norm_op.cc) in a job of one process and in inference
// mode: batch_norm's numbers, checked against the formula; sync_batch_norm_pass turning an
// inference one into batch_norm so that conv_bn_fuse_pass folds it, and leaving a training
// one alone.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "operators/registry.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;
using framework::Scope;

constexpr int64_t kC = 3;

// Appends op `type` (batch_norm's slots) of `x` into `y` of shape `shape`, with parameters
// scale, bias, mean, variance of kC channels and every output declared.
void AppendNorm(ProgramWithParams* m, const std::string& type, const std::string& x,
                const std::string& y, const std::vector<int64_t>& shape, bool is_test) {
  m->Param("scale", {kC}, 0.5, 1.5);
  m->Param("bias", {kC}, -1, 1);
  m->Param("mean", {kC}, -0.5, 0.5);
  m->Param("variance", {kC}, 0.5, 2);
  m->Declare(y, shape, false);
  for (const char* v : {"saved_mean", "saved_variance"}) m->Declare(v, {kC}, false);
  m->Op(type,
        {{"X", {x}},
         {"Scale", {"scale"}},
         {"Bias", {"bias"}},
         {"Mean", {"mean"}},
         {"Variance", {"variance"}}},
        {{"Y", {y}},
         {"MeanOut", {"mean"}},
         {"VarianceOut", {"variance"}},
         {"SavedMean", {"saved_mean"}},
         {"SavedVariance", {"saved_variance"}}},
        {{"epsilon", 1e-5f}, {"momentum", 0.9f}, {"is_test", is_test}});
}

// x [2, 3, 2, 2] -> type -> out.
ProgramWithParams NormProgram(const std::string& type, bool is_test) {
  ProgramWithParams m;
  m.Declare("x", {2, kC, 2, 2}, false);
  AppendNorm(&m, type, "x", "out", {2, kC, 2, 2}, is_test);
  return m;
}

const DenseTensor& Input() {
  static const DenseTensor x = MakeTensor<float>({2, kC, 2, 2}, RandomValues(24, -2, 2, 5));
  return x;
}

std::vector<double> RunNorm(const ProgramWithParams& m, const std::string& fetch = "out") {
  operators::RegisterAllOps();
  Scope scope;
  m.Fill(&scope);
  return RunProgram(m.program, &scope, Input(), fetch);
}

TEST(SyncBatchNorm, InferenceModeIsTheFormulaWithRunningStatistics) {
  const ProgramWithParams m = NormProgram("sync_batch_norm", true);
  const std::vector<double> x = ToDoubles(Input());
  const std::vector<double> gamma = ToDoubles(m.params.at("scale")),
                            beta = ToDoubles(m.params.at("bias")),
                            mu = ToDoubles(m.params.at("mean")),
                            var = ToDoubles(m.params.at("variance"));
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = (i / 4) % kC;
    want[i] = gamma[c] * (x[i] - mu[c]) / std::sqrt(var[c] + 1e-5) + beta[c];
  }
  ExpectNear(RunNorm(m), want, 1e-6, 1e-6, "sync_batch_norm, is_test");
}

// One process: the batch statistics are the local batch's, as batch_norm's (whose oneDNN
// kernel sums in another order than the plain one sync_batch_norm runs), and the running
// statistics move the same way.
TEST(SyncBatchNorm, TrainingInOneProcessIsBatchNorm) {
  for (const char* fetch : {"out", "mean", "variance", "saved_mean", "saved_variance"}) {
    ExpectNear(RunNorm(NormProgram("sync_batch_norm", false), fetch),
               RunNorm(NormProgram("batch_norm", false), fetch), 1e-6, 1e-6, fetch);
  }
}

int Apply(const std::string& pass, ProgramDesc* p, Scope* params) {
  operators::RegisterAllOps();
  inference::RegisterInferencePasses();
  return framework::ir::ApplyPass(*framework::ir::CreatePass(pass), p, params);
}

TEST(SyncBatchNormPass, InferenceOpsBecomeBatchNormAndFoldIntoTheConv) {
  ProgramWithParams m;
  m.Declare("x", {2, 4, 5, 5}, false);
  m.Param("w", {kC, 4, 3, 3}, -0.5, 0.5);
  m.Declare("y", {2, kC, 5, 5}, false);
  m.Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
       {{"paddings", std::vector<int>{1, 1}}});
  AppendNorm(&m, "sync_batch_norm", "y", "out", {2, kC, 5, 5}, true);
  const DenseTensor x = MakeTensor<float>({2, 4, 5, 5}, RandomValues(200, -1, 1, 9));
  operators::RegisterAllOps();
  Scope before;
  m.Fill(&before);
  const std::vector<double> want = RunProgram(m.program, &before, x);

  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(Apply("sync_batch_norm_pass", &p, &params), 1);
  EXPECT_EQ(OpTypes(p), (std::vector<std::string>{"conv2d", "batch_norm"}));
  EXPECT_EQ(Apply("conv_bn_fuse_pass", &p, &params), 1);
  EXPECT_EQ(OpTypes(p), (std::vector<std::string>{"conv2d"}));
  ExpectNear(RunProgram(p, &params, x), want, 1e-5, 1e-5, "folded");

  ProgramWithParams training = NormProgram("sync_batch_norm", false);
  Scope unused;
  EXPECT_EQ(Apply("sync_batch_norm_pass", &training.program, &unused), 0);
  EXPECT_EQ(OpTypes(training.program), (std::vector<std::string>{"sync_batch_norm"}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
